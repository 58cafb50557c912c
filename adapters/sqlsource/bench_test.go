package sqlsource_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/freshmap/sitemap/adapters/sqlsource"
	"github.com/freshmap/sitemap/internal/testenv"
)

// The benchmarks read a products table of SITEMAP_BENCH_ROWS rows (default
// 200,000; keys 0 to rows-1, one row in 50 unpublished), built once per
// database by each top-level benchmark that needs it, with one INSERT …
// SELECT (a recursive CTE in SQLite, generate_series in PostgreSQL), and
// dropped when that benchmark ends. Tests never build it.
const envBenchRows = "SITEMAP_BENCH_ROWS"

func benchRows(b *testing.B) int64 {
	s := os.Getenv(envBenchRows)
	if s == "" {
		return 200_000
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 1 {
		b.Fatalf("%s=%q: want a positive number", envBenchRows, s)
	}
	return n
}

// TestMain runs the tests through testenv.Main, which reports the database
// servers whose tests were skipped.
func TestMain(m *testing.M) {
	testenv.Main(m)
}

// benchTable is a big products table in one database.
type benchTable struct {
	db    *sql.DB
	table string
	dir   string // SQLite's temporary folder
	src   *sqlsource.Source
	pages int64
}

func (bt *benchTable) drop() {
	if bt.dir != "" {
		bt.db.Close()
		os.RemoveAll(bt.dir)
		return
	}
	bt.db.Exec("DROP TABLE " + bt.table)
	bt.db.Close()
}

// benchTables are the tables of rows rows of one top-level benchmark, by
// database, which its sub-benchmarks share.
type benchTables struct {
	rows   int64
	tables map[string]*benchTable
}

// newBenchTables returns the tables of b, a top-level benchmark, which are
// built by get and dropped when b ends.
func newBenchTables(b *testing.B, rows int64) *benchTables {
	bts := &benchTables{rows: rows, tables: map[string]*benchTable{}}
	b.Cleanup(func() {
		for _, bt := range bts.tables {
			bt.drop()
		}
	})
	return bts
}

// get returns the table in database name, building it on first use, or
// stops b when the database is not there (see openServer).
func (bts *benchTables) get(b testing.TB, name string) *benchTable {
	if bt := bts.tables[name]; bt != nil {
		return bt
	}
	rows := bts.rows
	bt := &benchTable{table: "sqlsrc_bench_" + strconv.FormatInt(time.Now().UnixNano(), 36)}
	var err error
	var build []string
	const slug, when = "'product-' || i", "1700000000 + i * 7" // Unix seconds
	switch name {
	case "sqlite":
		if bt.dir, err = os.MkdirTemp("", "sqlsource-bench-"); err != nil {
			b.Fatal(err)
		}
		bt.db, err = sql.Open("sqlite", "file:"+filepath.Join(bt.dir, "bench.db")+"?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)")
		build = []string{
			"CREATE TABLE " + bt.table + " (id INTEGER PRIMARY KEY, slug TEXT NOT NULL, updated_at TEXT, published BOOLEAN NOT NULL)",
			fmt.Sprintf("WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < %d) "+
				"INSERT INTO %s SELECT i, %s, strftime('%%Y-%%m-%%d %%H:%%M:%%S', %s, 'unixepoch'), i %% 50 <> 25 FROM n",
				rows-1, bt.table, slug, when),
			"ANALYZE",
		}
	case "postgres":
		bt.db, _ = openServer(b, name)
		build = []string{
			"CREATE TABLE " + bt.table + " (id BIGINT NOT NULL, slug TEXT NOT NULL, updated_at TIMESTAMPTZ, published BOOLEAN NOT NULL)",
			fmt.Sprintf("INSERT INTO %s SELECT i, %s, to_timestamp(%s), i %% 50 <> 25 FROM generate_series(0, %d) AS g(i)",
				bt.table, slug, when, rows-1),
			"ALTER TABLE " + bt.table + " ADD PRIMARY KEY (id)",
			"VACUUM ANALYZE " + bt.table,
		}
	case "mysql": // the Sequence engine's seq_0_to_N tables, which MariaDB has built in
		bt.db, _ = openServer(b, name)
		build = []string{
			"CREATE TABLE " + bt.table + " (id BIGINT PRIMARY KEY, slug VARCHAR(255) NOT NULL, updated_at DATETIME, published BOOLEAN NOT NULL)",
			fmt.Sprintf("INSERT INTO %s SELECT seq, CONCAT('product-', seq), FROM_UNIXTIME(1700000000 + seq * 7), seq %% 50 <> 25 FROM seq_0_to_%d",
				bt.table, rows-1),
			"ANALYZE TABLE " + bt.table,
		}
	}
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	for _, q := range build {
		if _, err := bt.db.Exec(q); err != nil {
			bt.drop()
			b.Fatalf("%s: %v", q, err)
		}
	}
	b.Logf("%s: built %d rows in %v", name, rows, time.Since(start).Round(time.Millisecond))
	bt.src, err = sqlsource.New(bt.db, sqlsource.Config{
		Table:       bt.table,
		Key:         "id",
		LocTemplate: "https://shop.example.com/p/{slug}",
		LastMod:     "updated_at",
		Filter:      "published",
	})
	if err != nil {
		bt.drop()
		b.Fatal(err)
	}
	bt.pages = (rows + 49_999) / 50_000 // keys 0 to rows-1; page 1 holds keys 0-49,999
	bts.tables[name] = bt
	return bt
}

// BenchmarkSQLPage reads the first, a middle and the last page of a big
// table: a key range scan, so all three should cost the same.
func BenchmarkSQLPage(b *testing.B) {
	tables := newBenchTables(b, benchRows(b))
	for _, name := range []string{"sqlite", "postgres"} {
		b.Run(name, func(b *testing.B) {
			bt := tables.get(b, name)
			for _, at := range []struct {
				name string
				page int64
			}{{"first", 1}, {"middle", (bt.pages + 1) / 2}, {"last", bt.pages}} {
				b.Run(at.name, func(b *testing.B) {
					ctx := context.Background()
					var size int64
					var urls int
					for u, err := range bt.src.URLs(ctx, at.page) {
						if err != nil {
							b.Fatal(err)
						}
						size += int64(len(u.Loc))
						urls++
					}
					if urls == 0 {
						b.Fatalf("page %d is empty", at.page)
					}
					b.SetBytes(size) // bytes of locs streamed
					b.ReportAllocs()
					for b.Loop() {
						n := 0
						for _, err := range bt.src.URLs(ctx, at.page) {
							if err != nil {
								b.Fatal(err)
							}
							n++
						}
						if n != urls {
							b.Fatalf("%d URLs, want %d", n, urls)
						}
					}
					b.ReportMetric(float64(urls), "urls/op")
				})
			}
		})
	}
}

// BenchmarkSQLPages lists the pages of a big table: one range aggregate per page.
func BenchmarkSQLPages(b *testing.B) {
	tables := newBenchTables(b, benchRows(b))
	for _, name := range []string{"sqlite", "postgres"} {
		b.Run(name, func(b *testing.B) {
			bt := tables.get(b, name)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				n := int64(0)
				for _, err := range bt.src.Pages(ctx) {
					if err != nil {
						b.Fatal(err)
					}
					n++
				}
				if n != bt.pages {
					b.Fatalf("%d pages, want %d", n, bt.pages)
				}
			}
		})
	}
}
