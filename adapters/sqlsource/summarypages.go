package sqlsource

import (
	"context"
	"fmt"
	"iter"
	"strconv"
	"time"

	"github.com/freshmap/sitemap"
)

// pendingSQL returns the query of the pages that have changes waiting in
// the change table: each page's highest change id and newest change time.
func (s *Source) pendingSQL() string {
	idx := s.pageIndex("sitemap_key")
	return "SELECT " + idx + " + 1, MAX(id), MAX(sitemap_changed_at) FROM " + changesName(s.sum.table) +
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
// and the change table's waiting changes, one row per page they are on.
// The change table is read first: a change Watch applies in between is in
// the summary read after, whose row Watch wrote before pruning it.
//
// A page's Changed is its change time, which lasts across restarts, and
// its LastMod the same (before its first change, its newest lastmod when
// installed). A page with changes waiting is looked up in its rows (has
// it a listed row?), and its times and Version are those Watch will give it: Changed a second
// past its time, or its newest change's if later. Without Loaders only:
// their tables are not seen by the triggers, so Changed stays zero.
//
// Known limit: a read between Watch's apply of a batch (its transaction)
// and its prune of the change table (a statement after it) sees the
// batch twice, and reports Changed a second past the time the summary
// keeps, which a later read reports again: a clock given from that read
// moves back by a second after a restart. Applying and pruning in one
// transaction would close it (changetable.go, apply.go).
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

// summaryRows reads the pages with changes waiting, then the summary, and
// merges the two by page.
func (s *Source) summaryRows(ctx context.Context) ([]summaryRow, error) {
	var pending []summaryRow
	rows, err := s.db.QueryContext(ctx, s.sum.pendingQuery)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var r summaryRow
		var at timeScanner
		if err := rows.Scan(&r.page, &r.pending, &at); err != nil {
			rows.Close()
			return nil, err
		}
		r.pendingAt = at.t
		pending = append(pending, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = s.db.QueryContext(ctx, s.sum.query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []summaryRow
	for rows.Next() {
		var r summaryRow
		var at timeScanner
		if err := rows.Scan(&r.page, &r.listed, &r.changes, &at); err != nil {
			return nil, err
		}
		r.at = at.t
		for len(pending) > 0 && pending[0].page < r.page {
			out, pending = append(out, pending[0]), pending[1:]
		}
		if len(pending) > 0 && pending[0].page == r.page {
			r.pending, r.pendingAt, pending = pending[0].pending, pending[0].pendingAt, pending[1:]
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return append(out, pending...), nil
}
