// Package inflight counts the work under way by key, refuses new work once
// closed, and waits for the work under way within a bound: the loads a
// Sitemap's Close waits for, and names when it gives up on them.
package inflight

import (
	"context"
	"sync"
)

// Set is the work under way, by key. The zero value is an open, empty set.
type Set[K comparable] struct {
	mu     sync.Mutex
	closed bool
	keys   map[K]int     // pieces of work under way on each key
	idle   chan struct{} // made by Close; closed when the last piece of work ends
}

// Start counts one piece of work on k, unless the set is closed, and
// reports whether it did. Each Start that returns true needs one Done.
func (s *Set[K]) Start(k K) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	if s.keys == nil {
		s.keys = make(map[K]int)
	}
	s.keys[k]++
	return true
}

// Done ends a piece of work on k that Start counted.
func (s *Set[K]) Done(k K) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.keys[k]--; s.keys[k] <= 0 {
		delete(s.keys, k)
	}
	if len(s.keys) == 0 && s.idle != nil {
		close(s.idle)
		s.idle = nil
	}
}

// Len returns the number of pieces of work under way.
func (s *Set[K]) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.keys {
		n += c
	}
	return n
}

// Close refuses new work from now on, then waits until the work under way
// ends or ctx is done. It returns the keys of the work still under way
// then, each once, in no particular order; nil if none. Calling it again
// waits again for what is left.
func (s *Set[K]) Close(ctx context.Context) []K {
	s.mu.Lock()
	s.closed = true
	if len(s.keys) == 0 {
		s.mu.Unlock()
		return nil
	}
	if s.idle == nil {
		s.idle = make(chan struct{})
	}
	idle := s.idle
	s.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	left := make([]K, 0, len(s.keys))
	for k := range s.keys {
		left = append(left, k)
	}
	return left
}
