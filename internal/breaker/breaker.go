// Package breaker is a circuit breaker: it keeps a failing service from
// being called on every request, and logs an outage twice, whatever the
// traffic.
package breaker

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"
)

// Breaker keeps a failing service from being called on every request: after
// a failed call (or Slow calls in a row that ran out of time) it is open,
// and calls are not made, for a cooldown that
// doubles with each failure in a row (from Min to Max);
// then one call at a time is let through, and its success closes it. It
// logs once when it opens and once when it closes, so an outage is two
// lines in the log, whatever the traffic.
type Breaker struct {
	mu       sync.Mutex
	open     bool
	until    time.Time // while open: no call before this
	probing  bool      // while open: a call is let through and has not ended
	cooldown time.Duration
	slow     int // calls in a row that timed out while closed
	log      *slog.Logger
	opened   string
	closed   string
	now      func() time.Time // time.Now; a test may set another
}

// Slow is how many calls in a row may time out before the breaker opens.
// A service that answers slowly (a loaded machine, a busy network) is not
// a service that is down: one call that ran out of time is no outage,
// and opening at once would send every caller off on its own (each
// replica building alone) exactly when the machines are busiest. A
// service that refuses a connection, or answers with an error, opens the
// breaker at once; one that stops answering opens it after Slow calls.
const Slow = 3

// The cooldown's bounds. Max is short: a probe is one call with its own
// short timeout, so trying the service again once a second costs it
// nothing, and a replica shares again (and agrees on clocks again)
// within a second of the service's return, however long it was away.
const (
	Min = 250 * time.Millisecond
	Max = time.Second
)

// New returns a closed breaker that logs to log: opened (at warn level,
// with the error) when it opens, closed (at info level) when it closes.
func New(log *slog.Logger, opened, closed string) *Breaker {
	return &Breaker{log: log, now: time.Now, opened: opened, closed: closed}
}

// Allow reports whether a call may be made now, and whether it is the
// one call let through an open breaker. When ok, the caller must report
// the call's outcome with Done.
func (b *Breaker) Allow() (ok, probe bool) {
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

// Done reports the outcome of a call that Allow let through. The calls
// that were in flight when the breaker opened fail too: only the first
// failure, and a failed probe, set the cooldown.
func (b *Breaker) Done(probe bool, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if probe {
		b.probing = false
	}
	if err == nil {
		b.slow = 0
		if b.open {
			b.open, b.cooldown = false, 0
			b.log.Info(b.closed)
		}
		return
	}
	switch {
	case !b.open && errors.Is(err, context.DeadlineExceeded) && b.slow+1 < Slow:
		b.slow++
		return
	case !b.open:
		b.open, b.slow = true, 0
		b.log.Warn(b.opened, "err", err)
	case !probe:
		return
	}
	b.cooldown = min(max(2*b.cooldown, Min), Max)
	b.until = b.now().Add(b.cooldown)
}

// IsOpen reports whether calls are being refused.
func (b *Breaker) IsOpen() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.open
}
