package extsort

import (
	"cmp"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
)

var u64 = Codec[uint64]{
	Size:    8,
	Put:     func(b []byte, v uint64) { binary.LittleEndian.PutUint64(b, v) },
	Get:     func(b []byte) uint64 { return binary.LittleEndian.Uint64(b) },
	Compare: cmp.Compare[uint64],
}

// TestSorter: records come back sorted, duplicates kept, whether they
// stayed in memory or were spilled to many runs, twice in a row, and the
// temporary file is gone after Close.
func TestSorter(t *testing.T) {
	for _, tc := range []struct {
		name     string
		maxBytes int64
		wantRuns bool
	}{{"memory", 1 << 20, false}, {"spilled", 8 * 1000, true}, {"one a run", 1, true}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := New(u64, tc.maxBytes, dir)
			r := rand.New(rand.NewPCG(1, 2))
			n := 10_000
			if tc.maxBytes == 1 {
				n = 300
			}
			var want []uint64
			for range n {
				v := r.Uint64N(uint64(n) / 2) // duplicates too
				want = append(want, v)
				if err := s.Add(v); err != nil {
					t.Fatal(err)
				}
			}
			slices.Sort(want)
			for pass := range 2 {
				var got []uint64
				for v, err := range s.All() {
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, v)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("pass %d: %d records, sorted %v; want %d", pass, len(got), slices.IsSorted(got), len(want))
				}
			}
			if got := s.Runs() > 0; got != tc.wantRuns {
				t.Errorf("runs: %d", s.Runs())
			}
			if s.Bytes() > max(tc.maxBytes, 8) {
				t.Errorf("holds %d bytes, bound %d", s.Bytes(), tc.maxBytes)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if left, _ := os.ReadDir(dir); len(left) != 0 {
				t.Errorf("after Close, %d files left in the temporary directory", len(left))
			}
		})
	}
}

// TestSorterStop: a loop that breaks early stops the merge.
func TestSorterStop(t *testing.T) {
	s := New(u64, 80, t.TempDir())
	defer s.Close()
	for i := range 100 {
		s.Add(uint64(100 - i))
	}
	var got []uint64
	for v, err := range s.All() {
		if err != nil {
			t.Fatal(err)
		}
		if got = append(got, v); len(got) == 3 {
			break
		}
	}
	if !slices.Equal(got, []uint64{1, 2, 3}) {
		t.Errorf("got %v", got)
	}
}
