package sitemap

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strconv"
	"time"
)

var (
	// errNotFound means the document does not exist (404).
	errNotFound = errors.New("sitemap: no such page")
	// errPanic wraps a panic of a Source.
	errPanic = errors.New("sitemap: source panicked")
	// errBackoff means the document's last build failed less than
	// RetryAfter ago, and there is no copy to serve (503).
	errBackoff = errors.New("sitemap: the last build failed; not retried yet")
	// errBusy means Config.MaxWaiting requests already wait for builds (503).
	errBusy = errors.New("sitemap: too many requests waiting for builds")
	// errWaitTimeout means a build took longer than BuildTimeout (503).
	errWaitTimeout = errors.New("sitemap: build timeout")
)

// panicError is a panic of a Source, with the stack where it happened.
type panicError struct {
	value any
	stack []byte
}

func (p *panicError) Error() string { return fmt.Sprintf("%v: %v", errPanic, p.value) }
func (p *panicError) Unwrap() error { return errPanic }

// document returns the entry to serve for k (sec is nil for the index):
// a fresh cached one; a stale one, while a refresh starts in the
// background; or a new build that concurrent callers share. It returns
// errNotFound for a page that does not exist, decided by the index alone:
// a page number the index does not list never reaches the Source. A
// request waits at most BuildTimeout in all, whatever the Source does.
func (s *Sitemap) document(ctx context.Context, k pageKey, sec *section) (*entry, error) {
	now := s.now()
	deadline := time.Now().Add(s.timeout)
	c := s.perSection.of(k)
	if e, ok := s.cache.get(k); ok {
		if s.fresh(k, e, now) {
			if s.shared != nil && s.shared.unsynced(e) {
				if rec := s.fromStore(k, e); rec != nil {
					return rec, nil
				}
			}
			s.stats.hits.Add(1)
			c.hits.Add(1)
			return e, nil
		}
		// Expired, or said to have changed: another replica may have
		// stored a newer copy; if not, serve it while it is rebuilt.
		if s.shared != nil {
			if rec := s.fromStore(k, e); rec != nil {
				return rec, nil
			}
		}
		s.stats.stale.Add(1)
		c.stale.Add(1)
		s.refresh(k, sec, e, now)
		return e, nil
	}
	s.stats.misses.Add(1)
	c.misses.Add(1)
	if sec != nil {
		if listed, err := s.listed(ctx, sec, k.page, now, deadline); err != nil || !listed {
			return nil, cmp.Or(err, errNotFound)
		}
	}
	return s.wait(ctx, k, deadline, func() (any, error) { return s.build(k, sec, nil) })
}

// fresh reports whether e, the cached copy of k, may be served as it is.
func (s *Sitemap) fresh(k pageKey, e *entry, now time.Time) bool {
	return now.Before(e.built.Add(s.ttl)) && !s.outdated(k, e)
}

// listed reports whether the index lists page n of sec. A stale or missing
// index is refreshed first, and the request waits for it (one build,
// shared with every request that needs it); if that fails, or failed less
// than RetryAfter ago, a stale copy decides.
func (s *Sitemap) listed(ctx context.Context, sec *section, n int64, now, deadline time.Time) (bool, error) {
	idx, ok := s.cache.peek(indexKey)
	if !ok || !s.fresh(indexKey, idx, now) {
		fresh, err := s.wait(ctx, indexKey, deadline, func() (any, error) { return s.build(indexKey, nil, idx) })
		if err == nil {
			idx, ok = fresh, true
		}
		switch {
		case errors.Is(err, errNotFound):
			return false, nil // no page at all
		case err != nil && !ok:
			return false, err
		}
	}
	_, listed := idx.page(sec.index, n)
	return listed, nil
}

// wait runs build as the one build of k (or joins the one running) and
// waits for it until deadline, or until the client leaves. At most
// MaxWaiting requests wait at once; more get errBusy at once.
func (s *Sitemap) wait(ctx context.Context, k pageKey, deadline time.Time, build func() (any, error)) (*entry, error) {
	if n := s.waiting.Add(1); s.maxWaiting > 0 && n > s.maxWaiting {
		s.waiting.Add(-1)
		return nil, errBusy
	}
	defer s.waiting.Add(-1)
	ch := s.group.DoChan(k.String(), build)
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

// refresh starts one background rebuild of the stale entry old, unless one
// is running, a recent one failed, or the Sitemap is closed.
func (s *Sitemap) refresh(k pageKey, sec *section, old *entry, now time.Time) {
	if s.failures.recent(k, now) || !old.refreshing.CompareAndSwap(false, true) {
		return
	}
	if !s.background(func() {
		defer old.refreshing.Store(false)
		s.group.Do(k.String(), func() (any, error) { return s.build(k, sec, old) })
	}) {
		old.refreshing.Store(false)
	}
}

// background runs f on a goroutine that Close waits for, unless the
// Sitemap is closed; it reports whether f was started.
func (s *Sitemap) background(f func()) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.wg.Go(f)
	return true
}

// build makes the document k and caches it; old is the copy it replaces,
// if any. It runs at most once at a time per key (singleflight), on its
// own context with a timeout, holding one of the MaxBuilds slots while it
// reads the Source. Only a complete build is cached; a failure, a panic
// or a timeout caches nothing, is logged once (with the stack, for a
// panic), and keeps k from being rebuilt for RetryAfter. A Source that
// ignores its context keeps its slot until it returns, which is logged.
func (s *Sitemap) build(k pageKey, sec *section, old *entry) (e *entry, err error) {
	// A build that ended just before this one began may have made k, or
	// failed: the caller checked before it ended.
	if cur, ok := s.cache.peek(k); ok && cur != old && s.fresh(k, cur, s.now()) {
		return cur, nil
	}
	ctx, cancel := context.WithTimeout(s.ctx, s.timeout)
	defer cancel()
	if s.failures.recent(k, s.now()) {
		// Not built here again for RetryAfter; another replica may have
		// built it since.
		if s.shared != nil {
			if rec, _, _ := s.look(ctx, k, old); rec != nil {
				s.failures.forget(k)
				return rec, nil
			}
		}
		return nil, errBackoff
	}
	defer func() {
		if p := recover(); p != nil {
			e, err = nil, &panicError{value: p, stack: debug.Stack()}
		}
		switch {
		case err == nil:
			s.failures.forget(k)
		case errors.Is(err, errNotFound):
			if old != nil {
				s.cache.remove(k) // the page is gone: 404 from now on
			}
		default:
			s.failed(k, old, err)
		}
	}()
	if s.shared != nil {
		// The fleet's copy, if current; or the fleet lock, held until
		// the new copy is stored; or a wait for another replica's build.
		var got *entry
		var unlock func()
		if got, old, unlock, err = s.fromFleet(ctx, k, old); got != nil || err != nil {
			if err != nil {
				err = fmt.Errorf("sitemap: waiting for another replica to build %s: %w", s.describe(k), err)
			}
			return got, err
		}
		defer unlock()
	}
	if sec != nil && old != nil && old.info.Version != "" && !s.outdated(k, old) {
		// Revalidation compares the page's Version with a fresh index:
		// get one first, before holding a build slot.
		s.freshIndex()
	}
	select {
	case s.sem <- struct{}{}:
		start := time.Now()
		defer func() {
			<-s.sem
			if held := time.Since(start); held > s.timeout+time.Second {
				s.log.Warn("sitemap: the source ignored the build timeout; its build slot was held until it returned",
					"page", s.describe(k), "held", held, "timeout", s.timeout)
			}
		}()
	case <-ctx.Done():
		return nil, fmt.Errorf("sitemap: waiting for a build slot for %s: %w", s.describe(k), ctx.Err())
	}
	// The epoch is taken here, after the index that revalidation needs
	// (which may itself say that this page changed) and right before the
	// Source is read.
	epoch := s.epoch.Load()
	var gen int64
	if s.shared != nil {
		gen = s.shared.gen.Load()
	}
	switch {
	case k.sec < indexSection: // a feed (feed.go), built with a nil sec
		e, err = s.buildFeed(ctx, k)
	case sec == nil:
		e, err = s.buildIndex(ctx)
	default:
		e, err = s.buildPage(ctx, sec, k.page, old)
	}
	if err != nil {
		return nil, err
	}
	e.epoch, e.gen = epoch, gen
	if s.shared != nil {
		e.synced.Store(s.shared.breaks.Load())
	}
	s.keep(k, e)
	if s.shared != nil {
		if !s.outdated(k, e) {
			s.share(ctx, k, e)
		}
		if e.moved {
			s.tellChanged([]pageKey{indexKey})
		}
	}
	return e, nil
}

// failed remembers, logs and counts a failed build of k. Builds that
// Close cancels are not logged.
func (s *Sitemap) failed(k pageKey, old *entry, err error) {
	s.failures.failed(k, s.now().Add(s.retryAfter))
	defer s.stats.buildErrors.Add(1) // last: a test that sees it sees the log
	s.perSection.of(k).buildErrors.Add(1)
	if s.ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return
	}
	args := []any{"page", s.describe(k), "err", err, "retry_after", s.retryAfter}
	if p, ok := err.(*panicError); ok {
		args = append(args, "stack", string(p.stack))
	}
	if old != nil {
		s.log.Error("sitemap: build failed; serving the last good copy", args...)
	} else {
		s.log.Error("sitemap: build failed", args...)
	}
}

// freshIndex makes sure the cached index is fresh, building it (shared
// with any concurrent build of it) if not. A failure is left to the page
// build, which then reads the page.
func (s *Sitemap) freshIndex() {
	if idx, ok := s.cache.peek(indexKey); ok && s.fresh(indexKey, idx, s.now()) {
		return
	}
	if s.failures.recent(indexKey, s.now()) {
		return
	}
	s.group.Do(indexKey.String(), func() (any, error) { return s.build(indexKey, nil, nil) })
}

// buildPage builds page n of sec. If old is the stale copy and a newer
// index shows the page's Version unchanged, old is renewed without reading
// the page. A page that has no URL is errNotFound.
func (s *Sitemap) buildPage(ctx context.Context, sec *section, n int64, old *entry) (*entry, error) {
	now := s.now()
	k := pageKey{sec.index, n}
	var info PageInfo
	if idx, ok := s.cache.peek(indexKey); ok {
		var listed bool
		info, listed = idx.page(sec.index, n)
		if old != nil && !s.outdated(k, old) && listed && info.Version != "" && idx.built.After(old.built) &&
			info.Version == old.info.Version && info.LastMod.Equal(old.info.LastMod) {
			e := old.renewed(now)
			s.stats.revalidated.Add(1)
			return e, nil
		}
	}
	spec := sec.spec
	spec.report = func(loc string, err error) { s.reject(sec, k, loc, err) }
	var tr *tracker
	var prevGz []byte
	if s.tracking() {
		var prev []urlSum
		if old == nil {
			old, _ = s.cache.peek(k) // a copy an Invalidate or the index outdated
		}
		if old != nil {
			prev, prevGz = old.sums, old.gz
		}
		tr = newTracker(prev, s.clocks.served(k), len(prev))
		spec.visit = tr.visit
	}
	spec.now = now
	start := time.Now()
	var st pageStats
	gz, sum, err := compress(s.gzipLevel, func(w io.Writer) (err error) {
		st, err = encodePage(ctx, sec.src, n, w, &spec)
		return err
	})
	dur := time.Since(start)
	s.timed(k, dur)
	if errors.Is(err, errEmptyPage) {
		return nil, errNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("sitemap: building %s: %w", s.describe(k), err)
	}
	s.built(k)
	at, moved := s.clocks.built(k, sum, st.newest, now)
	e := newEntry(gz, sum, s.gzipLevel, at, now)
	if moved {
		// The index lists the page's clock. Other replicas are told once
		// the clock is stored (build), so that theirs can list it.
		s.outdateHere(indexKey)
		e.moved = true
	}
	e.info = info
	if tr != nil {
		e.sums = tr.sums
		s.emitChanges(sec, n, tr, prevGz)
	}
	s.log.Debug("sitemap: built page", "section", sec.name, "page", n, "urls", st.urls,
		"rejected", st.rejected, "bytes", st.bytes, "gzip_bytes", len(gz), "duration", dur, "clock", at)
	return e, nil
}

// reject reports a URL of sec that was not written in the document k (a
// page, or the section's feed as page 0).
func (s *Sitemap) reject(sec *section, k pageKey, loc string, err error) {
	s.stats.rejected.Add(1)
	s.perSection.of(k).reject(err)
	s.log.Warn("sitemap: URL skipped", "section", sec.name, "page", k.page, "loc", quote(loc), "err", err)
	if s.onReject != nil {
		s.onReject(sec.name, k.page, loc, err)
	}
}

// describe names a document in logs.
func (s *Sitemap) describe(k pageKey) string {
	if k.sec == indexSection {
		return "sitemap_index.xml"
	}
	if k.sec < indexSection {
		return s.sections[feedSection(k.sec)].feed.name
	}
	return s.sections[k.sec].filePfx + strconv.FormatInt(k.page, 10) + ".xml.gz"
}
