package sqlsource_test

import (
	"context"
	"testing"
	"time"

	"github.com/freshmap/sitemap/adapters/sqlsource"
)

// summarySource returns a Source over bt's table that reads a page summary,
// installed here and removed when b ends.
// With significant, its triggers count changes to those columns only, and
// keep the row times (rowtimes.go).
func (bt *benchTable) summarySource(b *testing.B, significant ...string) *sqlsource.Source {
	src, err := sqlsource.New(bt.db, sqlsource.Config{
		Table:       bt.table,
		Key:         "id",
		LocTemplate: "https://shop.example.com/p/{slug}",
		LastMod:     "updated_at",
		Filter:      "published",
		Summary:     true,
		Significant: significant,
	})
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	installSummary(b, src)
	b.Logf("installed the summary in %v", time.Since(start).Round(time.Millisecond))
	return src
}

// BenchmarkPagesSummary lists the pages of a big table from its page
// summary: one row per page, beside BenchmarkSQLPages.
func BenchmarkPagesSummary(b *testing.B) {
	tables := newBenchTables(b, benchRows(b))
	for _, name := range []string{"sqlite", "postgres"} {
		b.Run(name, func(b *testing.B) {
			bt := tables.get(b, name)
			src := bt.summarySource(b)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				n := int64(0)
				for _, err := range src.Pages(ctx) {
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

// BenchmarkWrite runs one-row INSERT, UPDATE and DELETE statements, each
// its own transaction, on a big table without triggers, then with the
// change table's, then with those of a summary that counts changes to
// slug and published only (significant). Two UPDATEs: of slug and
// updated_at (update), and of updated_at alone (update-insignificant),
// which the significant triggers do not record. No Watch runs: the
// change table grows (adapters/sqlsource/internal/cmd/writecost measures writers with Watch
// consuming). Each
// writes rows of its own: inserts past the last key, updates from a
// quarter (and three eighths) of the keys on, deletes from the first key
// (plain), from half of them (summary) or five eighths (significant).
func BenchmarkWrite(b *testing.B) {
	tables := newBenchTables(b, benchRows(b))
	for _, name := range []string{"sqlite", "postgres", "mysql"} {
		b.Run(name, func(b *testing.B) {
			bt := tables.get(b, name)
			rows := tables.rows
			d := sqlsource.Dialect(name)
			ins := d.Rebind("INSERT INTO " + bt.table + " (id, slug, updated_at, published) VALUES (?, ?, ?, ?)")
			upd := d.Rebind("UPDATE " + bt.table + " SET slug = ?, updated_at = ? WHERE id = ?")
			touch := d.Rebind("UPDATE " + bt.table + " SET updated_at = ? WHERE id = ?")
			del := d.Rebind("DELETE FROM " + bt.table + " WHERE id = ?")
			when := any(time.Now())
			if name == "sqlite" {
				when = time.Now().UTC().Format("2006-01-02 15:04:05")
			}
			next := map[string]int64{"insert": rows, "update": rows / 4, "update-insignificant": rows * 3 / 8, "delete": 0}
			var sum *sqlsource.Source
			for _, mode := range []string{"plain", "summary", "significant"} {
				switch mode {
				case "summary":
					sum = bt.summarySource(b)
					next["delete"] = rows / 2
				case "significant":
					if err := sum.RemoveSummary(context.Background()); err != nil {
						b.Fatal(err)
					}
					bt.summarySource(b, "slug", "published")
					next["delete"] = rows * 5 / 8
				}
				b.Run(mode, func(b *testing.B) {
					for _, op := range []string{"insert", "update", "update-insignificant", "delete"} {
						b.Run(op, func(b *testing.B) {
							ctx := context.Background()
							for b.Loop() {
								k := next[op]
								next[op]++
								var err error
								switch op {
								case "insert":
									_, err = bt.db.ExecContext(ctx, ins, k, "new", when, true)
								case "update":
									_, err = bt.db.ExecContext(ctx, upd, "changed", when, k)
								case "update-insignificant":
									_, err = bt.db.ExecContext(ctx, touch, when, k)
								case "delete":
									_, err = bt.db.ExecContext(ctx, del, k)
								}
								if err != nil {
									b.Fatal(err)
								}
							}
						})
					}
				})
			}
		})
	}
}

// BenchmarkWatchPoll is Watch's read of an empty change table, as it
// polls between writes: one index range scan of no row.
func BenchmarkWatchPoll(b *testing.B) {
	tables := newBenchTables(b, benchRows(b))
	for _, name := range []string{"sqlite", "postgres", "mysql"} {
		b.Run(name, func(b *testing.B) {
			bt := tables.get(b, name)
			bt.summarySource(b)
			query := "SELECT id, sitemap_key, sitemap_kind, sitemap_changed_at FROM " + bt.table + "_sitemap_changes ORDER BY id LIMIT 10000"
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				rows, err := bt.db.QueryContext(ctx, query)
				if err != nil {
					b.Fatal(err)
				}
				for rows.Next() {
					b.Fatal("a change in a table no one writes")
				}
				if err := rows.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
