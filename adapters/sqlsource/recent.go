package sqlsource

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/freshmap/sitemap"
)

// errNoLastMod is yielded by Recent without Config.LastMod.
var errNoLastMod = errors.New("sqlsource: Recent needs Config.LastMod")

// Recent implements sitemap.RecentLister: it streams the n listed rows
// (those the pages list: from KeyStart, through Filter) with the newest
// lastmod, newest first and, for equal lastmods, the highest key first,
// with one query: ORDER BY lastmod DESC, key DESC LIMIT n. Give it an
// index on (lastmod, key), or (filter columns, lastmod, key); see the
// package doc. Rows whose lastmod is NULL are not listed.
//
// Each URL gets its loc (resolved against BaseURL) and lastmod, then
// Annotate's fields (a news title titles the feed's entry). Loaders do
// not run: they read a page's key range, and a feed needs no image or
// alternate; Annotate sees a URL without their data.
//
// Without Config.LastMod, Recent yields an error (a feed entry needs its
// time), so a sitemap feed over such a Source fails with 503: leave
// sitemap.Config.FeedEntries zero then. n below 1 yields nothing. Any
// error (the query, a scan, a row without a loc, LocFunc, Annotate, ctx)
// is yielded once and ends the sequence; the rows are always closed.
func (s *Source) Recent(ctx context.Context, n int) iter.Seq2[sitemap.URL, error] {
	return func(yield func(sitemap.URL, error) bool) {
		if s.recentQuery == "" {
			yield(sitemap.URL{}, errNoLastMod)
			return
		}
		if n < 1 {
			return
		}
		fail := func(err error) {
			yield(sitemap.URL{}, fmt.Errorf("sqlsource: recent: %w", err))
		}
		rows, err := s.db.QueryContext(ctx, s.recentQuery, s.start, int64(n))
		if err != nil {
			fail(err)
			return
		}
		defer rows.Close()

		var (
			rr     = s.newRowReader(true)
			images []sitemap.Image
			alts   []sitemap.Alternate
		)
		for rows.Next() {
			if err := ctx.Err(); err != nil {
				fail(err)
				return
			}
			var u sitemap.URL
			if err := rr.scan(rows, &u); err != nil {
				fail(err)
				return
			}
			if s.annotate != nil {
				if err := s.annotate(&rr.row, &u); err != nil {
					fail(fmt.Errorf("key %d: %w", rr.key, err))
					return
				}
				if s.base.prefix != "" {
					s.base.resolveURL(&u, &images, &alts)
				}
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
