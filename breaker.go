package sitemap

import (
	"log/slog"
	"sync"
	"time"
)

// breaker keeps a failing Store from being called on every request: after
// a failed call it is open, and calls are not made, for a cooldown that
// doubles with each failure in a row (from breakerMin to breakerMax);
// then one call at a time is let through, and its success closes it. It
// logs once when it opens and once when it closes, so an outage is two
// lines in the log, whatever the traffic.
type breaker struct {
	mu       sync.Mutex
	open     bool
	until    time.Time // while open: no call before this
	probing  bool      // while open: a call is let through and has not ended
	cooldown time.Duration
	log      *slog.Logger
	now      func() time.Time // time.Now; a test may set another
}

const (
	breakerMin = 250 * time.Millisecond
	breakerMax = 30 * time.Second
)

func newBreaker(log *slog.Logger) *breaker {
	return &breaker{log: log, now: time.Now}
}

// allow reports whether a call may be made now, and whether it is the
// one call let through an open breaker. When ok, the caller must report
// the call's outcome with done.
func (b *breaker) allow() (ok, probe bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case !b.open:
		return true, false
	case b.probing || b.now().Before(b.until):
		return false, false
	}
	b.probing = true
	return true, true
}

// done reports the outcome of a call that allow let through. The calls
// that were in flight when the breaker opened fail too: only the first
// failure, and a failed probe, set the cooldown.
func (b *breaker) done(probe bool, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if probe {
		b.probing = false
	}
	if err == nil {
		if b.open {
			b.open, b.cooldown = false, 0
			b.log.Info("sitemap: store available again; sharing resumed")
		}
		return
	}
	switch {
	case !b.open:
		b.open = true
		b.log.Warn("sitemap: store unavailable; serving from this replica's cache and Source until it answers again", "err", err)
	case !probe:
		return
	}
	b.cooldown = min(max(2*b.cooldown, breakerMin), breakerMax)
	b.until = b.now().Add(b.cooldown)
}

// isOpen reports whether calls are being refused.
func (b *breaker) isOpen() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.open
}
