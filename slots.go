package sitemap

import (
	"container/list"
	"context"
	"sync"
)

// slots are the build slots: at most MaxBuilds loads read a Source (or
// make an HTML view) at once. A slot freed goes first to a load that a
// request waits for, ahead of the background loads (refreshes, an
// Invalidate's rebuilds, the warm-up) queued before it: behind them, a
// page not cached waited seconds for its own build while the rebuilds of
// a busy site ran (TestSlotsRequestFirst). Among loads alike, the first
// to come goes first; with no request waiting, the background loads take
// the slots in the order they came.
//
// A load is waited for while a request waits for its key (want): the
// request that started it, or one that joined it, as the one flight of a
// key is shared by requests and background loads alike. So the mark is
// the key's, counted, and read when a slot is given, not when the load
// queued. A slot asked for by a request itself (an HTML view) is a
// request's at once. At most one load per key is in flight, so the queue
// is scanned when a slot is freed.
type slots struct {
	mu     sync.Mutex
	max    int
	free   int
	queue  list.List      // of *turn, in the order they came; empty while a slot is free
	wanted map[docKey]int // how many requests wait for the load of each key
	nwant  int            // the sum of wanted: zero, and the queue's front goes first
}

// turn is a load's place in the queue for a slot.
type turn struct {
	k       docKey
	request bool          // asked for by a request itself
	given   chan struct{} // closed once the slot is given, under slots.mu
}

func newSlots(max int) *slots {
	return &slots{max: max, free: max, wanted: make(map[docKey]int)}
}

// acquire takes a slot for a load of k (request: one that a request makes
// itself), waiting for one under ctx; it returns ctx's error, holding no
// slot, if ctx ends first. A slot taken is given back with release.
func (s *slots) acquire(ctx context.Context, k docKey, request bool) error {
	s.mu.Lock()
	if s.free > 0 {
		s.free--
		s.mu.Unlock()
		return nil
	}
	t := &turn{k: k, request: request, given: make(chan struct{})}
	el := s.queue.PushBack(t)
	s.mu.Unlock()
	select {
	case <-t.given:
		return nil
	case <-ctx.Done():
	}
	s.mu.Lock()
	select {
	case <-t.given: // given while ctx ended: passed on to the next
		s.mu.Unlock()
		s.release()
	default:
		s.queue.Remove(el)
		s.mu.Unlock()
	}
	return ctx.Err()
}

// release gives back a slot: to the first queued load that a request
// waits for, else to the first queued, else to the free ones.
func (s *slots) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := s.queue.Front()
	if s.nwant > 0 {
		for el := next; el != nil; el = el.Next() {
			if t := el.Value.(*turn); t.request || s.wanted[t.k] > 0 {
				next = el
				break
			}
		}
	}
	if next == nil {
		s.free++
		return
	}
	close(s.queue.Remove(next).(*turn).given)
}

// want says that a request waits for the load of k, until unwant.
func (s *slots) want(k docKey) {
	s.mu.Lock()
	s.wanted[k]++
	s.nwant++
	s.mu.Unlock()
}

// unwant says that a request that wanted k no longer waits for it.
func (s *slots) unwant(k docKey) {
	s.mu.Lock()
	if s.wanted[k]--; s.wanted[k] <= 0 {
		delete(s.wanted, k)
	}
	s.nwant--
	s.mu.Unlock()
}

// waitedFor reports whether a request waits for the load of k.
func (s *slots) waitedFor(k docKey) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.wanted[k] > 0
}

// held returns how many slots are taken, and queued how many loads wait
// for one.
func (s *slots) held() (held, queued int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.max - s.free, s.queue.Len()
}
