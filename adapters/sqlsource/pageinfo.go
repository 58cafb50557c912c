package sqlsource

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/freshmap/sitemap"
)

// PageInfo reports page n as Pages would now, from the page summary, with
// one statement that reads the page's row there and its changes waiting
// in the change table at one moment (sitemap.PageReporter). Its Changed
// is set only when no change of the page is waiting: every change after
// it then gets a change time at least a second later (nextChange), which
// is what lets a page rebuilt on Watch's Invalidate take the clock a
// restart gives it. Without the summary, or with Loaders (whose tables
// no trigger sees), it returns errors.ErrUnsupported.
func (s *Source) PageInfo(ctx context.Context, n int64) (sitemap.PageInfo, error) {
	lo, hi, ok := s.bounds(n)
	if !s.sum.on || len(s.loaders) > 0 {
		return sitemap.PageInfo{}, errors.ErrUnsupported
	}
	if !ok {
		return sitemap.PageInfo{}, nil
	}
	if err := s.waitCaughtUp(ctx); err != nil {
		return sitemap.PageInfo{}, fmt.Errorf("sqlsource: page info: %w", err)
	}
	q := "SELECT listed, changes, changed_at, 0, NULL FROM " + summaryName(s.sum.table) + " WHERE page = " + strconv.FormatInt(n, 10) +
		" UNION ALL SELECT 0, 0, NULL, COALESCE(MAX(id), 0), MAX(sitemap_changed_at) FROM " + changesName(s.sum.table) +
		" WHERE sitemap_key >= " + strconv.FormatInt(lo, 10) + " AND sitemap_key <= " + strconv.FormatInt(hi, 10)
	rows, err := s.db.QueryContext(ctx, q)
	if err != nil {
		return sitemap.PageInfo{}, fmt.Errorf("sqlsource: page info: %w", err)
	}
	defer rows.Close()
	var r summaryRow
	for rows.Next() {
		var x summaryRow
		var at, pendingAt timeScanner
		if err := rows.Scan(&x.listed, &x.changes, &at, &x.pending, &pendingAt); err != nil {
			return sitemap.PageInfo{}, fmt.Errorf("sqlsource: page info: %w", err)
		}
		if x.pending != 0 {
			r.pending, r.pendingAt = x.pending, pendingAt.t
		} else if !at.t.IsZero() || x.listed != 0 || x.changes != 0 {
			r.listed, r.changes, r.at = x.listed, x.changes, at.t
		}
	}
	if err := rows.Err(); err != nil {
		return sitemap.PageInfo{}, fmt.Errorf("sqlsource: page info: %w", err)
	}
	if r.pending != 0 { // as summaryPages: has it a listed row?
		listed, err := s.listedPages(ctx, []int64{n})
		if err != nil {
			return sitemap.PageInfo{}, fmt.Errorf("sqlsource: page info: %w", err)
		}
		r.listed = int64(boolInt(listed[n]))
	}
	if r.listed <= 0 {
		return sitemap.PageInfo{}, nil
	}
	v := make([]byte, 0, 48)
	v = append(v, 's')
	v = strconv.AppendInt(v, r.listed, 10)
	v = append(v, '.')
	v = strconv.AppendInt(v, r.changes, 10)
	if r.pending != 0 { // not settled: the listed row and the times are Watch's to give
		v = append(v, '.')
		v = strconv.AppendInt(v, r.pending, 10)
		return sitemap.PageInfo{Number: n, LastMod: nextChange(r.at, r.pendingAt), Version: string(v)}, nil
	}
	return sitemap.PageInfo{Number: n, LastMod: r.at, Version: string(v), Changed: r.at}, nil
}
