package sitemap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"
)

// indexEntry is one <sitemap> of the index: page n of section sec, and
// the clock it lists.
type indexEntry struct {
	sec int
	n   int64
	at  time.Time
}

// buildIndex builds the index from every section's Pages, without reading
// any URL. Each page's <lastmod> is its content clock (clock.go). A cached
// page whose Pages entry shows a change (another Version, or a newer
// lastmod) is rebuilt in the background; the index lists it with the
// clock of the bytes still served until then, and is itself rebuilt when
// the page's clock moves. An index with no page at all is errNotFound (an
// empty <sitemapindex> is not valid).
//
// One index file lists at most 50,000 pages (and 52,428,800 bytes); past
// that the index has more files, sitemap_index-2.xml and on, built
// together: the returned entry is the first, and holds the others (an
// index may not list another index, so each is named in robots.txt).
func (s *Sitemap) buildIndex(ctx context.Context) (*entry, error) {
	now := s.now()
	start := time.Now()
	defer func() { s.timed(indexKey, time.Since(start)) }() // failed or not
	pages := make([][]PageInfo, len(s.sections))
	var list []indexEntry
	var changed []pageKey
	for i, sec := range s.sections {
		var prev int64
		for info, err := range sec.src.Pages(ctx) {
			if err != nil {
				return nil, fmt.Errorf("sitemap: building the index: reading the pages of section %q: %w", sec.name, err)
			}
			if info.Number <= prev {
				return nil, fmt.Errorf("sitemap: building the index: section %q reported page %d after page %d: pages must increase", sec.name, info.Number, prev)
			}
			prev = info.Number
			if !info.LastMod.IsZero() && !validYear(info.LastMod) {
				s.log.Warn("sitemap: page lastmod out of range; omitted", "section", sec.name, "page", info.Number, "lastmod", info.LastMod)
				info.LastMod = time.Time{}
			}
			pages[i] = append(pages[i], info)
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("sitemap: building the index: %w", err)
		}
	}
	if s.shared != nil {
		s.clocksFromStore(ctx, pages) // the clocks of pages other replicas built
	}
	for i, ps := range pages {
		for _, info := range ps {
			k := pageKey{sec: i, page: info.Number}
			_, cached := s.cache.peek(k)
			at, moved := s.clocks.listed(k, info, now, cached)
			if moved && cached {
				changed = append(changed, k)
			}
			list = append(list, indexEntry{sec: i, n: info.Number, at: at})
		}
	}
	if len(list) == 0 {
		return nil, errNotFound
	}
	var files []*entry
	for len(list) > 0 {
		e, n, err := s.encodeIndexFile(list, len(files)+1, now)
		if err != nil {
			return nil, fmt.Errorf("sitemap: building the index: %w", err)
		}
		files = append(files, e)
		list = list[n:]
	}
	s.built(indexKey)
	if len(changed) > 0 {
		s.outdate(changed...)
	}
	for _, k := range changed {
		if old, ok := s.cache.peek(k); ok {
			s.refresh(k, s.sections[k.sec], old, now)
		}
	}
	first := files[0]
	first.pages, first.more = pages, files[1:]
	s.log.Debug("sitemap: built index", "files", len(files), "duration", time.Since(start))
	return first, nil
}

// encodeIndexFile writes index file number file: the entries of list from
// the first, as many as fit. It returns the file's entry and how many it
// lists.
func (s *Sitemap) encodeIndexFile(list []indexEntry, file int, now time.Time) (*entry, int, error) {
	var count int
	var newest time.Time
	gz, sum, err := compress(s.gzipLevel, func(w io.Writer) error {
		e := getEncoder()
		defer putEncoder(e)
		e.reset(w, kindIndex, 0, s.base, MaxURLs, MaxBytes, s.stylesheet)
		for _, it := range list {
			loc := s.base + s.sections[it.sec].filePfx + strconv.FormatInt(it.n, 10) + s.listExt
			err := e.addSitemap(loc, it.at)
			if errors.Is(err, ErrPageFull) {
				break
			}
			if err != nil {
				return err
			}
			count++
			newest = later(newest, it.at)
		}
		return e.close()
	})
	if err != nil {
		return nil, 0, err
	}
	if count == 0 { // cannot happen: one entry is far below the limits
		return nil, 0, fmt.Errorf("index file %d: no entry fits", file)
	}
	at, _ := s.clocks.built(indexFileKey(file), sum, newest, now)
	return newEntry(gz, sum, s.gzipLevel, at, now), count, nil
}

// indexFileKey is the clock key of index file number file (from 1).
func indexFileKey(file int) pageKey {
	return pageKey{sec: indexSection, page: int64(file - 1)}
}
