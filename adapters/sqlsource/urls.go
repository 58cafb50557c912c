package sqlsource

import (
	"context"
	"database/sql"
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
	return func(yield func(sitemap.URL, error) bool) {
		lo, hi, ok := s.bounds(n)
		if !ok {
			return
		}
		fail := func(err error) {
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
			key    int64
			lm     timeScanner
			loc    sql.NullString
			row    = Row{names: s.names}
			vals   []sql.RawBytes // the template's columns, then Columns
			buf    []byte
			u      sitemap.URL // reused: Merges and Annotate take its address, which would move each row's to the heap
			images []sitemap.Image
			alts   []sitemap.Alternate
		)
		dest := []any{&key}
		if s.hasLM {
			dest = append(dest, &lm)
		}
		if s.loc {
			dest = append(dest, &loc)
		}
		var ntpl int
		if s.tpl != nil {
			ntpl = len(s.tpl.cols)
		}
		vals = make([]sql.RawBytes, ntpl+len(s.names))
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
			u = sitemap.URL{LastMod: lm.t}
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
				row.Key, row.LastMod = key, lm.t
				if u.Loc, err = s.locFunc(&row); err != nil {
					fail(fmt.Errorf("key %d: %w", key, err))
					return
				}
			}
			u.Loc = s.base.resolve(u.Loc)
			for _, merge := range merges {
				merge(key, &u)
			}
			if s.annotate != nil {
				row.Key, row.LastMod = key, lm.t
				if err := s.annotate(&row, &u); err != nil {
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
