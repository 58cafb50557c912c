package redisstore

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Timeouts that follow what Redis answers in. A loaded machine (a deploy,
// a crawler burst, CPU-bound neighbours) can make a Redis that answers in
// a millisecond look like one that answers in 300: the reply waits for
// the process to be scheduled. A fixed timeout then fails calls that
// would have succeeded, and the Sitemap, taking the Store for down,
// builds alone on every replica: the fleet reads the Source once per
// replica instead of once. So each call's timeout is the larger of
// Options.Timeout and what recent calls took (their smoothed time plus
// four times its deviation, as TCP times its retransmissions), at most
// LockTTL/3, so that a lock is still renewed before it expires. Only
// answered calls are measured: a Redis that stops answering does not push
// the timeout up, and the Sitemap's breaker then counts it down after a
// few calls in a row.
type latency struct {
	base, max time.Duration

	mu           sync.Mutex
	srtt, rttvar time.Duration // smoothed time of answered calls, and its mean deviation
	measured     bool
}

// timeout returns the timeout of the next call.
func (l *latency) timeout() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.measured {
		return l.base
	}
	return min(max(l.base, l.srtt+4*l.rttvar), l.max)
}

// observe records the time d of an answered call.
func (l *latency) observe(d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.measured {
		l.srtt, l.rttvar, l.measured = d, d/2, true
		return
	}
	diff := l.srtt - d
	if diff < 0 {
		diff = -diff
	}
	l.rttvar = (3*l.rttvar + diff) / 4
	l.srtt = (7*l.srtt + d) / 8
}

// bound returns ctx bounded by the next call's timeout, and end, to call
// with the call's error once it returns: it releases the context and, for
// a call Redis answered (with a value or an error reply), records how
// long it took.
func (s *Store) bound(ctx context.Context) (context.Context, func(err error)) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, s.lat.timeout())
	return ctx, func(err error) {
		cancel()
		var reply redis.Error
		if err == nil || errors.As(err, &reply) {
			s.lat.observe(time.Since(start))
		}
	}
}
