package sqlsource

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"iter"
	"math"
	"strconv"
	"time"

	"github.com/freshmap/sitemap"
)

// bounds returns the keys lo through hi (inclusive) of page n, or false if
// there is no such page.
func (s *Source) bounds(n int64) (lo, hi int64, ok bool) {
	if n < 1 || n-1 > (math.MaxInt64-max(s.start, 0))/s.size {
		return 0, 0, false
	}
	lo = s.start + (n-1)*s.size
	if lo > math.MaxInt64-(s.size-1) {
		return lo, math.MaxInt64, true
	}
	return lo, lo + s.size - 1, true
}

// Pages reports the pages that hold at least one row, in increasing order.
// It walks the key space a page at a time with one aggregate query per
// page, a range scan of the key index that reports the page's row count,
// the sum of its keys' offsets and its newest lastmod; when a page is empty
// it seeks the next listed key (ORDER BY key LIMIT 1) to skip the gap. So a
// catalogue of P pages costs about P+2 queries, and the work of each is
// bounded by its page. (One GROUP BY over the whole table costs two to
// three times more: the databases sort every row to group them.)
//
// With Config.Summary set, it reads the page summary instead, one row per
// page (see Source.InstallSummary).
func (s *Source) Pages(ctx context.Context) iter.Seq2[sitemap.PageInfo, error] {
	if s.sum.on {
		return s.summaryPages(ctx)
	}
	return func(yield func(sitemap.PageInfo, error) bool) {
		n := int64(1)
		for {
			lo, hi, ok := s.bounds(n)
			if !ok {
				return
			}
			info, err := s.pageInfo(ctx, s.db, n, lo, hi)
			if err != nil {
				yield(sitemap.PageInfo{}, fmt.Errorf("sqlsource: pages: %w", err))
				return
			}
			if hi == math.MaxInt64 {
				if info.Number != 0 {
					yield(info, nil)
				}
				return
			}
			if info.Number != 0 {
				if !yield(info, nil) {
					return
				}
				n++
				continue
			}
			key, ok, err := s.nextKey(ctx, hi+1)
			if err != nil {
				yield(sitemap.PageInfo{}, fmt.Errorf("sqlsource: pages: %w", err))
				return
			}
			if !ok {
				return
			}
			next := s.PageOf(key)
			switch {
			case key < s.start || next != 0 && next <= n:
				yield(sitemap.PageInfo{}, fmt.Errorf("sqlsource: pages: key %d after page %d is out of order: is the key an integer column?", key, n))
				return
			case next == 0:
				return // past the last page an int64 can number: not listed
			}
			n = next
		}
	}
}

// PageOf returns the number of the page that holds the row whose key is
// key, listed or not, so an application can say "product 123456 changed"
// without knowing the page arithmetic:
//
//	sm.Invalidate("products", src.PageOf(123456))
//
// With PageSize 50,000 and KeyStart 0, keys 0 to 49,999 are on page 1 and
// key 50,000 is on page 2. A key below KeyStart is on no page, and PageOf
// returns 0, which Invalidate ignores; so does a key past the last page
// an int64 can number (only with a tiny PageSize or a very negative
// KeyStart).
func (s *Source) PageOf(key int64) int64 {
	if key < s.start {
		return 0
	}
	n := uint64(key-s.start)/uint64(s.size) + 1 // key-start fits in a uint64
	if n > math.MaxInt64 {
		return 0
	}
	if _, hi, ok := s.bounds(int64(n)); !ok || key > hi {
		return 0
	}
	return int64(n)
}

// pageInfo reads the aggregate of page n, keys lo to hi, through db. Its
// Number is zero if the page has no listed row.
func (s *Source) pageInfo(ctx context.Context, db execer, n, lo, hi int64) (sitemap.PageInfo, error) {
	count, sum, lm, err := s.aggregate(ctx, db, lo, hi)
	if err != nil || count == 0 {
		return sitemap.PageInfo{}, err
	}
	version := make([]byte, 0, 48)
	version = strconv.AppendInt(version, count, 10)
	version = append(version, '.')
	version = strconv.AppendInt(version, sum, 10)
	if !lm.IsZero() {
		version = append(version, '.')
		version = strconv.AppendInt(version, lm.Unix(), 10)
	}
	return sitemap.PageInfo{Number: n, LastMod: lm, Version: string(version)}, nil
}

// aggregate reads, through db, the count of listed rows with keys lo to
// hi, the sum of their offsets from lo and their newest lastmod.
func (s *Source) aggregate(ctx context.Context, db execer, lo, hi int64) (count, sum int64, lastMod time.Time, err error) {
	args := []any{lo, lo, hi}
	if s.dialect == Postgres {
		args = args[1:]
	}
	var total sql.NullInt64
	var lm timeScanner
	dest := []any{&count, &total, &lm}
	if !s.hasLM {
		dest = dest[:2]
	}
	if err := db.QueryRowContext(ctx, s.pageInfoQuery, args...).Scan(dest...); err != nil {
		return 0, 0, time.Time{}, err
	}
	return count, total.Int64, lm.t, nil
}

// nextKey returns the first listed key at or after from, if there is one.
func (s *Source) nextKey(ctx context.Context, from int64) (int64, bool, error) {
	var key int64
	switch err := s.db.QueryRowContext(ctx, s.nextKeyQuery, from).Scan(&key); {
	case errors.Is(err, sql.ErrNoRows):
		return 0, false, nil
	case err != nil:
		return 0, false, err
	}
	return key, true, nil
}
