package sitemap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/cespare/xxhash/v2"
)

// bufPool holds the buffers builds compress into; big ones are dropped.
var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPooledBuf = 8 << 20

// compressed runs write into a gzip stream and returns the gzip bytes (a
// copy of exact size) and the xxhash of the uncompressed bytes.
func (s *Sitemap) compressed(write func(w io.Writer) error) ([]byte, uint64, error) {
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		if buf.Cap() <= maxPooledBuf {
			bufPool.Put(buf)
		}
	}()
	h := xxhash.New()
	err := func() (err error) {
		zw := newGzipPipe(buf, s.gzipLevel, h)
		defer func() { // also when write panics: the compressor must stop
			if cerr := zw.Close(); err == nil {
				err = cerr
			}
		}()
		return write(zw)
	}()
	if err != nil {
		return nil, 0, err
	}
	return bytes.Clone(buf.Bytes()), h.Sum64(), nil
}

// buildPage builds page n of sec. If old is the stale copy and a newer
// index shows the page's Version unchanged, old is renewed without reading
// the page. A page that has no URL is errNotFound.
func (s *Sitemap) buildPage(ctx context.Context, sec *section, n int64, old *cachedPage) (*cachedPage, error) {
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
	gz, sum, err := s.compressed(func(w io.Writer) (err error) {
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

// buildIndex builds the index from every section's Pages, without reading
// any URL. An index with no page at all is errNotFound (an empty
// <sitemapindex> is not valid).
func (s *Sitemap) buildIndex(ctx context.Context) (*cachedPage, error) {
	now := s.now()
	start := time.Now()
	pages := make([][]PageInfo, len(s.sections))
	var newest time.Time
	var count, unlisted int
	gz, sum, err := s.compressed(func(w io.Writer) error {
		e := encoderPool.Get().(*encoder)
		defer func() {
			if cap(e.buf) <= 4*flushAt {
				encoderPool.Put(e)
			}
		}()
		e.reset(w, kindIndex, 0, s.base, MaxURLs, MaxBytes)
		defer func() { e.w = nil }()
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
