package sitemap

import (
	"context"
	"sync"
	"time"

	"github.com/freshmap/sitemap/internal/inflight"
)

// lifetime is what documents start and Close ends: the loads' own
// context, the background goroutines (refreshes, an Invalidate's
// rebuilds) and the loads under way, background or for a request. Close
// waits for them within a bound, whatever a Source does: a Source that
// ignores its context would otherwise hold Close for as long as it hangs.
type lifetime struct {
	ctx    context.Context // the loads' own, cancelled by close
	cancel context.CancelFunc
	mu     sync.Mutex // guards closed and wg.Add
	closed bool
	wg     sync.WaitGroup       // background goroutines
	loads  inflight.Set[docKey] // the loads under way; none starts after close
}

// background runs f on a goroutine that close waits for, unless closed;
// it reports whether f was started.
func (l *lifetime) background(f func()) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return false
	}
	l.wg.Go(f)
	return true
}

// close refuses new loads and background goroutines, cancels the loads'
// context, and waits for the loads under way and the background
// goroutines to end, but at most bound. It returns the keys of the loads
// still under way then, which are left to end on their own (a load that
// ends after close keeps nothing: documents.load); nil if none. Only the
// first call waits.
func (l *lifetime) close(bound time.Duration) []docKey {
	l.mu.Lock()
	closed := l.closed
	l.closed = true
	l.mu.Unlock()
	if closed {
		return nil
	}
	l.cancel()
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	if left := l.loads.Close(ctx); len(left) > 0 {
		return left
	}
	// No load runs or starts now: what is left of the background
	// goroutines ends at once.
	idle := make(chan struct{})
	go func() { l.wg.Wait(); close(idle) }()
	select {
	case <-idle:
	case <-ctx.Done():
	}
	return nil
}
