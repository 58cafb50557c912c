package sitemap

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/freshmap/sitemap/internal/breaker"
	"golang.org/x/sync/singleflight"
)

// The fleet: the replicas of a site that share a Store (store.go,
// shared.go), as the tier of a Sitemap that has one. A document is built
// by one replica at a time, whichever takes its lock in the store; the
// copy it stores serves every replica, with the clock it was built under.
// What changed is told to every replica through the store's channel: a
// change raises the store's generation, and a stored copy whose build
// started at an earlier generation than the document's last change is not
// current (ledger.go). Whatever the store does, a replica goes on alone:
// a failed or refused call (internal/breaker) means build here, as without a
// Store.
type fleet struct {
	sh     *shared
	site   *site
	ledger *ledger
	clocks *clocks
	inbox  inbox
	log    *slog.Logger
	raw    func() time.Time // this replica's time (Config.Now)

	// now is the fleet's time: this replica's, or the Store's if that is
	// off it by more than skewTolerance (skew).
	now func() time.Time

	mu     sync.Mutex   // held while a new era is taken (era.go)
	bornAt atomic.Int64 // the era: when the Store's state began, in Unix ns, as last read; 0 before
	heard  atomic.Int64 // when another replica last said the Store lost its state, in Unix ns (era.go)
	behind atomic.Bool  // the generation went back, and no new era is agreed yet (era.go)
	warned atomic.Bool  // a clock ahead of this replica's was logged

	looks  singleflight.Group // one look per document at a time (newer)
	ctx    context.Context    // cancelled by close
	cancel context.CancelFunc
	wg     sync.WaitGroup // the subscription (follow)
}

var _ tier = (*fleet)(nil)

// lookEvery is how often a stale copy may be looked up in the store while
// no message says that a newer one is there: a page whose rebuild takes a
// while costs the store at most one read of its copy a second, however
// many requests it gets.
const lookEvery = time.Second

// fleetWaitMax is the longest pause between two looks at the store while
// another replica builds a document.
const fleetWaitMax = 100 * time.Millisecond

// newFleet returns the fleet of st on the Store sh, subscribed to what the
// other replicas say (which it tells in), until close.
func newFleet(sh *shared, st *site, l *ledger, c *clocks, in inbox, log *slog.Logger, raw func() time.Time) *fleet {
	f := &fleet{sh: sh, site: st, ledger: l, clocks: c, inbox: in, log: log, raw: raw}
	f.now = func() time.Time { return c.now(raw()) }
	f.ctx, f.cancel = context.WithCancel(context.Background())
	broken := f.subscribe() // before the first request; follow retries if the store did not answer
	c.setFloor(f.now())     // in the Store's time, if this replica's is off it (skew); born may lower it
	f.wg.Go(func() { f.follow(broken) })
	return f
}

// close ends the subscription, waiting at most bound for its goroutine:
// one blocked in a Store call that ignores its context is left to end on
// its own, and logged (TestFleetCloseBounded).
func (f *fleet) close(bound time.Duration) {
	f.cancel()
	done := make(chan struct{})
	go func() { f.wg.Wait(); close(done) }()
	t := time.NewTimer(bound)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		f.log.Warn("sitemap: Close gave up waiting for the store's subscription; the Store ignores its context", "waited", bound)
	}
}

func (f *fleet) breaks() int64 { return f.sh.breaks.Load() }

func (f *fleet) catchesUp() bool { return true }

func (f *fleet) stats() tierStats {
	sh := f.sh
	return tierStats{hits: sh.hits.Load(), waits: sh.waits.Load(), errs: sh.errs.Load(), down: sh.br.IsOpen()}
}

func (f *fleet) unsynced(sl *slot) bool { return sl.synced.Load() < f.sh.breaks.Load() }

// acquire: the stored copy if that is current and fresh, waiting while
// another replica builds it; or the lock to build k here, with the stored
// copy as the stale one to replace if it is newer than old. With the
// store off (down): build here; while it is only slow, try again.
//
// While another replica holds the lock, only the lock is tried again (a
// small call), with growing pauses: the copy is read once the lock is
// free, so a wait costs no more than one read of it.
func (f *fleet) acquire(ctx context.Context, k docKey, old *entry) (claim, error) {
	name := f.site.storeName(k)
	rec, old, ok := f.look(ctx, k, old)
	switch {
	case rec != nil:
		return claim{got: rec, unlock: noUnlock}, nil
	case !ok && f.down():
		return claim{stale: old, unlock: noUnlock, alone: true}, nil
	}
	for delay, waited := time.Millisecond, false; ; delay = min(2*delay, fleetWaitMax) {
		unlock, err := f.sh.lock(ctx, name)
		switch {
		case err == nil:
			// The lock is free: its last holder may have stored the copy.
			var rec *entry
			if rec, old, ok = f.look(ctx, k, old); rec != nil {
				unlock()
				return claim{got: rec, unlock: noUnlock}, nil
			}
			// The generation the build starts at, from the Store itself.
			gen, err := f.sh.incr(ctx)
			if !ok || err != nil || !f.gave(ctx, gen) {
				return claim{stale: old, unlock: unlock, alone: true}, nil
			}
			// Read after the generation: a loss it revealed raised the
			// floor first (era.go).
			return claim{stale: old, unlock: unlock, gen: gen, era: f.era()}, nil
		case !errors.Is(err, ErrLocked) && f.down():
			return claim{stale: old, unlock: noUnlock, alone: true}, nil
		}
		if !waited {
			waited = true
			f.sh.waits.Add(1)
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return claim{}, ctx.Err()
		case <-t.C:
		}
	}
}

// down reports whether the Store is taken for down: a call failed and
// the breaker opened. A call that only ran out of time, on a Store that
// is slow rather than down (a loaded machine), leaves the breaker closed
// (breaker.Slow): acquire then tries again, as while another replica
// holds the lock, until the build's deadline, instead of building alone
// (which, on every replica at once, reads the Source once per replica).
func (f *fleet) down() bool { return f.sh.br.IsOpen() }

// look reads the stored copy of k, and merges the clocks it carries into
// this replica's.
func (f *fleet) look(ctx context.Context, k docKey, old *entry) (got, stale *entry, ok bool) {
	st := f.ledger.now()
	rec, clocks, born, err := f.sh.get(ctx, k, f.site.storeName(k))
	if err != nil || !f.born(ctx, born) {
		return nil, old, false
	}
	if !born.Equal(f.era()) {
		// Read in an era that is over, or before this one began: what it
		// holds is as if missing (era.go).
		rec, clocks = nil, nil
	}
	now := f.now()
	for _, kc := range clocks {
		if !f.clocks.seed(kc.k, kc.c, now) {
			f.ahead(kc.c.at, now)
		}
	}
	if rec == nil {
		return nil, old, true
	}
	if rec.lastMod.After(now.Add(maxSkew)) {
		f.ahead(rec.lastMod, now)
		return nil, old, true // its builder's clock is wrong: build here
	}
	rec.stamp = stamp{epoch: st.epoch, gen: rec.gen}
	switch {
	case f.fresh(k, rec, old):
		f.sh.hits.Add(1)
		return rec, nil, true
	case old == nil || rec.built.After(old.built):
		return nil, rec, true
	}
	return nil, old, true
}

// fresh reports whether rec, a stored copy of k, may be served as it is:
// built less than TTL ago, current, and not older than local, this
// replica's copy (if any).
func (f *fleet) fresh(k docKey, rec, local *entry) bool {
	return f.now().Before(rec.expires(f.site.ttl)) && f.ledger.current(k, rec.stamp) &&
		(local == nil || !rec.built.Before(local.built) || rec.hash == local.hash)
}

// newer looks in the store for a newer copy of k than sl's, the copy this
// replica holds, before that is served: one another replica has just
// built, fresh or past its TTL. It is called for a stale or outdated copy, and once for a fresh
// one made before the subscription last broke. Requests for k share one
// look.
func (f *fleet) newer(k docKey, sl *slot) *entry {
	if !f.unsynced(sl) && time.Now().UnixNano()-sl.looked.Load() < int64(lookEvery) {
		return nil // looked just now; a message that a new copy is stored resets this (documents.stored)
	}
	v, _, _ := f.looks.Do(k.String(), func() (any, error) {
		breaks := f.sh.breaks.Load()
		rec, stale, ok := f.look(f.ctx, k, sl.e)
		if rec == nil && stale != nil && stale != sl.e && f.ledger.current(k, stale.stamp) {
			// Current, and built after this replica's copy, but past its
			// TTL: still the copy to serve while it is rebuilt, never the
			// older one here, however long after a change this request
			// comes (TestFleetHeardChangePastTTL).
			rec = stale
		}
		if ok {
			// Only a look the Store answered: until it answers again, the
			// copy is looked up before it is served.
			sl.synced.Store(breaks)
		}
		if rec == nil {
			sl.looked.Store(time.Now().UnixNano())
		}
		return rec, nil
	})
	return v.(*entry)
}

// share stores e, the copy of k just built here, with its clocks, and
// tells the other replicas: its clock first, durably (an index build reads
// a page's, whoever builds the page; it outlives the copy), then the copy,
// then the message. It reports whether the clock and the copy were
// stored: if not, no other replica knows the clock, and e must not be
// served under it.
func (f *fleet) share(ctx context.Context, k docKey, e *entry) bool {
	name := f.site.storeName(k)
	if !e.era.Equal(f.era()) {
		return false // the Store lost its state during the build: its clock is from before
	}
	if f.sh.setClock(ctx, name, e.era, f.clocks.state(k)) != nil {
		return false
	}
	if f.sh.set(ctx, k, name, e, f.clocks.state) != nil {
		return false
	}
	f.sh.publish(ctx, &message{kind: msgBuilt, hash: e.hash, names: []string{f.site.fileName(k)}})
	return true
}

// announce tells every replica that keys changed. Until the store knows,
// no stored copy of them is current here; if it cannot be told now, it
// is told when it answers again (follow).
func (f *fleet) announce(keys []docKey) {
	f.ledger.hold(keys)
	gen, err := f.sh.incr(f.ctx)
	if err != nil {
		f.ledger.postpone(keys)
		return
	}
	f.gave(f.ctx, gen)
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = f.site.fileName(k)
	}
	if f.sh.publish(f.ctx, &message{kind: msgChanged, gen: gen, names: names}) != nil {
		f.ledger.postpone(keys)
		return
	}
	f.ledger.release(keys, gen)
}

// storedClocks merges into this replica's clocks those that the builds
// of pages (by any replica) stored, for every page of pages, so that the
// index lists the clock of the bytes each page serves.
func (f *fleet) storedClocks(ctx context.Context, pages [][]PageInfo) {
	var keys []docKey
	var names []string
	flush := func() bool {
		cs, err := f.sh.getClocks(ctx, f.era(), names)
		for i, c := range cs {
			f.clocks.seed(keys[i], c, f.now())
		}
		keys, names = keys[:0], names[:0]
		return err == nil
	}
	for sec, ps := range pages {
		for _, p := range ps {
			k := pageKey(sec, p.Number)
			keys, names = append(keys, k), append(names, f.site.storeName(k))
			if len(names) == clockBatch && !flush() {
				return
			}
		}
	}
	if len(names) > 0 {
		flush()
	}
}

// clockBatch is how many clocks one store call reads.
const clockBatch = 1000

// follow keeps this replica subscribed to what the others say until
// close. After a break, it cannot know what it missed: each copy it holds
// is looked up in the store once more, on its next request, and replaced
// if the store has a newer one (a break raises breaks, and a copy cached
// before it is unsynced). Once a second, it tells the others the changes
// it could not tell while the store was off.
func (f *fleet) follow(broken <-chan struct{}) {
	sh := f.sh
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for delay := breaker.Min; ; delay = min(2*delay, breaker.Max) {
		for broken != nil {
			select {
			case <-f.ctx.Done():
				return
			case <-broken:
				broken = nil
				sh.breaks.Add(1) // what is cached now may miss what is said from now on
				f.log.Debug("sitemap: store subscription broken; subscribing again")
			case <-tick.C:
				if p := f.ledger.takePending(); len(p) > 0 {
					f.announce(p)
				}
			}
		}
		// Wait delay, or less once the store answers other calls (the
		// breaker closed): a replica that shares copies again must hear
		// of changes again.
		for waited := time.Duration(0); waited < delay; waited += breaker.Min {
			t := time.NewTimer(breaker.Min)
			select {
			case <-f.ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			if !sh.br.IsOpen() {
				break
			}
		}
		if broken = f.subscribe(); broken != nil {
			delay = breaker.Min
			sh.breaks.Add(1) // and what was cached during the break
		}
	}
}

// subscribe subscribes to the store's channel, and learns the store's
// generation; it returns nil if the store did not answer.
func (f *fleet) subscribe() <-chan struct{} {
	sh := f.sh
	var broken <-chan struct{}
	err := sh.call(f.ctx, func() (err error) {
		broken, err = sh.st.Subscribe(f.ctx, sh.channel, f.onMessage)
		return err
	})
	if err != nil {
		return nil
	}
	if gen, err := sh.incr(f.ctx); err == nil {
		f.gave(f.ctx, gen)
	}
	f.skew(f.ctx)
	return broken
}

// onMessage tells the inbox what another replica said.
func (f *fleet) onMessage(b []byte) {
	sh := f.sh
	m, err := decodeMessage(b)
	if err != nil {
		if !sh.garbage.Swap(true) {
			f.log.Warn("sitemap: a store message does not decode; ignored (logged once)")
		}
		return
	}
	if m.from == sh.id {
		return
	}
	if m.kind == msgLost {
		f.heardLoss()
		return
	}
	for _, name := range m.names {
		k, ok := f.site.keyOf(name)
		if !ok {
			continue // a document this replica does not have
		}
		switch m.kind {
		case msgChanged:
			f.inbox.changed(k, m.gen)
		case msgBuilt:
			f.inbox.stored(k, m.hash)
		}
	}
}

// ahead logs, once, a clock another replica gave that is more than
// maxSkew ahead of this one's: it was refused.
func (f *fleet) ahead(at, now time.Time) {
	if !f.warned.Swap(true) {
		f.log.Warn("sitemap: a replica's clock is ahead of this one's; its clocks are refused (logged once)", "clock", at, "now", now)
	}
}

// skewTolerance is how far this replica's time may differ from the
// Store's before its clocks follow the Store's.
const skewTolerance = 2 * time.Second

// skew compares this replica's time with the Store's, if it tells it: a
// replica whose time is off by more than skewTolerance gives its clocks
// in the Store's time, and says so.
func (f *fleet) skew(ctx context.Context) {
	before := f.raw()
	st, ok := f.sh.time(ctx)
	if !ok {
		return
	}
	off := st.Sub(before.Add(f.raw().Sub(before) / 2))
	if off > -skewTolerance && off < skewTolerance {
		off = 0
	}
	if prev := f.clocks.setOffset(off); prev != off && off != 0 {
		f.log.Warn("sitemap: this replica's time is off the store's; its clocks follow the store's time", "offset", off)
	}
}
