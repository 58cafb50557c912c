package sitemap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"
)

// errNotFound means the document does not exist (404).
var errNotFound = errors.New("sitemap: no such page")

// errPanic wraps a panic of a Source.
var errPanic = errors.New("sitemap: source panicked")

// document returns the entry to serve for k (sec is nil for the index):
// a fresh cached one; a stale one, while a refresh starts in the
// background; or a new build that concurrent callers share. It returns
// errNotFound for a page that does not exist.
func (s *Sitemap) document(ctx context.Context, k pageKey, sec *section) (*entry, error) {
	now := s.now()
	if e, ok := s.cache.get(k); ok {
		if now.Before(e.built.Add(s.ttl)) {
			s.stats.hits.Add(1)
			return e, nil
		}
		s.stats.stale.Add(1)
		s.refresh(k, sec, e, now)
		return e, nil
	}
	s.stats.misses.Add(1)
	if sec != nil {
		// A fresh index that does not list the page answers without a build.
		if idx, ok := s.cache.peek(indexKey); ok && now.Before(idx.built.Add(s.ttl)) {
			if _, ok := idx.page(sec.index, k.page); !ok {
				return nil, errNotFound
			}
		}
	}
	ch := s.group.DoChan(k.String(), func() (any, error) { return s.build(k, sec, nil) })
	select {
	case res := <-ch:
		if res.Err != nil {
			return nil, res.Err
		}
		return res.Val.(*entry), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// refresh starts one background rebuild of the stale entry old, unless one
// is running, a recent one failed, or the Sitemap is closed.
func (s *Sitemap) refresh(k pageKey, sec *section, old *entry, now time.Time) {
	if now.UnixNano() < old.retryAt.Load() || !old.refreshing.CompareAndSwap(false, true) {
		return
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		old.refreshing.Store(false)
		return
	}
	s.wg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		defer old.refreshing.Store(false)
		_, err, _ := s.group.Do(k.String(), func() (any, error) { return s.build(k, sec, old) })
		switch {
		case errors.Is(err, errNotFound):
			s.cache.remove(k) // the page is gone: 404 from now on
		case err != nil:
			old.retryAt.Store(s.now().Add(s.retryAfter).UnixNano())
			s.log.Error("sitemap: refresh failed; serving the last good copy", "page", s.describe(k), "err", err)
		}
	}()
}

// build makes the document k and caches it. It runs at most once at a time
// per key (singleflight), on its own context with a timeout, holding one
// of the MaxBuilds tokens while it reads the Source. Only a complete
// build is cached; a failure, a panic or a timeout caches nothing.
func (s *Sitemap) build(k pageKey, sec *section, old *entry) (e *entry, err error) {
	ctx, cancel := context.WithTimeout(s.ctx, s.timeout)
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			e, err = nil, fmt.Errorf("%w: %v", errPanic, p)
		}
		if err != nil && !errors.Is(err, errNotFound) {
			s.stats.buildErrors.Add(1)
		}
	}()
	if sec != nil && old != nil && old.info.Version != "" {
		// Revalidation compares the page's Version with a fresh index:
		// get one first, before holding a build token.
		s.freshIndex()
	}
	select {
	case s.sem <- struct{}{}:
		defer func() { <-s.sem }()
	case <-ctx.Done():
		return nil, fmt.Errorf("sitemap: waiting to build %s: %w", s.describe(k), ctx.Err())
	}
	if sec == nil {
		e, err = s.buildIndex(ctx)
	} else {
		e, err = s.buildPage(ctx, sec, k.page, old)
	}
	if err != nil {
		return nil, err
	}
	s.cache.add(k, e)
	return e, nil
}

// freshIndex makes sure the cached index is fresh, building it (shared
// with any concurrent build of it) if not. A failure is left to the page
// build, which then reads the page.
func (s *Sitemap) freshIndex() {
	if idx, ok := s.cache.peek(indexKey); ok && s.now().Before(idx.built.Add(s.ttl)) {
		return
	}
	s.group.Do(indexKey.String(), func() (any, error) { return s.build(indexKey, nil, nil) })
}

// buildPage builds page n of sec. If old is the stale copy and a newer
// index shows the page's Version unchanged, old is renewed without reading
// the page. A page that has no URL is errNotFound.
func (s *Sitemap) buildPage(ctx context.Context, sec *section, n int64, old *entry) (*entry, error) {
	now := s.now()
	var info PageInfo
	if idx, ok := s.cache.peek(indexKey); ok {
		var listed bool
		info, listed = idx.page(sec.index, n)
		if old != nil && listed && info.Version != "" && idx.built.After(old.built) &&
			info.Version == old.info.Version && info.LastMod.Equal(old.info.LastMod) {
			e := old.renewed(now)
			s.stats.revalidated.Add(1)
			return e, nil
		}
	}
	spec := sec.spec
	spec.report = func(loc string, err error) { s.reject(sec, n, loc, err) }
	start := time.Now()
	var st pageStats
	gz, sum, err := compress(s.gzipLevel, func(w io.Writer) (err error) {
		st, err = encodePage(ctx, sec.src, n, w, &spec)
		return err
	})
	dur := time.Since(start)
	s.stats.buildNanos.Add(int64(dur))
	if errors.Is(err, errEmptyPage) {
		return nil, errNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("sitemap: building %s: %w", s.describe(pageKey{sec.index, n}), err)
	}
	s.stats.builds.Add(1)
	e := newEntry(gz, sum, s.gzipLevel, st.newest, now)
	e.info = info
	s.log.Debug("sitemap: built page", "section", sec.name, "page", n, "urls", st.urls,
		"rejected", st.rejected, "bytes", st.bytes, "gzip_bytes", len(gz), "duration", dur)
	return e, nil
}

// reject reports a URL of page n that was not written.
func (s *Sitemap) reject(sec *section, n int64, loc string, err error) {
	s.stats.rejected.Add(1)
	s.log.Warn("sitemap: URL skipped", "section", sec.name, "page", n, "loc", quote(loc), "err", err)
	if s.onReject != nil {
		s.onReject(sec.name, n, loc, err)
	}
}

// describe names a document in logs.
func (s *Sitemap) describe(k pageKey) string {
	if k.sec == indexSection {
		return "sitemap_index.xml"
	}
	return s.sections[k.sec].filePfx + strconv.FormatInt(k.page, 10) + ".xml.gz"
}
