package inflight

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestSet: Close waits for the work under way and refuses new work.
func TestSet(t *testing.T) {
	var s Set[string]
	for _, k := range []string{"a", "a", "b"} {
		if !s.Start(k) {
			t.Fatalf("Start(%q) on an open set refused", k)
		}
	}
	if s.Len() != 3 {
		t.Fatalf("Len %d, want 3", s.Len())
	}
	s.Done("a")
	var wg sync.WaitGroup
	wg.Go(func() {
		if left := s.Close(context.Background()); left != nil {
			t.Errorf("Close left %v, want nil: it waits for the work to end", left)
		}
	})
	for !s.isClosed() {
		time.Sleep(time.Millisecond)
	}
	if s.Start("c") {
		t.Error("Start on a closing set counted")
	}
	s.Done("a")
	s.Done("b")
	wg.Wait()
	if s.Len() != 0 || s.Close(context.Background()) != nil {
		t.Error("a closed, idle set is not empty")
	}
}

// TestSetBound: Close returns when its context ends, with the keys of the
// work still under way; a second Close waits again for what is left.
func TestSetBound(t *testing.T) {
	var s Set[int]
	s.Start(1)
	s.Start(2)
	s.Start(2)
	s.Done(1)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	left := s.Close(ctx)
	slices.Sort(left)
	if !slices.Equal(left, []int{2}) {
		t.Errorf("Close left %v, want [2]", left)
	}
	done := make(chan []int)
	go func() { done <- s.Close(context.Background()) }()
	s.Done(2)
	s.Done(2)
	if left := <-done; left != nil {
		t.Errorf("the second Close left %v, want nil", left)
	}
}

func (s *Set[K]) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}
