package sqlsource_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/freshmap/sitemap/adapters/sqlsource"
)

func TestLocForms(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		tab := d.createTable(t, "locs",
			col("id", "INTEGER PRIMARY KEY", "BIGINT PRIMARY KEY", "BIGINT PRIMARY KEY"),
			col("url", "TEXT", "TEXT", "VARCHAR(255)"),
			col("cat", "TEXT", "TEXT", "VARCHAR(255)"),
			col("name", "TEXT", "TEXT", "VARCHAR(255)"))
		d.exec(t, "INSERT INTO "+tab+" VALUES (1, 'https://e.com/a', 'shoes/red', 'Bäder & Öfen'), (2, 'https://e.com/b', 'x', 'a/b?c=d#e')")
		for _, tc := range []struct {
			name string
			cfg  sqlsource.Config
			want []string
		}{
			{"column", sqlsource.Config{Loc: "url"}, []string{"https://e.com/a", "https://e.com/b"}},
			{"template", sqlsource.Config{LocTemplate: "https://e.com/{+cat}/{name}-{id}.html?n={name}"}, []string{
				"https://e.com/shoes/red/B%C3%A4der%20%26%20%C3%96fen-1.html?n=B%C3%A4der%20%26%20%C3%96fen",
				"https://e.com/x/a%2Fb%3Fc%3Dd%23e-2.html?n=a%2Fb%3Fc%3Dd%23e",
			}},
			{"func", sqlsource.Config{Columns: []string{"cat", "name"}, LocFunc: func(r *sqlsource.Row) (string, error) {
				return fmt.Sprintf("https://e.com/%d/%s/%s/%s", r.Key, r.Bytes("cat"), r.String("name"), r.String("missing")), nil
			}}, []string{"https://e.com/1/shoes/red/Bäder & Öfen/", "https://e.com/2/x/a/b?c=d#e/"}},
			{"query", sqlsource.Config{Table: "SELECT id, url || '?q' AS u FROM " + tab + " WHERE id > 1", Loc: "u"}, []string{"https://e.com/b?q"}},
			{"subquery", sqlsource.Config{Table: "(SELECT id AS k, url FROM " + tab + ") AS s", Key: "k", Loc: "url"}, []string{"https://e.com/a", "https://e.com/b"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				cfg := tc.cfg
				if cfg.Table == "" {
					cfg.Table = tab
				}
				if cfg.Key == "" {
					cfg.Key = "id"
				}
				if d.name == "mysql" && tc.name == "query" {
					cfg.Table = "SELECT id, CONCAT(url, '?q') AS u FROM " + tab + " WHERE id > 1"
				}
				src := newSource(t, d.db, cfg)
				if err := src.Check(context.Background()); err != nil {
					t.Fatal(err)
				}
				urls, err := readPage(context.Background(), src, 1)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, u := range urls {
					got = append(got, u.Loc)
				}
				if !slices.Equal(got, tc.want) {
					t.Errorf("locs %q, want %q", got, tc.want)
				}
			})
		}
	})
}
