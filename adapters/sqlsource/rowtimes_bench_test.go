package sqlsource_test

import (
	"context"
	"strconv"
	"testing"
)

// BenchmarkRowTimesPage reads the middle page of a big table as
// BenchmarkSQLPage does (plain), then through a Source whose summary keeps
// row times, so that its page query joins them: with no row time yet
// (none), and with one for every row of the page (all, written here
// directly rather than through the triggers).
func BenchmarkRowTimesPage(b *testing.B) {
	tables := newBenchTables(b, benchRows(b))
	for _, name := range []string{"sqlite", "postgres"} {
		b.Run(name, func(b *testing.B) {
			bt := tables.get(b, name)
			page := (bt.pages + 1) / 2
			src := bt.summarySource(b, "slug", "published")
			for _, mode := range []string{"plain", "none", "all"} {
				s := src
				switch mode {
				case "plain":
					s = bt.src
				case "all":
					lo, hi := strconv.FormatInt((page-1)*50_000, 10), strconv.FormatInt(page*50_000-1, 10)
					if _, err := bt.db.Exec("INSERT INTO " + bt.table + "_sitemap_rows SELECT id, updated_at FROM " + bt.table +
						" WHERE id >= " + lo + " AND id <= " + hi); err != nil {
						b.Fatal(err)
					}
				}
				b.Run(mode, func(b *testing.B) {
					ctx := context.Background()
					b.ReportAllocs()
					for b.Loop() {
						n := 0
						for _, err := range s.URLs(ctx, page) {
							if err != nil {
								b.Fatal(err)
							}
							n++
						}
						if n == 0 {
							b.Fatalf("page %d is empty", page)
						}
					}
				})
			}
		})
	}
}
