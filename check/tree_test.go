package check

import (
	"fmt"
	"testing"
)

// TestHashSet: entries survive the merges of the recent map into the
// sorted arrays, and absent keys stay absent.
func TestHashSet(t *testing.T) {
	var s hashSet
	const n = 300_000 // several merges
	for i := range n {
		s.put(hash(fmt.Sprint(i)), uint32(i))
	}
	for i := range n {
		if v, ok := s.get(hash(fmt.Sprint(i))); !ok || v != uint32(i) {
			t.Fatalf("get(%d) = %d, %v", i, v, ok)
		}
	}
	for i := n; i < n+1000; i++ {
		if _, ok := s.get(hash(fmt.Sprint(i))); ok {
			t.Fatalf("get(%d) found an entry never put", i)
		}
	}
	s.flush()
	if len(s.keys) != n || len(s.recent) != 0 {
		t.Errorf("after flush: %d keys, %d recent", len(s.keys), len(s.recent))
	}
	if b := s.bytes(); b > 13*n*5/4 {
		t.Errorf("%d bytes for %d entries", b, n)
	}
}
