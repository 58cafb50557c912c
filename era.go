package sitemap

import (
	"context"
	"errors"
	"time"
)

// The Store's era: when its state began (its born record, shared.go).
// Every clock the replicas agree on is given in an era and holds in it
// alone. A Store that loses its state (flushed, restarted empty, its
// generation gone back, its records garbage) loses the clocks given
// before, and every replica must give the files a clock after each of
// those, the same one for the same bytes whichever replica builds them.
// So the replicas agree on the new era through the Store itself: the
// first to find the state lost writes a new born under the Store's lock,
// and each replica takes the era it reads, never one it made up. The
// floor of the new era (clock.go, rule 3) follows from the born alone,
// and is the same on every replica.
//
// When a replica takes a new era:
//   - every clock here rises to the floor (clocks.raiseFloor), before any
//     build can see the era;
//   - a copy made in an earlier era, cached here (clocked) or stored (get,
//     getClocks), is served without its Last-Modified until it is rebuilt
//     or replaced: another replica may already serve its bytes under the
//     new floor;
//   - the marks of changes come down to the Store's new generation
//     (ledger.rebase);
//   - every copy cached here is looked up again before it is served, and
//     the other replicas are told to do the same (msgLost).

// era returns the era this replica is in: when the Store's state began,
// as last read; zero before the first read.
func (f *fleet) era() time.Time {
	if ns := f.bornAt.Load(); ns != 0 {
		return time.Unix(0, ns).UTC()
	}
	return time.Time{}
}

// clocked reports whether e may be served under its Last-Modified: it has
// none, or it was made in this era.
func (f *fleet) clocked(e *entry) bool {
	return e.lastMod.IsZero() || e.era.UnixNano() == f.bornAt.Load() && !e.era.IsZero()
}

// born takes b, when the Store's state began as a look read it (zero if
// the Store holds none, or garbage). It reports false if the era could not
// be agreed (the Store did not answer): the look then counts as failed.
func (f *fleet) born(ctx context.Context, b time.Time) bool {
	known := f.era()
	if !b.IsZero() && b.Equal(known) {
		return true
	}
	if !b.IsZero() && b.Before(known) {
		// Read before another replica wrote a new one, or the Store went
		// back to an earlier state: read it once more.
		read, err := f.sh.getBorn(ctx)
		if err != nil {
			return false
		}
		if !read.Before(known) {
			b = read
		}
	}
	if b.IsZero() || b.Before(known) {
		// The era this replica is in is over: a new one is after it.
		var err error
		if b, err = f.agree(ctx, known); err != nil {
			return false
		}
	}
	f.take(b)
	return true
}

// gave takes gen, a generation the Store gave: one far below another it
// gave means the Store lost its state (ledger.gave), even if its born
// record is the one this replica knows (a Store restored from an older
// copy of itself), so a new era is agreed. It reports false if that could
// not be done.
func (f *fleet) gave(ctx context.Context, gen int64) bool {
	if f.ledger.gave(gen) {
		f.behind.Store(true) // until a new era is agreed, whatever the next generations say
	}
	if !f.behind.Load() {
		return true
	}
	b, err := f.agree(ctx, f.era())
	if err != nil {
		return false
	}
	f.behind.Store(false)
	f.take(b)
	return true
}

// agree returns the Store's era after this replica found it over: the
// born record then, unless that is still lost (none, or not after lost,
// the era that was found over), when a new era begins now. It is read and
// written under the Store's lock, so that the replicas that find the
// state lost at once agree on one new era.
func (f *fleet) agree(ctx context.Context, lost time.Time) (time.Time, error) {
	unlock, err := f.sh.lockBorn(ctx)
	for delay := time.Millisecond; errors.Is(err, ErrLocked); delay = min(2*delay, fleetWaitMax) {
		// Another replica is agreeing (the replicas of a new Store all
		// find it empty at once): its era is there once it unlocks.
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return time.Time{}, ctx.Err()
		case <-t.C:
		}
		if b, err := f.sh.getBorn(ctx); err != nil {
			return time.Time{}, err
		} else if b.After(lost) {
			return b, nil
		}
		unlock, err = f.sh.lockBorn(ctx)
	}
	if err != nil {
		return time.Time{}, err // the Store is down: the next look reads the era
	}
	defer unlock()
	b, err := f.sh.getBorn(ctx)
	if err != nil {
		return time.Time{}, err
	}
	if !b.IsZero() && b.After(lost) {
		return b, nil
	}
	b = nextEra(f.now(), lost)
	return b, f.sh.setBorn(ctx, b)
}

// nextEra returns when a new era begins, at now, after the era lost: now,
// but no earlier than the second after lost's. Within lost's second, the
// new floor (floorAfter) would be lost's own, which a replica may have
// given bytes as their Last-Modified in the era that is over; those
// clocks are gone with the Store, so another replica would give the same
// floor to other bytes (TestEraFlushWithinASecond). A second later, the
// new floor is past the old one, and past every clock given in the old
// era before now (each at most maxAhead ahead of its time).
func nextEra(now, lost time.Time) time.Time {
	if lost.IsZero() {
		return now
	}
	return later(now, second(lost).Add(time.Second))
}

// take makes b this replica's era, if it is later than the one it is in.
// The first era read sets the floor (the Store holds every clock given
// since b); a later one means the Store lost its state (see above).
func (f *fleet) take(b time.Time) {
	if known := f.era(); !b.After(known) {
		return
	} else if !known.IsZero() {
		// Told before any build here can give a clock in the new era: the
		// others look up what they serve, and find the new era, before a
		// crawler can get a copy of it from here and ask them.
		f.sh.publish(f.ctx, &message{kind: msgLost})
	}
	f.mu.Lock()
	known := f.era()
	if !b.After(known) {
		f.mu.Unlock()
		return
	}
	if known.IsZero() {
		f.clocks.setFloor(b)
	} else {
		f.clocks.raiseFloor(b)
	}
	f.bornAt.Store(b.UnixNano())
	f.mu.Unlock()
	if known.IsZero() {
		return
	}
	if gen, err := f.sh.incr(f.ctx); err == nil {
		f.ledger.rebase(gen)
	}
	f.sh.breaks.Add(1)
	f.log.Warn("sitemap: the store lost its state; a new era of clocks begins", "era", b, "before", known)
}

// heardLoss is told that another replica found the Store's state lost:
// every copy cached here is looked up before it is next served (which
// reads the new era), at most once a second however often it is said.
func (f *fleet) heardLoss() {
	now := time.Now().UnixNano()
	if last := f.heard.Load(); now-last < int64(time.Second) || !f.heard.CompareAndSwap(last, now) {
		return
	}
	f.sh.breaks.Add(1)
}
