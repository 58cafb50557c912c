package sqlsource

import (
	"context"
	"database/sql"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// apply records a batch of committed changes where builds read them, in
// one transaction: the row times (with Config.Significant and LastMod),
// then, for every page a change is on, whether it has a listed row (its
// listed, 1 or 0: the count that InstallSummary fills is not kept, since
// no reader needs more and a count costs a scan of the page), its change
// counter (one more) and its change time (a second past the one
// before, or the newest change's if later: every batch moves it, so a
// restart's first clock of a page that changed is after every clock the
// bytes before had). It returns those pages, in order. Applying a batch
// twice (a consumer that died before its ack) moves the counters and
// times again and loses nothing.
//
// forget, if not nil, runs in the same transaction, last: the change
// table's deletion of the batch (txFeed), so that no reader sees the batch
// both applied and still waiting.
func (s *Source) apply(ctx context.Context, changes []rowChange, forget func(context.Context, *sql.Tx) error) ([]int64, error) {
	at := map[int64]time.Time{} // page → its newest change
	last := map[int64]rowChange{}
	for _, c := range changes {
		if !c.Significant {
			continue // a write no byte depends on
		}
		n := s.PageOf(c.Key)
		if n == 0 {
			continue
		}
		t := utcSecond(c.Committed)
		at[n] = later(at[n], t)
		// The row's time: its newest write's, as the page query reads
		// a change waiting (rowTimeFrom).
		if prev, ok := last[c.Key]; ok && !c.Deleted && !prev.Deleted {
			c.Committed = later(prev.Committed, c.Committed)
		}
		last[c.Key] = c
	}
	if len(at) == 0 && forget == nil {
		return nil, nil
	}
	pages := slices.Sorted(maps.Keys(at))
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	// Whether each page has a listed row, read before the transaction,
	// which then holds its locks for the writes alone (on SQLite, the
	// database's one write lock). A write committed after this read is in
	// a later batch, which reads its page again.
	listed, err := s.listedPages(ctx, pages)
	if err != nil {
		return nil, err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if len(pages) > 0 {
		if err := s.applyPages(ctx, tx, pages, at, listed, last); err != nil {
			return nil, err
		}
	}
	if forget != nil {
		if err := forget(ctx, tx); err != nil {
			return nil, err
		}
	}
	return pages, tx.Commit()
}

// applyPages writes, in tx, the row times of last and the summary rows of
// pages: listed or not, one change more, and the change time after at.
func (s *Source) applyPages(ctx context.Context, tx *sql.Tx, pages []int64, at map[int64]time.Time, listed map[int64]bool, last map[int64]rowChange) error {
	if s.sum.rowTimes() {
		if err := s.applyRowTimes(ctx, tx, last); err != nil {
			return err
		}
	}
	before, err := s.pageTimes(ctx, tx, pages)
	if err != nil {
		return err
	}
	// One statement for many pages: a batch's cost in round trips does
	// not grow with the pages it is on (TestApplyStatements).
	for rest := pages; len(rest) > 0; {
		k := min(len(rest), batchPages)
		values := make([]string, k)
		args := make([]any, k)
		for i, n := range rest[:k] {
			values[i] = "(" + strconv.FormatInt(n, 10) + ", " + strconv.Itoa(boolInt(listed[n])) + ", 1, " + s.dialect.placeholder(i+1) + ")"
			args[i] = s.timeArg(nextChange(before[n], at[n]))
		}
		if _, err := tx.ExecContext(ctx, s.upsertPages(values, "changes + 1"), args...); err != nil {
			return err
		}
		rest = rest[k:]
	}
	return nil
}

// batchPages is the most pages one statement of apply or listedPages
// names (SQLite allows 500 SELECTs in a UNION ALL).
const batchPages = 200

// listedPages reports, for each of pages, whether it has a listed row:
// the first one the key index finds, not a count of them all, with one
// query for up to batchPages pages (an EXISTS each). A page past the key
// space has none.
func (s *Source) listedPages(ctx context.Context, pages []int64) (map[int64]bool, error) {
	listed := make(map[int64]bool, len(pages))
	for rest := pages; len(rest) > 0; {
		k := min(len(rest), batchPages)
		var q strings.Builder
		for _, n := range rest[:k] {
			lo, hi, ok := s.bounds(n)
			if !ok {
				continue
			}
			if q.Len() > 0 {
				q.WriteString(" UNION ALL ")
			}
			q.WriteString("SELECT " + strconv.FormatInt(n, 10) + ", CASE WHEN EXISTS (" + s.listedRange[0] + strconv.FormatInt(lo, 10) +
				s.listedRange[1] + strconv.FormatInt(hi, 10) + s.listedRange[2] + ") THEN 1 ELSE 0 END")
		}
		rest = rest[k:]
		if q.Len() == 0 {
			continue
		}
		rows, err := s.db.QueryContext(ctx, q.String())
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var n, one int64
			if err := rows.Scan(&n, &one); err != nil {
				rows.Close()
				return nil, err
			}
			listed[n] = one == 1
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return listed, nil
}

// pageTimes reads the change times of pages from the summary.
func (s *Source) pageTimes(ctx context.Context, db execer, pages []int64) (map[int64]time.Time, error) {
	rows, err := db.QueryContext(ctx, "SELECT page, changed_at FROM "+summaryName(s.sum.table)+" WHERE page IN ("+intList(pages)+")")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	m := make(map[int64]time.Time, len(pages))
	for rows.Next() {
		var n int64
		var at timeScanner
		if err := rows.Scan(&n, &at); err != nil {
			return nil, err
		}
		m[n] = at.t
	}
	return m, rows.Err()
}

// applyRowTimes sets the time of each row whose last change in the batch
// wrote it, and removes that of each row it deleted.
func (s *Source) applyRowTimes(ctx context.Context, db execer, last map[int64]rowChange) error {
	var gone, set []int64
	for _, k := range slices.Sorted(maps.Keys(last)) {
		if last[k].Deleted {
			gone = append(gone, k)
		} else {
			set = append(set, k)
		}
	}
	name := rowsName(s.sum.table)
	for len(gone) > 0 {
		n := min(len(gone), 500)
		if _, err := db.ExecContext(ctx, "DELETE FROM "+name+" WHERE sitemap_key IN ("+intList(gone[:n])+")"); err != nil {
			return err
		}
		gone = gone[n:]
	}
	for len(set) > 0 {
		n := min(len(set), 500)
		vals := make([]string, n)
		args := make([]any, 0, 2*n)
		for i, k := range set[:n] {
			vals[i] = "(?, ?)"
			args = append(args, k, s.timeArg(utcSecond(last[k].Committed)))
		}
		q := "INSERT INTO " + name + " (sitemap_key, sitemap_changed_at) VALUES " + strings.Join(vals, ", ")
		if s.dialect == MySQL {
			q += " ON DUPLICATE KEY UPDATE sitemap_changed_at = VALUES(sitemap_changed_at)"
		} else {
			q += " ON CONFLICT (sitemap_key) DO UPDATE SET sitemap_changed_at = excluded.sitemap_changed_at"
		}
		if _, err := db.ExecContext(ctx, s.dialect.Rebind(q), args...); err != nil {
			return err
		}
		set = set[n:]
	}
	return nil
}

// timeArg returns t as the summary stores it: SQLite's text form, a
// time.Time for the servers, NULL for the zero time.
func (s *Source) timeArg(t time.Time) any {
	switch {
	case t.IsZero():
		return nil
	case s.dialect == SQLite:
		return t.UTC().Format(time.DateTime)
	}
	return t.UTC()
}

// intList writes keys as a comma-separated list.
func intList(keys []int64) string {
	b := make([]byte, 0, len(keys)*8)
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, k, 10)
	}
	return string(b)
}
