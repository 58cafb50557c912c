package sqlsource

import (
	"context"
	"fmt"
	"iter"
	"strconv"
	"time"

	"github.com/freshmap/sitemap"
)

// pagesSQL returns the query of the summary's pages and of the pages that
// have changes waiting in the change table (each page's highest change id
// and newest change time), in one statement, so that it reads both at one
// moment: Watch applies a batch and deletes it from the change table in
// one transaction, which a reader sees entirely or not at all. Ordered by
// page; a page's two rows, if it has both, are merged by summaryRows.
func (s *Source) pagesSQL() string {
	idx := s.pageIndex("sitemap_key")
	return "SELECT page, listed, changes, changed_at, 0, NULL FROM " + summaryName(s.sum.table) + " WHERE page > 0" +
		" UNION ALL SELECT " + idx + " + 1, 0, 0, NULL, MAX(id), MAX(sitemap_changed_at) FROM " + changesName(s.sum.table) +
		" WHERE sitemap_key >= " + strconv.FormatInt(s.start, 10) + " GROUP BY " + idx + " + 1 ORDER BY 1"
}

// summaryRow is one page's row in the summary, or its changes waiting.
type summaryRow struct {
	page, listed, changes int64
	at                    time.Time // changed_at: the page's change time
	pending               int64     // the highest change id waiting for it; 0 if none
	pendingAt             time.Time // the newest time of those
}

// summaryPages lists the pages from the summary table, one row per page,
// and the change table's waiting changes, one row per page they are on,
// both read by one statement (pagesSQL): a batch Watch applies is either
// waiting or applied in what it reads, never both.
//
// A page's Changed is its change time, which lasts across restarts, and
// its LastMod the same (before its first change, its newest lastmod when
// installed). A page with changes waiting is looked up in its rows (has
// it a listed row?), and its times and Version are those Watch will give it: Changed a second
// past its time, or its newest change's if later. Without Loaders only:
// their tables are not seen by the triggers, so Changed stays zero.
func (s *Source) summaryPages(ctx context.Context) iter.Seq2[sitemap.PageInfo, error] {
	return func(yield func(sitemap.PageInfo, error) bool) {
		fail := func(err error) { yield(sitemap.PageInfo{}, fmt.Errorf("sqlsource: pages: summary: %w", err)) }
		if err := s.waitCaughtUp(ctx); err != nil {
			fail(err)
			return
		}
		rows, err := s.summaryRows(ctx)
		if err != nil {
			fail(err)
			return
		}
		var pending []int64 // whether they have a listed row: one query for many
		for _, r := range rows {
			if _, _, ok := s.bounds(r.page); ok && r.pending != 0 {
				pending = append(pending, r.page)
			}
		}
		listed, err := s.listedPages(ctx, pending)
		if err != nil {
			fail(err)
			return
		}
		for _, r := range rows {
			if r.pending != 0 {
				if _, _, ok := s.bounds(r.page); !ok {
					continue
				}
				r.listed = int64(boolInt(listed[r.page]))
			}
			if r.listed <= 0 {
				continue
			}
			v := make([]byte, 0, 48)
			v = append(v, 's')
			v = strconv.AppendInt(v, r.listed, 10)
			v = append(v, '.')
			v = strconv.AppendInt(v, r.changes, 10)
			at := r.at
			if r.pending != 0 {
				v = append(v, '.')
				v = strconv.AppendInt(v, r.pending, 10)
				at = nextChange(r.at, r.pendingAt)
			}
			info := sitemap.PageInfo{Number: r.page, LastMod: at, Version: string(v)}
			if len(s.loaders) == 0 {
				info.Changed = at
			}
			if !yield(info, nil) {
				return
			}
		}
	}
}

// nextChange is a page's change time after changes at newest: a second
// past its time at, so that every change moves it, or newest if later.
func nextChange(at, newest time.Time) time.Time {
	if at.IsZero() {
		return newest
	}
	return later(at.Add(time.Second), newest)
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// summaryRows reads the summary and the pages with changes waiting, and
// merges the two by page.
func (s *Source) summaryRows(ctx context.Context) ([]summaryRow, error) {
	rows, err := s.db.QueryContext(ctx, s.sum.pagesQuery)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []summaryRow
	for rows.Next() {
		var r summaryRow
		var at, pendingAt timeScanner
		if err := rows.Scan(&r.page, &r.listed, &r.changes, &at, &r.pending, &pendingAt); err != nil {
			return nil, err
		}
		r.at, r.pendingAt = at.t, pendingAt.t
		if n := len(out); n > 0 && out[n-1].page == r.page {
			p := &out[n-1]
			if r.pending != 0 {
				p.pending, p.pendingAt = r.pending, r.pendingAt
			} else {
				p.listed, p.changes, p.at = r.listed, r.changes, r.at
			}
			continue
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
