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
// any URL. An index with no page at all is errNotFound (an empty
// <sitemapindex> is not valid).
func (s *Sitemap) buildIndex(ctx context.Context) (*entry, error) {
	now := s.now()
	start := time.Now()
	pages := make([][]PageInfo, len(s.sections))
	var newest time.Time
	var count, unlisted int
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
				newest = newer(newest, info.LastMod)
				loc := s.base + sec.filePfx + strconv.FormatInt(info.Number, 10) + ".xml.gz"
				switch err := e.addSitemap(loc, info.LastMod); {
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
	e := newEntry(gz, sum, s.gzipLevel, newest, now)
	e.pages = pages
	s.log.Debug("sitemap: built index", "pages", count, "gzip_bytes", len(gz), "duration", time.Since(start))
	return e, nil
}
