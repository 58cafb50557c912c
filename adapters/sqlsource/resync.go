package sqlsource

import (
	"context"
	"database/sql"
	"math"
)

// The recount: what Watch does when logical decoding cannot name the rows
// that changed (errResync: a slot made anew, whose changes before it were
// not kept; a TRUNCATE; a transaction of more rows than the decoder
// keeps). Every row may have changed, so every page is counted again from
// the table, in one pass over the key index, a batch of pages per
// statement; every page there is, or was, moves its change counter and
// its time (a second past its time, or the database's time if later), so
// that no file keeps a clock its new bytes may not have. The row times
// (with Significant and LastMod) of rows gone are removed and rows with
// none get their LastMod column's; rows updated meanwhile keep the time
// they had, since nothing says when they changed.
//
// Watch acknowledges the resync only once the recount is done: a process
// that stops half-way is told again, and counts again.

// recountBatch is how many pages one statement of the recount counts: at
// most 20 × PageSize rows, a million at the default page size.
const recountBatch = 20

// recount counts every page again, as the package doc of resync.go says,
// and returns the pages there are (listed or not), in order. It is
// PostgreSQL's, as logical decoding is.
func (s *Source) recount(ctx context.Context) ([]int64, error) {
	pages, key, t := summaryName(s.sum.table), s.sum.key, s.sum.table
	idx := s.pageIndex(key)
	// The next page from a page on that has a row or a summary row: keys
	// may have gaps of any size, which the recount skips.
	nextQuery := "SELECT LEAST((SELECT " + idx + " + 1 FROM " + t + " WHERE " + key + " >= $1::bigint ORDER BY " + key + " LIMIT 1), " +
		"(SELECT MIN(page) FROM " + pages + " WHERE page >= $2::bigint))"
	for lo := int64(1); ; {
		kLo, _, ok := s.bounds(lo)
		if !ok {
			break
		}
		var next sql.NullInt64
		if err := s.db.QueryRowContext(ctx, nextQuery, kLo, lo).Scan(&next); err != nil {
			return nil, err
		}
		if !next.Valid {
			break
		}
		lo = max(lo, next.Int64)
		hi := lo + recountBatch - 1
		kLo, _, ok = s.bounds(lo)
		if !ok {
			break
		}
		_, kHi, ok := s.bounds(hi)
		if !ok {
			hi, kHi = lo, math.MaxInt64 // the last page there can be
		}
		q := "WITH counted AS (SELECT " + idx + " + 1 AS page, COUNT(*) AS n FROM " + t +
			" WHERE " + key + " >= $1::bigint AND " + key + " <= $2::bigint AND (" + s.sum.filter + ") GROUP BY 1) " +
			"INSERT INTO " + pages + " (page, listed, changes, changed_at) " +
			"SELECT g, COALESCE(counted.n, 0), 1, date_trunc('second', clock_timestamp()) FROM generate_series($3::bigint, $4::bigint) g " +
			"LEFT JOIN counted ON counted.page = g WHERE counted.n IS NOT NULL OR EXISTS (SELECT 1 FROM " + pages + " p WHERE p.page = g) " +
			"ON CONFLICT (page) DO UPDATE SET listed = excluded.listed, changes = " + pages + ".changes + 1, " +
			"changed_at = GREATEST(" + pages + ".changed_at + interval '1 second', excluded.changed_at)"
		if _, err := s.db.ExecContext(ctx, q, kLo, kHi, lo, hi); err != nil {
			return nil, err
		}
		if hi == math.MaxInt64 || kHi == math.MaxInt64 {
			break
		}
		lo = hi + 1
	}
	if s.sum.rowTimes() {
		rows := rowsName(t)
		for _, q := range []string{
			"DELETE FROM " + rows + " r WHERE NOT EXISTS (SELECT 1 FROM " + t + " WHERE " + t + "." + key + " = r.sitemap_key)",
			s.fillRowTimes(),
		} {
			if _, err := s.db.ExecContext(ctx, q); err != nil {
				return nil, err
			}
		}
	}
	rows, err := s.db.QueryContext(ctx, "SELECT page FROM "+pages+" WHERE page > 0 ORDER BY page")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var n int64
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}
