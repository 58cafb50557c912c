package sitemap

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/freshmap/sitemap/internal/segment"
	"golang.org/x/sync/singleflight"
)

// documents is the serve-or-build machine: the one owner of the cache,
// the one flight per document, the build slots, the waiting count, the
// failures, the clocks and the ledger of changes. A request asks it for a
// document (get); it answers from the cache, or from the tier (the other
// replicas), or loads the document with its kind's builder, then keeps
// the copy and does what the build said must follow (effects). The tier
// tells it what the other replicas said through its inbox methods; those,
// and Invalidate's, are in invalidate.go.
type documents struct {
	site     *site
	cache    *pageCache
	ledger   *ledger
	clocks   *clocks
	failures *failures
	tier     tier
	builders [3]builder // by the key's kind
	// segMarks are the page builder's segment marks (InvalidateKeys):
	// told of what changed, and of copies taken from the Store (adopt).
	segMarks *segment.Marks[docKey]
	rep      *reporter
	now      func() time.Time

	group    singleflight.Group
	catchUps singleflight.Group // one wait per document for a copy to replace one that changed (catchUp)
	slots    *slots             // the build slots (MaxBuilds), a request's loads first
	waiting  atomic.Int64       // requests waiting for a build (MaxWaiting)
	rebuilds *rebuilds          // Invalidate's, at most one waiting per document
	hearing  *hearing           // what the other replicas say, at most once a second per document
	counted  atomic.Int64       // page copies kept with a URL count other than the one cached before (the index's HTML view)

	lifetime // the builds' own context, background goroutines, loads under way: what close ends
}

// get returns the copy of k to serve: a fresh cached one; with a Store,
// for one said or heard to have changed, its replacement, waited for
// (catchUp); a stale one, while a refresh starts in the background; or a
// new build that concurrent callers share. It returns errNotFound for a page that does
// not exist, decided by the index alone: a page number the index does not
// list never reaches the Source. A request waits at most BuildTimeout in
// all, whatever the Source does. now is the request's reading of d.now
// (the crawl log stores the same one).
func (d *documents) get(ctx context.Context, k docKey, now time.Time) (*entry, error) {
	if sl, ok := d.cache.Get(k); ok {
		// Expired, said to have changed, or cached before this replica
		// last lost touch with the others: another replica may have
		// stored a newer copy; if not, serve it (while it is rebuilt, if
		// it is not fresh).
		fresh := d.fresh(k, sl, now)
		if !fresh || d.tier.unsynced(sl) {
			if rec := d.tier.newer(k, sl); rec != nil {
				d.adopt(k, rec)
				if nsl, ok := d.cache.Peek(k); ok && nsl.e == rec && !d.fresh(k, nsl, now) {
					d.refresh(k, nsl, now) // past its TTL: served while it is rebuilt
				}
				return rec, nil
			}
		}
		// Checked after the look, which may have found a new era.
		if !d.tier.clocked(sl.e) {
			sl, fresh = d.unclock(k, sl), false
		}
		if fresh {
			d.rep.hit(k)
			return sl.e, nil
		}
		if d.tier.catchesUp() && !d.ledger.current(k, sl.e.stamp) {
			if e := d.catchUp(ctx, k, sl); e != nil {
				d.rep.miss(k)
				return e, nil
			}
		}
		d.rep.stale(k)
		d.refresh(k, sl, now)
		return sl.e, nil
	}
	d.rep.miss(k)
	deadline := time.Now().Add(d.site.timeout) // read here: a hit needs none
	if k.kind == docPage {
		if listed, err := d.listed(ctx, k, now, deadline, true); err != nil || !listed {
			return nil, cmp.Or(err, errNotFound)
		}
	}
	return d.wait(ctx, k, deadline, nil, true)
}

// fresh reports whether sl, the cached copy of k, may be served as it is:
// younger than TTL (entry.expires), current, not superseded by another
// replica's, not built alone while the replicas can agree again, and
// made in the Store's era.
func (d *documents) fresh(k docKey, sl *slot, now time.Time) bool {
	return now.Before(sl.e.expires(d.site.ttl)) && d.ledger.current(k, sl.e.stamp) && !sl.superseded.Load() &&
		!(sl.e.alone && !d.tier.stats().down) && d.tier.clocked(sl.e)
}

// unclock replaces sl, the cached copy of k, made before the Store lost
// its state, by the same bytes without their Last-Modified (era.go): they
// are served so while they are rebuilt or replaced. It returns the slot
// k has then.
func (d *documents) unclock(k docKey, sl *slot) *slot {
	e := sl.e.withoutClock()
	if n, ok := d.cache.Swap(k, sl.e, func(cur *slot) *slot { return newSlot(e, cur.synced.Load()) }); ok {
		return n
	}
	n := &slot{e: e} // too large to cache, or gone
	n.synced.Store(sl.synced.Load())
	return n
}

// listed reports whether the index lists page k. A fresh index decides;
// so does a stale one that lists k, refreshed in the background: the
// request goes on to build k, as it would serve a cached copy of k,
// stale or not, without asking the index, and a page gone since is a 404
// all the same (its build finds it empty, and not in Pages). Waiting for
// the index there, a page not cached, on a site whose changes outdate the
// index faster than it is built, waited for an index build behind the
// background rebuilds at every request, seconds under load
// (TestListedStaleIndexNoWait). A missing index, or a stale one that does
// not list k (a page new since?), is refreshed first, and the request
// waits for it (one build, shared with every request that needs it); if
// that fails, or failed less than RetryAfter ago, a stale copy decides.
// request says that a request waits (wait).
func (d *documents) listed(ctx context.Context, k docKey, now, deadline time.Time, request bool) (bool, error) {
	var idx *entry
	sl, ok := d.cache.Peek(indexKey)
	if ok {
		idx = sl.e
	}
	fresh := ok && d.fresh(indexKey, sl, now)
	if ok && !fresh && idx.lists(k) {
		d.refresh(indexKey, sl, now)
		return true, nil
	}
	if !fresh {
		e, err := d.wait(ctx, indexKey, deadline, idx, request)
		switch {
		case err == nil:
			idx = e
		case errors.Is(err, errNotFound):
			return false, nil // no page at all
		case idx == nil:
			return false, err
		}
	}
	_, listed := idx.page(k.sec, k.page)
	return listed, nil
}

// wait loads k, as the one load of k (or joining the one running), and
// waits for it until deadline, or until the client leaves; old is the
// copy it replaces, if any. At most MaxWaiting requests wait at once;
// more get errBusy at once. request says that a request waits, not the
// warm-up: the load, started here or joined, then goes first for a build
// slot (slots).
func (d *documents) wait(ctx context.Context, k docKey, deadline time.Time, old *entry, request bool) (*entry, error) {
	if n := d.waiting.Add(1); d.site.maxWaiting > 0 && n > d.site.maxWaiting {
		d.waiting.Add(-1)
		return nil, errBusy
	}
	defer d.waiting.Add(-1)
	if request {
		d.slots.want(k)
		defer d.slots.unwant(k)
	}
	ch := d.group.DoChan(k.String(), func() (any, error) { return d.load(k, old) })
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case res := <-ch:
		if res.Err != nil {
			return nil, res.Err
		}
		return res.Val.(*entry), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-timer.C:
		return nil, errWaitTimeout
	}
}

// catchUp waits, with a Store (tier.catchesUp), for the copy of k that
// replaces sl, a copy said or heard to have changed since it was made
// (without one, it is served stale while it is rebuilt, as before): being
// built here (Invalidate's
// rebuild, or a request's load) or by another replica (the tier's lock
// wait), in one flight that every request for k joins. It returns nil,
// and the caller serves sl's copy as stale, once the wait for sl's
// replacement is over: each request waits at most BuildTimeout, and all
// of them together at most BuildTimeout from the first one's arrival (or
// from the start of Invalidate's rebuild), never BuildTimeout each one
// after the other (TestFleetStaleLooksBounded); within RetryAfter of a
// failure there is no flight to wait for; beyond MaxWaiting, no wait. So
// a replica that heard of a change serves the new copy as soon as it is
// built, not the old one as if current (TestFleetHeardChangeDuringRebuild
// in adapters/redisstore).
func (d *documents) catchUp(ctx context.Context, k docKey, sl *slot) *entry {
	if d.failures.recent(k, d.now()) {
		return nil
	}
	now := time.Now()
	sl.catchUp.CompareAndSwap(0, now.Add(d.site.timeout).UnixNano())
	left := time.Unix(0, sl.catchUp.Load()).Sub(now)
	if left <= 0 {
		return nil
	}
	if n := d.waiting.Add(1); d.site.maxWaiting > 0 && n > d.site.maxWaiting {
		d.waiting.Add(-1)
		return nil
	}
	defer d.waiting.Add(-1)
	d.slots.want(k) // a request waits for it: first for a build slot
	defer d.slots.unwant(k)
	// The one flight of k, a rebuild's, a refresh's or a request's, joined
	// through a flight of catchUps that outdate does not forget: however
	// many changes are said meanwhile, a document has one catch-up at a
	// time, whose requests cost no more than one load.
	ch := d.catchUps.DoChan(k.String(), func() (any, error) {
		v, err, _ := d.group.Do(k.String(), func() (any, error) { return d.load(k, sl.e) })
		return v, err
	})
	timer := time.NewTimer(left)
	defer timer.Stop()
	select {
	case res := <-ch:
		if res.Err == nil {
			return res.Val.(*entry)
		}
	case <-ctx.Done():
	case <-timer.C:
	}
	return nil
}

// refresh starts one background load of k to replace sl, its stale copy,
// unless one is running, a recent one failed, or documents are closed.
func (d *documents) refresh(k docKey, sl *slot, now time.Time) {
	if d.failures.recent(k, now) || !sl.refreshing.CompareAndSwap(false, true) {
		return
	}
	if !d.background(func() {
		defer sl.refreshing.Store(false)
		d.group.Do(k.String(), func() (any, error) { return d.load(k, sl.e) })
	}) {
		sl.refreshing.Store(false)
	}
}

// close stops the loads, background or for a request, and waits for them
// to end, but at most bound, BuildTimeout or what Close has left of it
// (lifetime.close): a load whose Source
// ignores its context is left to end on its own, keeping nothing, and is
// named in the log (TestCloseBounded).
func (d *documents) close(bound time.Duration) {
	if left := d.lifetime.close(bound); len(left) > 0 {
		d.rep.abandoned(left)
	}
}

// load makes the document k and keeps it; old is the copy it replaces,
// if any. It runs at most once at a time per key (singleflight), on its
// own context with a timeout, never a request's. Only a complete build is
// kept: a failure, a panic (or runtime.Goexit) or a timeout keeps nothing,
// is reported once (with the stack, for a panic), and keeps k from being
// built again for RetryAfter; a load ended by Close is no failure. A
// Source that ignores its context keeps its slot until it returns, which
// is logged.
//
// The steps, in this order:
//
//  1. A copy kept since the caller looked wins (TestOrderKeptCopyWins,
//     TestColdPageSingleBuild).
//  2. Within RetryAfter of a failure, only the tier's copy; else
//     errBackoff (TestFailingPageBackoff, TestFleetBackoffLooksInStore).
//  3. The tier: its current copy; or its lock, held until the copy is
//     stored; or a wait for another replica's build
//     (TestFleetColdBurstOneRead, TestFleetUnitLockWait).
//  4. The index that revalidation needs, before a build slot is taken, as
//     it may itself say that this page changed (TestOrderIndexBeforeSlot).
//  5. A build slot (MaxBuilds), waited for under the build's own context
//     (TestMaxBuilds); a slot freed goes first to a load that a request
//     waits for, then to the background loads in the order they came
//     (slots, TestSlotsRequestFirst).
//  6. The look at a page that is not current (pagelook.go), then the
//     stamp, what the ledger knows, taken right before the Source is
//     read: a change said after it is after the data read
//     (TestOrderStampBeforeRead). The look comes first: one that waits
//     (a database busy applying a batch of changes) would otherwise
//     outdate the build with the change its wait let through, and every
//     build of a page under a stream of changes was outdated, served
//     without Last-Modified (TestWatchCoalesce under -race).
//  7. The builder; then, unless a newer change was said
//     (TestOrderNeverKeepOverNewerChange), share: the clock, then the
//     copy, then the message (TestOrderClockCopyMessage), and only then
//     keep here (TestFleetInvalidate); then the effects.
func (d *documents) load(k docKey, old *entry) (e *entry, err error) {
	// 1.
	if sl, ok := d.cache.Peek(k); ok && sl.e != old && d.fresh(k, sl, d.now()) {
		return sl.e, nil
	}
	if !d.loads.Start(k) {
		return nil, errClosed // no Source is read after Close (TestCloseCancelledNotAnError)
	}
	defer d.loads.Done(k)
	ctx, cancel := context.WithTimeout(d.ctx, d.site.timeout)
	defer cancel()
	// 2.
	if d.failures.recent(k, d.now()) {
		if rec, _, _ := d.tier.look(ctx, k, old); rec != nil {
			d.failures.forget(k)
			return d.adopt(k, rec), nil
		}
		return nil, d.failures.backoff(k)
	}
	defer func() {
		if p := recover(); p != nil {
			e, err = nil, &panicError{value: p, stack: debug.Stack()}
		}
		switch {
		case err == nil:
			d.failures.forget(k)
		case errors.Is(err, errNotFound):
			if old != nil {
				d.cache.Remove(k) // the page is gone: 404 from now on
			}
		case d.ctx.Err() != nil && !errors.As(err, new(*panicError)):
			// Close ended it: no failure (TestCloseCancelledNotAnError).
		default:
			name := d.site.fileName(k)
			fe := &failureError{ref: newFailureRef(), file: name, at: d.now(), err: fmt.Errorf("building %s: %w", name, err)}
			d.failures.failed(k, d.now().Add(d.site.retryAfter), fe)
			d.rep.failed(k, old != nil, fe)
			err = fe
		}
	}()
	// 3.
	cl, err := d.tier.acquire(ctx, k, old)
	if err != nil {
		return nil, fmt.Errorf("waiting for another replica: %w", err)
	}
	if cl.got != nil {
		return d.adopt(k, cl.got), nil
	}
	old = cl.stale
	defer cl.unlock()
	// 4.
	if k.kind == docPage && old != nil && old.info.Version != "" && d.ledger.current(k, old.stamp) {
		d.freshIndex(k)
	}
	// 5.
	if err := d.slots.acquire(ctx, k, false); err != nil {
		return nil, fmt.Errorf("waiting for a build slot: %w", err)
	}
	start := time.Now()
	defer func() {
		d.slots.release()
		if held := time.Since(start); held > d.site.timeout+time.Second {
			d.rep.slotHeld(k, held)
		}
	}()
	// 6.
	look := d.look(ctx, k, old)
	st := d.ledger.now()
	// 7.
	j := d.job(k, old)
	j.alone, j.look = cl.alone, look
	var was []uint64 // the hashes of k's files as last built, for the purge
	if d.rep.purger != nil {
		was = d.builtHashes(k, cmp.Or(j.prev, old))
		defer func() {
			if err == nil || errors.Is(err, errNotFound) {
				d.rep.purge(k, was, e) // after the copy is shared and kept, or gone
			}
		}()
	}
	e, fx, err := guarded(ctx, d.builders[k.kind], j)
	if err == nil && d.ctx.Err() != nil {
		err = errClosed // ended after Close: keep, share and tell nothing (TestCloseLateBuild)
	}
	if err != nil {
		return nil, err
	}
	e.stamp, e.gen, e.era = stamp{epoch: st.epoch, gen: builtHere}, cl.gen, cl.era
	d.clocks.sync() // the clocks it gave last, before anyone is given them
	if fx.moved {
		// The index lists this page's clock: out of date here now; the
		// other replicas are told once the clock is stored, below.
		d.outdateHere(indexKey)
	}
	if len(fx.outdate) > 0 {
		// A Version that moved says nothing of which segments changed:
		// the next build of those pages reads them whole.
		d.segMarks.Unknown(fx.outdate...)
		d.outdate(fx.outdate...)
	}
	if d.ledger.current(k, e.stamp) {
		// Shared before it is kept here: once this replica serves the
		// copy, the others find it in the tier.
		if !cl.alone && !d.tier.share(ctx, k, e) && !e.lastMod.IsZero() {
			// The others do not know its clock: not served under it.
			d.clocks.withdraw(k, e.hash)
			e = e.withoutClock()
		}
		d.keep(k, e)
	} else {
		// Outdated while it was built: not shared, and given to the
		// requests that waited for it without a clock the others could
		// not know of (they would give other bytes the same one).
		if !e.lastMod.IsZero() {
			d.clocks.withdraw(k, e.hash)
			e = e.withoutClock()
		}
		d.keepOutdated(k, e)
	}
	if fx.audit != nil {
		// Audited once kept: a URL the audit leaves out then has the copy
		// that lists it rebuilt, which reports it removed
		// (TestAuditLeaveOutChange).
		d.rep.pageBuilt(k, fx.audit)
	}
	if fx.moved {
		d.tier.announce([]docKey{indexKey})
	}
	d.rep.changed(fx.change)
	for _, r := range fx.refresh {
		if sl, ok := d.cache.Peek(r); ok {
			d.refresh(r, sl, d.now())
		}
	}
	return e, nil
}

// job gathers what the builder of k reads besides its Source.
func (d *documents) job(k docKey, old *entry) job {
	j := job{key: k, old: old}
	if old != nil {
		j.current = d.ledger.current(k, old.stamp)
	}
	switch k.kind {
	case docPage:
		if sl, ok := d.cache.Peek(indexKey); ok {
			j.index = sl.e
		}
		j.prev = old
		if j.prev == nil {
			if sl, ok := d.cache.Peek(k); ok { // a copy an Invalidate or the index outdated
				j.prev = sl.e
			}
		}
	case docIndex:
		j.cached = func(p docKey) bool { _, ok := d.cache.Peek(p); return ok }
		j.storedClocks = d.tier.storedClocks
	}
	return j
}

// look looks at page k before its rebuild reads it, if old, the copy it
// replaces, is not current (clock.go, rule 5; pagelook.go). A look that
// fails leaves the build to the other rules.
func (d *documents) look(ctx context.Context, k docKey, old *entry) pageLook {
	if k.kind != docPage || old == nil || d.ledger.current(k, old.stamp) {
		return pageLook{}
	}
	src := d.site.sections[k.sec].src
	if _, isLatest := src.(latest); isLatest {
		return pageLook{}
	}
	lk, err := lookBefore(ctx, src, k.page)
	if err != nil {
		d.rep.log.Debug("sitemap: looking at a page before its rebuild", "page", d.site.fileName(k), "err", err)
	}
	return lk
}

// freshIndex makes sure the cached index is fresh, loading it (shared
// with any concurrent load of it) if not, for the load of page k: if a
// request waits for k, it waits for the index too. A failure is left to
// the page build, which then reads the page.
func (d *documents) freshIndex(k docKey) {
	if sl, ok := d.cache.Peek(indexKey); ok && d.fresh(indexKey, sl, d.now()) {
		return
	}
	if d.failures.recent(indexKey, d.now()) {
		return
	}
	if d.slots.waitedFor(k) {
		d.slots.want(indexKey)
		defer d.slots.unwant(indexKey)
	}
	d.group.Do(indexKey.String(), func() (any, error) { return d.load(indexKey, nil) })
}

// keep caches e, the new copy of k, unless k was said to have changed
// after e was stamped.
func (d *documents) keep(k docKey, e *entry) {
	if !d.ledger.current(k, e.stamp) {
		return
	}
	var recount bool // the index's HTML view shows another URL count
	if k.kind == docPage && e.urls > 0 {
		sl, ok := d.cache.Peek(k)
		recount = !ok || sl.e.urls != e.urls
	}
	d.cache.Add(k, newSlot(e, d.tier.breaks()))
	if recount {
		d.counted.Add(1)
	}
}

// keepOutdated keeps e, a copy of k outdated while it was built, in
// place of an older copy that is not current either: served (without a
// clock) while the next build runs, and that build's base, whose segment
// marks are relative to it. Dropped, a page told again during every build
// (a change stream faster than the build) kept serving the copy from
// before the first change, and each build read it whole, its marks' base
// never kept (TestOutdatedBuildKept). A current copy, or a later one, is
// left in place, and none is added where none was cached.
func (d *documents) keepOutdated(k docKey, e *entry) {
	sl, ok := d.cache.Peek(k)
	if !ok || d.ledger.current(k, sl.e.stamp) || sl.e.built.After(e.built) {
		return // nothing cached: the next request waits for a build (TestOrderStampBeforeRead)
	}
	d.cache.Add(k, newSlot(e, d.tier.breaks()))
}

// adopt keeps rec, a current copy of k that the tier gave, and returns it.
// A page's copy becomes the base of its segment marks, as if built here,
// so that a change said here by InvalidateKeys splices it (its table came
// with it, record.go) instead of reading it whole.
func (d *documents) adopt(k docKey, rec *entry) *entry {
	d.keep(k, rec)
	if k.kind == docPage {
		// Not while a change heard waits for its turn (invalidate.go,
		// changed): the copy may be from before it.
		d.segMarks.Adopted(k, rec.hash, func() bool { return !d.hearing.waiting(k) && d.ledger.current(k, rec.stamp) })
	}
	return rec
}

// outdate says that keys changed: copies made before now are not
// current, a load running now is not shared with requests that come
// after, and the other replicas are told.
func (d *documents) outdate(keys ...docKey) {
	d.outdateHere(keys...)
	d.tier.announce(keys)
}

// outdateHere says that keys changed, in this replica only.
func (d *documents) outdateHere(keys ...docKey) {
	d.ledger.said(keys...)
	for _, k := range keys {
		d.group.Forget(k.String())
	}
}

// text returns the plain-text form of e, the copy of page k, made once
// and counted in the cache's budget.
func (d *documents) text(k docKey, e *entry) (*entry, error) {
	t, err := textOf(e, d.site.gzipLevel, func(t *entry) { d.cache.Attach(k, e, int64(len(t.gz)), func() { e.text.Store(t) }) })
	if err != nil {
		return nil, fmt.Errorf("the text form of %s: %w", d.site.fileName(k), err)
	}
	return t, nil
}

// plainCopy returns the plain copy of e, a form of owner, the copy of k
// (owner itself, or a part of its HTML view), for a plain request (full:
// a GET of the whole document): made once e is hot, and kept only while
// owner is cached with e among its forms, counted with owner
// (plainCopyOf). Nil means the response decompresses as it goes.
func (d *documents) plainCopy(k docKey, owner, e *entry, full bool) *plainCopy {
	return plainCopyOf(e, full, func() bool { return d.cache.MayCopy(k, owner, e.size) },
		func(p *plainCopy) {
			d.cache.AttachCopy(k, owner, int64(len(p.xml)), func() bool {
				if !owner.holds(e) {
					return false
				}
				e.plain.Store(p)
				return true
			})
		})
}

// peekOrGet returns the cached copy of k, fresh or not, without counting
// a request; with none cached, it gets one as get does.
func (d *documents) peekOrGet(ctx context.Context, k docKey) (*entry, error) {
	if sl, ok := d.cache.Peek(k); ok {
		return sl.e, nil
	}
	return d.get(ctx, k, d.now())
}
