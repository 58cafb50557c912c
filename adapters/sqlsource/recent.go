package sqlsource

import (
	"context"
	"database/sql"
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
			key    int64
			lm     timeScanner
			loc    sql.NullString
			row    = Row{names: s.names}
			buf    []byte
			images []sitemap.Image
			alts   []sitemap.Alternate
		)
		dest := []any{&key, &lm}
		if s.loc {
			dest = append(dest, &loc)
		}
		var ntpl int
		if s.tpl != nil {
			ntpl = len(s.tpl.cols)
		}
		vals := make([]sql.RawBytes, ntpl+len(s.names))
		row.vals = vals[ntpl:]
		for i := range vals {
			dest = append(dest, &vals[i])
		}
		for rows.Next() {
			if err := ctx.Err(); err != nil {
				fail(err)
				return
			}
			if err := rows.Scan(dest...); err != nil {
				fail(err)
				return
			}
			u := sitemap.URL{LastMod: lm.t}
			row.Key, row.LastMod = key, lm.t
			switch {
			case s.loc:
				if !loc.Valid {
					fail(fmt.Errorf("key %d: loc is NULL", key))
					return
				}
				u.Loc = loc.String
			case s.tpl != nil:
				if buf, err = s.tpl.expand(buf[:0], vals[:ntpl]); err != nil {
					fail(fmt.Errorf("key %d: %w", key, err))
					return
				}
				u.Loc = string(buf)
			default:
				if u.Loc, err = s.locFunc(&row); err != nil {
					fail(fmt.Errorf("key %d: %w", key, err))
					return
				}
			}
			u.Loc = s.base.resolve(u.Loc)
			if s.annotate != nil {
				if err := s.annotate(&row, &u); err != nil {
					fail(fmt.Errorf("key %d: %w", key, err))
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
