package sitemap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"
)

// buildIndex builds the index from every section's Pages, without reading
// any URL. Each page's <lastmod> is its content clock (clock.go). A cached
// page whose Pages entry shows a change (another Version, or a newer
// lastmod) is rebuilt in the background; the index lists it with the
// clock of the bytes still served until then, and is itself rebuilt when
// the page's clock moves. An index with no page at all is errNotFound (an
// empty <sitemapindex> is not valid).
func (s *Sitemap) buildIndex(ctx context.Context) (*entry, error) {
	now := s.now()
	start := time.Now()
	pages := make([][]PageInfo, len(s.sections))
	var newest time.Time
	var count, unlisted int
	var changed []pageKey
	gz, sum, err := compress(s.gzipLevel, func(w io.Writer) error {
		e := getEncoder()
		defer putEncoder(e)
		e.reset(w, kindIndex, 0, s.base, MaxURLs, MaxBytes)
		for i, sec := range s.sections {
			var prev int64
			for info, err := range sec.src.Pages(ctx) {
				if err != nil {
					return fmt.Errorf("reading the pages of section %q: %w", sec.name, err)
				}
				if info.Number <= prev {
					return fmt.Errorf("section %q reported page %d after page %d: pages must increase", sec.name, info.Number, prev)
				}
				prev = info.Number
				if !info.LastMod.IsZero() && !validYear(info.LastMod) {
					s.log.Warn("sitemap: page lastmod out of range; omitted", "section", sec.name, "page", info.Number, "lastmod", info.LastMod)
					info.LastMod = time.Time{}
				}
				pages[i] = append(pages[i], info)
				k := pageKey{sec: i, page: info.Number}
				_, cached := s.cache.peek(k)
				at, moved := s.clocks.listed(k, info, now, cached)
				if moved && cached {
					changed = append(changed, k)
				}
				newest = later(newest, at)
				loc := s.base + sec.filePfx + strconv.FormatInt(info.Number, 10) + s.listExt
				switch err := e.addSitemap(loc, at); {
				case errors.Is(err, ErrPageFull):
					unlisted++
				case err != nil:
					return err
				default:
					count++
				}
			}
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if count == 0 {
			return errEmptyPage
		}
		return e.close()
	})
	s.stats.buildNanos.Add(int64(time.Since(start)))
	if errors.Is(err, errEmptyPage) {
		return nil, errNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("sitemap: building the index: %w", err)
	}
	if unlisted > 0 {
		s.log.Error("sitemap: the index is full; pages beyond it are served but not listed",
			"listed", count, "unlisted", unlisted, "limit", MaxURLs)
	}
	s.stats.builds.Add(1)
	for _, k := range changed {
		s.outdate(k)
		if old, ok := s.cache.peek(k); ok {
			s.refresh(k, s.sections[k.sec], old, now)
		}
	}
	at, _ := s.clocks.built(indexKey, sum, newest, now)
	e := newEntry(gz, sum, s.gzipLevel, at, now)
	e.pages = pages
	s.log.Debug("sitemap: built index", "pages", count, "gzip_bytes", len(gz), "duration", time.Since(start))
	return e, nil
}
