package sitemap

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// pageKey names a cached document: page n of section sec, or the index
// (sec == indexSection). It is comparable and needs no allocation.
type pageKey struct {
	sec  int
	page int64
}

const indexSection = -1

var indexKey = pageKey{sec: indexSection}

func (k pageKey) String() string {
	return strconv.Itoa(k.sec) + "/" + strconv.FormatInt(k.page, 10)
}

// cachedPage is one built document, kept gzip-compressed. It is immutable once
// cached, except for the two refresh fields.
type cachedPage struct {
	gz      []byte    // the gzip file of the XML
	lastMod time.Time // newest lastmod written; zero if unknown
	built   time.Time // when it was built or last revalidated (Config.Now)
	info    PageInfo  // the page's PageInfo as last known before the build

	// ETag header values, one per representation, precomputed.
	etagFile, etagGzip, etagPlain []string

	pages [][]PageInfo // index only: every section's pages, in order

	refreshing atomic.Bool  // a background refresh is running
	retryAt    atomic.Int64 // after a failed refresh, no new one before this (UnixNano)
}

// newEntry makes a cache entry of gz, the gzip (at level) of XML whose
// xxhash is hash. The ETags derive from the XML, so every replica serving
// the same content sends the same ones; the gzip representations' also
// name the level, since their bytes depend on it.
func newEntry(gz []byte, hash uint64, level int, lastMod, built time.Time) *cachedPage {
	tag := strconv.FormatUint(hash, 16)
	lv := strconv.Itoa(level)
	return &cachedPage{
		gz: gz, lastMod: lastMod, built: built,
		etagPlain: []string{`"` + tag + `"`},
		etagGzip:  []string{`"` + tag + `-gzip` + lv + `"`},
		etagFile:  []string{`"` + tag + `-gzfile` + lv + `"`},
	}
}

// renewed returns a copy of e that is fresh again as of now.
func (e *cachedPage) renewed(now time.Time) *cachedPage {
	return &cachedPage{
		gz: e.gz, lastMod: e.lastMod, built: now, info: e.info,
		etagFile: e.etagFile, etagGzip: e.etagGzip, etagPlain: e.etagPlain, pages: e.pages,
	}
}

// page finds page n of section sec in an index entry.
func (e *cachedPage) page(sec int, n int64) (PageInfo, bool) {
	if sec < 0 || sec >= len(e.pages) {
		return PageInfo{}, false
	}
	ps := e.pages[sec]
	lo, hi := 0, len(ps)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if ps[m].Number < n {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(ps) && ps[lo].Number == n {
		return ps[lo], true
	}
	return PageInfo{}, false
}

// pageCache is an LRU of built documents bounded by entry count and by
// compressed bytes. Expiry is checked by the caller on read; nothing runs
// in the background.
type pageCache struct {
	mu     sync.Mutex
	lru    *simplelru.LRU[pageKey, *cachedPage]
	bytes  int64
	budget int64
}

func newPageCache(budget int64, entries int) *pageCache {
	c := &pageCache{budget: budget}
	if budget < 0 {
		return c // disabled
	}
	c.lru, _ = simplelru.NewLRU(entries, func(_ pageKey, e *cachedPage) { c.bytes -= int64(len(e.gz)) })
	return c
}

func (c *pageCache) get(k pageKey) (*cachedPage, bool) {
	if c.lru == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Get(k)
}

// peek returns an entry without marking it used.
func (c *pageCache) peek(k pageKey) (*cachedPage, bool) {
	if c.lru == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Peek(k)
}

// add caches e under k, evicting the least recently used entries until the
// byte budget holds. An entry larger than the whole budget is not cached.
func (c *pageCache) add(k pageKey, e *cachedPage) {
	if c.lru == nil || int64(len(e.gz)) > c.budget {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lru.Remove(k)
	c.lru.Add(k, e)
	c.bytes += int64(len(e.gz))
	for c.bytes > c.budget {
		c.lru.RemoveOldest()
	}
}

func (c *pageCache) remove(k pageKey) {
	if c.lru == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lru.Remove(k)
}

// usage returns the cached entries and their compressed bytes.
func (c *pageCache) usage() (int, int64) {
	if c.lru == nil {
		return 0, 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len(), c.bytes
}

// errNotFound means the document does not exist (404).
var errNotFound = errors.New("sitemap: no such page")

// errPanic wraps a panic of a Source.
var errPanic = errors.New("sitemap: source panicked")

// document returns the entry to serve for k (sec is nil for the index):
// a fresh cached one; a stale one, while a refresh starts in the
// background; or a new build that concurrent callers share. It returns
// errNotFound for a page that does not exist.
func (s *Sitemap) document(ctx context.Context, k pageKey, sec *section) (*cachedPage, error) {
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
		return res.Val.(*cachedPage), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// refresh starts one background rebuild of the stale entry old, unless one
// is running, a recent one failed, or the Sitemap is closed.
func (s *Sitemap) refresh(k pageKey, sec *section, old *cachedPage, now time.Time) {
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
func (s *Sitemap) build(k pageKey, sec *section, old *cachedPage) (e *cachedPage, err error) {
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

// describe names a document in logs.
func (s *Sitemap) describe(k pageKey) string {
	if k.sec == indexSection {
		return "sitemap_index.xml"
	}
	return s.sections[k.sec].filePfx + strconv.FormatInt(k.page, 10) + ".xml.gz"
}
