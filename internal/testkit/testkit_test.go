package testkit

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

func TestClock(t *testing.T) {
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	c := NewClock(t0)
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() { c.Add(time.Second); _ = c.Now() })
	}
	wg.Wait()
	if got := c.Now(); !got.Equal(t0.Add(10 * time.Second)) {
		t.Errorf("Now = %v", got)
	}
}

func TestSyncBuffer(t *testing.T) {
	var b SyncBuffer
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Go(func() { fmt.Fprintf(&b, "%d\n", i); _ = b.String() })
	}
	wg.Wait()
	if n := len(b.String()); n != 20 {
		t.Errorf("%d bytes written, want 20", n)
	}
}
