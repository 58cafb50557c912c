package sitemap

import (
	"fmt"
	"sync"
)

// Invalidation. Every build takes the Sitemap's epoch when it starts, and
// its entry keeps it. Saying that a document changed raises the epoch and
// marks the document with it: a cached copy older than its mark is
// outdated (served only while the new one is built, or if that fails),
// and a build that started before the mark is not cached, since it may
// have read the data from before the change.

// marks holds, per document said to have changed, the epoch of the saying.
type marks struct {
	mu sync.Mutex
	m  map[pageKey]uint64
}

// outdated reports whether e, a copy of k, was built before k was last
// said to have changed.
func (s *Sitemap) outdated(k pageKey, e *entry) bool {
	s.marks.mu.Lock()
	defer s.marks.mu.Unlock()
	mark, ok := s.marks.m[k]
	return ok && e.epoch < mark
}

// outdate marks keys as changed: copies built before now are outdated,
// and a build running now will not be shared with requests that come
// after. With a Store, every replica is told (fleet.go).
func (s *Sitemap) outdate(keys ...pageKey) {
	s.outdateHere(keys...)
	if s.shared != nil {
		s.tellChanged(keys)
	}
}

// outdateHere marks keys as changed in this replica only.
func (s *Sitemap) outdateHere(keys ...pageKey) {
	epoch := s.epoch.Add(1)
	s.marks.mu.Lock()
	for _, k := range keys {
		s.marks.m[k] = epoch
	}
	s.marks.mu.Unlock()
	for _, k := range keys {
		s.group.Forget(k.String())
	}
}

// keep caches e, the new copy of k, unless k was said to have changed
// after e's build started. Marks are kept (one per page ever said to have
// changed, and only pages the index lists or the cache holds are), so a
// slow build that started before a change can never be cached after it.
func (s *Sitemap) keep(k pageKey, e *entry) {
	if s.outdated(k, e) {
		return
	}
	s.cache.add(k, e)
}

// Invalidate tells the Sitemap that pages of a section changed, such as
// after a product was edited (adapters/sqlsource's PageOf names its
// page); with no page number, every page of the section did. Each cached
// page named is rebuilt at once in the background, at most MaxBuilds at a
// time, and the index after them; meanwhile the old copy is served, and
// every request that starts after its rebuild finished gets the new bytes
// under a new Last-Modified. A page that is not cached gets a new clock,
// which the index shows, and is built on its next request. A page number
// the section does not have (one that neither the cached index lists nor
// the cache holds) is ignored. The only error is a section name that is
// not configured.
//
// The section's Atom feed, if it has one, is outdated too: its cached copy
// is served while it is rebuilt, on its next request.
//
// Without Invalidate, changes are found by the TTL: an expired page is
// rebuilt, or revalidated by its PageInfo.Version.
func (s *Sitemap) Invalidate(section string, pages ...int64) error {
	sec := s.byName[section]
	if sec == nil {
		return fmt.Errorf("sitemap: Invalidate: no section %q", section)
	}
	if len(pages) == 0 {
		pages = s.knownPages(sec)
	}
	keys := make([]pageKey, 0, len(pages))
	for _, n := range pages {
		keys = append(keys, pageKey{sec: sec.index, page: n})
	}
	s.outdateFeed(sec)
	s.invalidate(keys)
	return nil
}

// InvalidateAll tells the Sitemap that everything may have changed: every
// section, every page, as Invalidate does.
func (s *Sitemap) InvalidateAll() {
	var keys []pageKey
	for _, sec := range s.sections {
		s.outdateFeed(sec)
		for _, n := range s.knownPages(sec) {
			keys = append(keys, pageKey{sec: sec.index, page: n})
		}
	}
	s.invalidate(keys)
}

// knownPages lists the pages of sec that the cached index lists or the
// cache holds.
func (s *Sitemap) knownPages(sec *section) []int64 {
	var pages []int64
	if idx, ok := s.cache.peek(indexKey); ok && sec.index < len(idx.pages) {
		for _, p := range idx.pages[sec.index] {
			pages = append(pages, p.Number)
		}
	}
	for _, k := range s.cache.keys() {
		if k.sec == sec.index {
			pages = append(pages, k.page)
		}
	}
	return pages
}

// invalidate outdates the pages keys and the index, then rebuilds, in
// the background, the pages that are cached and the index.
func (s *Sitemap) invalidate(keys []pageKey) {
	now := s.now()
	idx, _ := s.cache.peek(indexKey)
	var rebuild, listed []pageKey
	seen := make(map[pageKey]bool, len(keys))
	for _, k := range keys {
		if seen[k] {
			continue
		}
		seen[k] = true
		if _, cached := s.cache.peek(k); cached {
			rebuild = append(rebuild, k)
		} else if idx != nil && idx.lists(k) {
			listed = append(listed, k)
		} // else no such page, as far as anyone knows
	}
	changed := make([]pageKey, 0, len(rebuild)+len(listed)+1)
	changed = append(append(append(changed, rebuild...), listed...), indexKey)
	s.outdate(changed...)
	for _, k := range listed {
		s.clocks.invalidated(k, now)
	}
	for _, k := range changed {
		s.failures.forget(k)
	}
	s.background(func() {
		var wg sync.WaitGroup
		work := make(chan pageKey)
		for range min(cap(s.sem), len(rebuild)) {
			wg.Go(func() {
				for k := range work {
					old, _ := s.cache.peek(k)
					s.group.Do(k.String(), func() (any, error) { return s.build(k, s.sections[k.sec], old) })
				}
			})
		}
		for _, k := range rebuild {
			if s.ctx.Err() != nil {
				break
			}
			work <- k
		}
		close(work)
		wg.Wait()
		if s.ctx.Err() == nil {
			old, _ := s.cache.peek(indexKey)
			s.group.Do(indexKey.String(), func() (any, error) { return s.build(indexKey, nil, old) })
		}
	})
}
