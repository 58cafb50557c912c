package sitemap

import (
	"context"
	"errors"
	"time"
)

// The fleet: the replicas of a site that share a Store (store.go,
// shared.go). A document is built by one replica at a time, whichever
// takes its lock in the store; the copy it stores serves every replica,
// with the clock it was built under. What changed is told to every
// replica through the store's channel: a change raises the store's
// generation, and a stored copy whose build started at an earlier
// generation than the document's last change is not current. Whatever
// the store does, a replica goes on alone: a failed or refused call
// (breaker.go) means build here, as without a Store.

// lookEvery is how often a stale copy may be looked up in the store while
// no message says that a newer one is there: a page whose rebuild takes a
// while costs the store at most one read of its copy a second, however
// many requests it gets.
const lookEvery = time.Second

// fleetWaitMax is the longest pause between two looks at the store while
// another replica builds a document.
const fleetWaitMax = 100 * time.Millisecond

// storeName is the key of document k in the store. An index depends on
// every section, so replicas whose sections differ (a rolling deploy that
// adds one) keep their indexes apart.
func (s *Sitemap) storeName(k pageKey) string {
	if k == indexKey {
		return indexFile + "@" + s.layout
	}
	return s.describe(k)
}

// fromFleet is the first step of a build of k with a Store. It returns
// the stored copy if that is current and fresh, waiting while another
// replica builds it; or the lock to build k here, with the stored copy as
// the stale one to replace if it is newer than old. unlock is never nil.
// With the store off, it returns a no-op unlock: build here.
//
// While another replica holds the lock, only the lock is tried again
// (a small call), with growing pauses: the copy is read once the lock is
// free, so a wait costs no more than one read of it.
func (s *Sitemap) fromFleet(ctx context.Context, k pageKey, old *entry) (got, stale *entry, unlock func(), err error) {
	sh, name := s.shared, s.storeName(k)
	noop := func() {}
	rec, old, ok := s.look(ctx, k, old)
	if rec != nil || !ok {
		return rec, old, noop, nil
	}
	for delay, waited := time.Millisecond, false; ; delay = min(2*delay, fleetWaitMax) {
		unlock, err := sh.lock(ctx, name)
		switch {
		case err == nil:
			// The lock is free: its last holder may have stored the copy.
			var rec *entry
			if rec, old, _ = s.look(ctx, k, old); rec != nil {
				unlock()
				return rec, nil, noop, nil
			}
			return nil, old, unlock, nil
		case !errors.Is(err, ErrLocked):
			return nil, old, noop, nil
		}
		if !waited {
			waited = true
			sh.waits.Add(1)
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, nil, noop, ctx.Err()
		case <-t.C:
		}
	}
}

// look reads the stored copy of k, and merges the clocks it carries into
// this replica's. It returns the copy, adopted, if it is current and
// fresh; otherwise the stale copy to replace: the stored one if it is
// newer than old, else old. ok is false if the store did not answer.
func (s *Sitemap) look(ctx context.Context, k pageKey, old *entry) (got, stale *entry, ok bool) {
	epoch := s.epoch.Load()
	rec, clocks, err := s.shared.get(ctx, k, s.storeName(k))
	if err != nil {
		return nil, old, false
	}
	for _, kc := range clocks {
		s.clocks.seed(kc.k, kc.c)
	}
	switch {
	case rec == nil:
		return nil, old, true
	case s.storeFresh(k, rec, old):
		return s.adopt(k, rec, epoch), nil, true
	case old == nil || rec.built.After(old.built):
		return nil, rec, true
	}
	return nil, old, true
}

// storeFresh reports whether rec, a stored copy of k, may be served as it
// is: built less than TTL ago, after the last change said of k, and not
// older than local, this replica's copy (if any).
func (s *Sitemap) storeFresh(k pageKey, rec, local *entry) bool {
	return s.now().Before(rec.built.Add(s.ttl)) && s.shared.current(k, rec.gen) &&
		(local == nil || !rec.built.Before(local.built) || rec.hash == local.hash)
}

// adopt caches rec, a current stored copy of k, read when the epoch was
// epoch.
func (s *Sitemap) adopt(k pageKey, rec *entry, epoch uint64) *entry {
	rec.epoch = epoch
	rec.synced.Store(s.shared.breaks.Load())
	s.keep(k, rec)
	s.shared.hits.Add(1)
	return rec
}

// share stores e, the copy of k just built here, with its clocks, and
// tells the other replicas.
func (s *Sitemap) share(ctx context.Context, k pageKey, e *entry) {
	name := s.storeName(k)
	if k.sec >= 0 { // a page: its clock, for the index, whoever builds it
		s.shared.setClock(ctx, name, s.clocks.state(k))
	}
	if s.shared.set(ctx, k, name, e, s.clocks.state) == nil {
		s.shared.publish(ctx, &message{kind: msgBuilt, hash: e.hash, names: []string{s.describe(k)}})
	}
}

// fromStore looks in the store for a newer copy of k than e, the copy
// this replica holds, before e is served: one another replica has just
// built. It is called for a stale or outdated copy, and once for a fresh
// one made before the subscription last broke. Requests for k share one
// look.
func (s *Sitemap) fromStore(k pageKey, e *entry) *entry {
	if !s.shared.unsynced(e) && time.Now().UnixNano()-e.looked.Load() < int64(lookEvery) {
		return nil // looked just now; a message that a new copy is stored resets this (follow.go)
	}
	v, _, _ := s.group.Do("store:"+k.String(), func() (any, error) {
		defer e.synced.Store(s.shared.breaks.Load())
		rec, _, _ := s.look(s.ctx, k, e)
		if rec == nil {
			e.looked.Store(time.Now().UnixNano())
		}
		return rec, nil
	})
	return v.(*entry)
}

// tellChanged tells every replica that keys changed. Until the store
// knows, no stored copy of them is current here; if it cannot be told
// now, it is told when it answers again (follow).
func (s *Sitemap) tellChanged(keys []pageKey) {
	sh := s.shared
	sh.hold(keys)
	gen, err := sh.incr(s.ctx)
	if err != nil {
		sh.addPending(keys)
		return
	}
	sh.seen(gen)
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = s.describe(k)
	}
	if sh.publish(s.ctx, &message{kind: msgChanged, gen: gen, names: names}) != nil {
		sh.addPending(keys)
		return
	}
	sh.release(keys, gen)
}

// clocksFromStore merges into this replica's clocks those that the
// builds of pages (by any replica) stored, for every page of pages, so
// that the index lists the clock of the bytes each page serves.
func (s *Sitemap) clocksFromStore(ctx context.Context, pages [][]PageInfo) {
	var keys []pageKey
	var names []string
	flush := func() bool {
		cs, err := s.shared.getClocks(ctx, names)
		for i, c := range cs {
			s.clocks.seed(keys[i], c)
		}
		keys, names = keys[:0], names[:0]
		return err == nil
	}
	for sec, ps := range pages {
		for _, p := range ps {
			k := pageKey{sec: sec, page: p.Number}
			keys, names = append(keys, k), append(names, s.storeName(k))
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
