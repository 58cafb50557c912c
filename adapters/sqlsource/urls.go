package sqlsource

import (
	"context"
	"fmt"
	"iter"

	"github.com/freshmap/sitemap"
)

// URLs streams the URLs of page n in increasing key order, one row at a
// time: the Loaders run first, then one range query over the key index.
// Each row's URL gets its loc (resolved against BaseURL) and lastmod,
// then the Loaders' data, then Annotate's, and last BaseURL resolves the
// paths these set. A page with no row, and a
// page number below 1, yield nothing. Any error (a query, a scan, a row
// without a loc, LocFunc, a Loader, Annotate, ctx) is yielded once and
// ends the sequence; the rows are always closed.
func (s *Source) URLs(ctx context.Context, n int64) iter.Seq2[sitemap.URL, error] {
	lo, hi, ok := s.bounds(n)
	if !ok {
		return func(func(sitemap.URL, error) bool) {}
	}
	return s.rangeURLs(ctx, n, -1, lo, hi)
}

// rangeURLs streams the URLs of the rows with keys lo to hi of page n:
// the whole page, or its segment seg (segment.go; -1 for the page).
func (s *Source) rangeURLs(ctx context.Context, n int64, seg int, lo, hi int64) iter.Seq2[sitemap.URL, error] {
	return func(yield func(sitemap.URL, error) bool) {
		fail := func(err error) {
			if seg >= 0 {
				err = fmt.Errorf("segment %d: %w", seg, err)
			}
			yield(sitemap.URL{}, fmt.Errorf("sqlsource: page %d: %w", n, err))
		}
		var merges []Merge
		if len(s.loaders) > 0 {
			p := &Page{Number: n, Lo: lo, Hi: hi, DB: s.db, Dialect: s.dialect, base: s.base}
			for _, load := range s.loaders {
				m, err := load(ctx, p)
				if err != nil {
					fail(err)
					return
				}
				if m != nil {
					merges = append(merges, m)
				}
			}
		}
		rows, err := s.db.QueryContext(ctx, s.pageQuery, lo, hi)
		if err != nil {
			fail(err)
			return
		}
		defer rows.Close()

		var (
			rr     = s.newRowReader(s.hasLM)
			u      sitemap.URL // reused: Merges and Annotate take its address, which would move each row's to the heap
			images []sitemap.Image
			alts   []sitemap.Alternate
		)
		for rows.Next() {
			if err := ctx.Err(); err != nil {
				fail(err)
				return
			}
			if err := rr.scan(rows, &u); err != nil {
				fail(err)
				return
			}
			key := rr.key
			for _, merge := range merges {
				merge(key, &u)
			}
			if s.annotate != nil {
				if err := s.annotate(&rr.row, &u); err != nil {
					fail(fmt.Errorf("key %d: %w", key, err))
					return
				}
			}
			if s.base.prefix != "" {
				s.base.resolveURL(&u, &images, &alts) // what Merges and Annotate set
			}
			if !yield(u, nil) {
				return
			}
		}
		if err := rows.Err(); err != nil {
			fail(err)
			return
		}
		if err := ctx.Err(); err != nil {
			fail(err)
		}
	}
}
