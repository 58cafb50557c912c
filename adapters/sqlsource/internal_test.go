package sqlsource

import (
	"database/sql"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"
)

func TestDetectDialect(t *testing.T) {
	for driver, want := range map[string]Dialect{
		"sqlite": SQLite,
		"pgx":    Postgres,
		"mysql":  MySQL,
	} {
		dsn := map[string]string{"sqlite": ":memory:", "pgx": "postgres://u@127.0.0.1:1/db", "mysql": "u@tcp(127.0.0.1:1)/db"}[driver]
		db, err := sql.Open(driver, dsn) // does not connect
		if err != nil {
			t.Fatal(err)
		}
		got, err := detectDialect(db)
		if got != want || err != nil {
			t.Errorf("%s: %q, %v; want %q", driver, got, err, want)
		}
		src, err := New(db, Config{Table: "t", Key: "id", Loc: "u"})
		if err != nil || src.dialect != want {
			t.Errorf("New on %s: %v", driver, err)
		}
		db.Close()
	}
}

func TestRebind(t *testing.T) {
	for in, want := range map[string]string{
		"SELECT a FROM t WHERE k BETWEEN ? AND ?":                  "SELECT a FROM t WHERE k BETWEEN $1 AND $2",
		"SELECT '?', \"a?\" FROM t WHERE k = ? -- why?\nAND j = ?": "SELECT '?', \"a?\" FROM t WHERE k = $1 -- why?\nAND j = $2",
		"SELECT 'it''s ?' WHERE k = ?":                             "SELECT 'it''s ?' WHERE k = $1",
		"SELECT a FROM t WHERE k BETWEEN $1 AND $2":                "SELECT a FROM t WHERE k BETWEEN $1 AND $2",
		"SELECT a FROM t WHERE j ? 'x' AND k BETWEEN $1 AND $2":    "SELECT a FROM t WHERE j ? 'x' AND k BETWEEN $1 AND $2",
		"SELECT a - 1 FROM t WHERE k = ? -- ?":                     "SELECT a - 1 FROM t WHERE k = $1 -- ?",
	} {
		if got := Postgres.Rebind(in); got != want {
			t.Errorf("Postgres.Rebind(%q) = %q, want %q", in, got, want)
		}
		if got := MySQL.Rebind(in); got != in {
			t.Errorf("MySQL.Rebind changed %q", in)
		}
		if got := SQLite.Rebind(in); got != in {
			t.Errorf("SQLite.Rebind changed %q", in)
		}
	}
}

func TestTemplate(t *testing.T) {
	tpl, err := parseTemplate("https://e.com/{+dir}/{name}?id={id}&n={name}")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(tpl.cols, ","); got != "dir,name,id" {
		t.Errorf("cols %s", got)
	}
	vals := []sql.RawBytes{[]byte("a/b c"), []byte("x&y=z/ü~.-_"), []byte("42")}
	got, err := tpl.expand(nil, vals)
	if want := "https://e.com/a/b%20c/x%26y%3Dz%2F%C3%BC~.-_?id=42&n=x%26y%3Dz%2F%C3%BC~.-_"; string(got) != want || err != nil {
		t.Errorf("expand = %s, %v\nwant %s", got, err, want)
	}
	vals[1] = nil
	if _, err := tpl.expand(nil, vals); err == nil || !strings.Contains(err.Error(), "name is NULL") {
		t.Errorf("NULL value: %v", err)
	}
	// An empty value is not NULL.
	vals[1] = sql.RawBytes{}
	if got, err := tpl.expand(nil, vals); string(got) != "https://e.com/a/b%20c/?id=42&n=" || err != nil {
		t.Errorf("empty value: %s, %v", got, err)
	}
}

func TestTimeScanner(t *testing.T) {
	utc := func(y int, mo time.Month, d, h, mi, s int) time.Time {
		return time.Date(y, mo, d, h, mi, s, 0, time.UTC)
	}
	for _, tc := range []struct {
		in   any
		want time.Time
	}{
		{nil, time.Time{}},
		{time.Date(2024, 1, 2, 3, 4, 5, 999, time.FixedZone("", -3600)), utc(2024, 1, 2, 4, 4, 5)},
		{time.Time{}, time.Time{}},
		{int64(1700000000), utc(2023, 11, 14, 22, 13, 20)},
		{"2024-01-02", utc(2024, 1, 2, 0, 0, 0)},
		{[]byte("2024-01-02 03:04:05"), utc(2024, 1, 2, 3, 4, 5)},
		{"2024-01-02 03:04:05.999999", utc(2024, 1, 2, 3, 4, 5)},
		{"2024-01-02T03:04:05Z", utc(2024, 1, 2, 3, 4, 5)},
		{"2024-01-02T03:04:05.5+01:00", utc(2024, 1, 2, 2, 4, 5)},
		{"2024-01-02 03:04:05+0100", utc(2024, 1, 2, 2, 4, 5)},
		{"2024-01-02 03:04:05+01", utc(2024, 1, 2, 2, 4, 5)},
		{"2024-01-02 03:04", utc(2024, 1, 2, 3, 4, 0)},
		{"2024-01-02T03:04Z", utc(2024, 1, 2, 3, 4, 0)},
		{"2024-01-02 03:04:05.123 +0100 CET m=+1.5", utc(2024, 1, 2, 2, 4, 5)},
		{" 2024-01-02 ", utc(2024, 1, 2, 0, 0, 0)},
		{"0000-00-00 00:00:00", time.Time{}},
		{"2024-02-29 23:59:59", utc(2024, 2, 29, 23, 59, 59)},
		{"2024-12-31T00:00:00Z", utc(2024, 12, 31, 0, 0, 0)},
		{"1999-01-01", utc(1999, 1, 1, 0, 0, 0)},
		{"", time.Time{}},
	} {
		var s timeScanner
		if err := s.Scan(tc.in); err != nil || s.t != tc.want {
			t.Errorf("Scan(%#v) = %v, %v; want %v", tc.in, s.t, err, tc.want)
		}
	}
	for _, bad := range []any{2460000.5, "yesterday", "2024-02-30", "2023-02-29 00:00:00", "2024-04-31", "2024-13-01 00:00:00",
		"2024-00-10", "2024-01-00", "2024-01-01 24:00:00", "2024-01-01 12:60:00", "2024-01-01 12:00:60", "2024-01-01 1a:00:00",
		"2024-01-01X12:00:00", "02/01/2024", true} {
		var s timeScanner
		if err := s.Scan(bad); err == nil {
			t.Errorf("Scan(%#v) = %v, want an error", bad, s.t)
		}
	}
}

func TestBounds(t *testing.T) {
	for _, tc := range []struct {
		size, start, n int64
		lo, hi         int64
		ok             bool
	}{
		{10, 0, 1, 0, 9, true},
		{10, 0, 2, 10, 19, true},
		{10, 1, 1, 1, 10, true},
		{10, -5, 1, -5, 4, true},
		{50000, 0, 3, 100000, 149999, true},
		{10, 0, 0, 0, 0, false},
		{10, 0, -1, 0, 0, false},
		{10, 0, math.MaxInt64, 0, 0, false},
		{10, math.MaxInt64 - 14, 2, math.MaxInt64 - 4, math.MaxInt64, true},
		{10, math.MaxInt64 - 14, 3, 0, 0, false},
		{10, math.MaxInt64 - 5, 1, math.MaxInt64 - 5, math.MaxInt64, true},
		{10, math.MinInt64, 1, math.MinInt64, math.MinInt64 + 9, true},
		{1, 0, math.MaxInt64, math.MaxInt64 - 1, math.MaxInt64 - 1, true},
	} {
		s := &Source{size: tc.size, start: tc.start}
		lo, hi, ok := s.bounds(tc.n)
		if ok != tc.ok || ok && (lo != tc.lo || hi != tc.hi) {
			t.Errorf("size %d start %d: bounds(%d) = %d, %d, %v; want %d, %d, %v", tc.size, tc.start, tc.n, lo, hi, ok, tc.lo, tc.hi, tc.ok)
		}
	}
}

func TestQueries(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, tc := range []struct {
		cfg                  Config
		page, pageInfo, next string
	}{
		{Config{Table: "p", Key: "id", Loc: "url", Dialect: Postgres},
			"SELECT id, url FROM p WHERE id >= $1::bigint AND id <= $2::bigint ORDER BY id",
			"SELECT COUNT(*), SUM(id - $1::bigint) FROM p WHERE id >= $1::bigint AND id <= $2::bigint",
			"SELECT id FROM p WHERE id >= $1::bigint ORDER BY id LIMIT 1"},
		{Config{Table: "select id, url from p", Key: "id", Loc: "url", LastMod: "m", Filter: "ok", PageSize: 10, KeyStart: -3, Dialect: MySQL},
			"SELECT id, m, url FROM (select id, url from p) AS sqlsource_rows WHERE id >= ? AND id <= ? AND (ok) ORDER BY id",
			"SELECT COUNT(*), SUM(id - ?), MAX(m) FROM (select id, url from p) AS sqlsource_rows WHERE id >= ? AND id <= ? AND (ok)",
			"SELECT id FROM (select id, url from p) AS sqlsource_rows WHERE id >= ? AND (ok) ORDER BY id LIMIT 1"},
		{Config{Table: "selection", Key: "k", LocTemplate: "https://e.com/{a}/{b}/{a}", KeyStart: 1, Dialect: SQLite},
			"SELECT k, a, b FROM selection WHERE k >= ? AND k <= ? ORDER BY k",
			"SELECT COUNT(*), SUM(k - ?) FROM selection WHERE k >= ? AND k <= ?",
			"SELECT k FROM selection WHERE k >= ? ORDER BY k LIMIT 1"},
		{Config{Table: "p", Key: "id", LocTemplate: "/p/{slug}", Columns: []string{"title", "slug"}, Dialect: SQLite,
			Annotate: func(*Row, *sitemap.URL) error { return nil }},
			"SELECT id, slug, title, slug FROM p WHERE id >= ? AND id <= ? ORDER BY id",
			"SELECT COUNT(*), SUM(id - ?) FROM p WHERE id >= ? AND id <= ?",
			"SELECT id FROM p WHERE id >= ? ORDER BY id LIMIT 1"},
		// The key in the template is selected once, and its text made from it.
		{Config{Table: "p", Key: "id", LocTemplate: "/p/{id}/{slug}", Dialect: SQLite},
			"SELECT id, slug FROM p WHERE id >= ? AND id <= ? ORDER BY id",
			"SELECT COUNT(*), SUM(id - ?) FROM p WHERE id >= ? AND id <= ?",
			"SELECT id FROM p WHERE id >= ? ORDER BY id LIMIT 1"},
	} {
		s, err := New(db, tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if s.pageQuery != tc.page {
			t.Errorf("page query\n got %s\nwant %s", s.pageQuery, tc.page)
		}
		if s.pageInfoQuery != tc.pageInfo {
			t.Errorf("page info query\n got %s\nwant %s", s.pageInfoQuery, tc.pageInfo)
		}
		if s.nextKeyQuery != tc.next {
			t.Errorf("next key query\n got %s\nwant %s", s.nextKeyQuery, tc.next)
		}
	}
}

func TestPageOf(t *testing.T) {
	for _, tc := range []struct{ size, start, key, page int64 }{
		{10, 0, 0, 1}, {10, 0, 9, 1}, {10, 0, 10, 2}, {10, 1, 10, 1}, {10, 1, 11, 2},
		{10, -5, -5, 1}, {10, -5, 5, 2}, {50000, 0, math.MaxInt64, math.MaxInt64/50000 + 1},
		{10, math.MinInt64, math.MinInt64 + 10, 2},
		// No page: below KeyStart, or past the last page an int64 numbers.
		{10, 1, 0, 0}, {10, 0, math.MinInt64, 0}, {1, 0, math.MaxInt64, 0}, {10, math.MinInt64, 100, 0},
	} {
		s := &Source{size: tc.size, start: tc.start}
		if got := s.PageOf(tc.key); got != tc.page {
			t.Errorf("size %d start %d: PageOf(%d) = %d, want %d", tc.size, tc.start, tc.key, got, tc.page)
		}
		if lo, hi, ok := s.bounds(tc.page); ok && (tc.key < lo || tc.key > hi) {
			t.Errorf("size %d start %d: key %d not in bounds(%d) = %d..%d", tc.size, tc.start, tc.key, tc.page, lo, hi)
		}
	}
}

// TestParseISO checks the fast path against time.Parse on every day of a
// leap and a common year and on malformed input.
func TestParseISO(t *testing.T) {
	for d := time.Date(2023, 1, 1, 13, 14, 15, 0, time.UTC); d.Year() < 2025; d = d.AddDate(0, 0, 1) {
		for _, layout := range []string{"2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02T15:04:05Z", "2006-01-02"} {
			text := d.Format(layout)
			want, _ := time.Parse(layout, text)
			if got, ok := parseISO(text); !ok || got != want {
				t.Fatalf("parseISO(%q) = %v, %v; want %v", text, got, ok, want)
			}
		}
	}
	for _, bad := range []string{"", "2024-1-01", "2024-01-01 00:00", "2024-01-01 00:00:00.5", "2024-01-01 00:00:00+01:00", "+024-01-01", "2024-02-30"} {
		if got, ok := parseISO(bad); ok {
			t.Errorf("parseISO(%q) = %v, want false", bad, got)
		}
	}
}
