package sqlsource_test

import (
	"context"
	"database/sql"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/sqlsource"
)

// TestBaseURL reads tables that store paths, absolute URLs and
// network-path references ("//host/path") through every kind of loc, the
// ready-made Loaders, a custom Loader and Annotate.
func TestBaseURL(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		tab := d.createTable(t, "paths",
			col("id", "INTEGER PRIMARY KEY", "BIGINT PRIMARY KEY", "BIGINT PRIMARY KEY"),
			col("url", "TEXT", "TEXT", "VARCHAR(255)"),
			col("path", "TEXT", "TEXT", "VARCHAR(255)"))
		imgs := d.createTable(t, "images",
			col("id", "INTEGER", "BIGINT", "BIGINT"), col("url", "TEXT", "TEXT", "VARCHAR(255)"), col("license", "TEXT", "TEXT", "VARCHAR(255)"))
		alts := d.createTable(t, "alts",
			col("id", "INTEGER", "BIGINT", "BIGINT"), col("lang", "TEXT", "TEXT", "VARCHAR(16)"), col("href", "TEXT", "TEXT", "VARCHAR(255)"))
		d.exec(t, "INSERT INTO "+tab+" VALUES (1, '/a?x=1', '/x/y'), (2, 'https://other.example.com/abs', '/z'), (3, '//cdn.example.com/c', 'relative')")
		d.exec(t, "INSERT INTO "+imgs+" VALUES (1, '/img/1.jpg', '/license'), (1, 'https://cdn.example.com/2.jpg', NULL), (2, '//cdn.example.com/3.jpg', 'https://l.example.com/x')")
		d.exec(t, "INSERT INTO "+alts+" VALUES (1, 'en', '/a'), (1, 'de', 'https://e.com/de/a'), (2, 'x-default', '//other.example.com/b')")
		const baseURL = "https://e.com/shop/" // the trailing slash is dropped

		for _, tc := range []struct {
			name   string
			cfg    sqlsource.Config
			noBase bool
			want   []string
		}{
			{"column", sqlsource.Config{Loc: "url"}, false, []string{"https://e.com/shop/a?x=1", "https://other.example.com/abs", "https://cdn.example.com/c"}},
			{"column without BaseURL", sqlsource.Config{Loc: "url"}, true, []string{"/a?x=1", "https://other.example.com/abs", "//cdn.example.com/c"}},
			{"template", sqlsource.Config{LocTemplate: "/p/{id}"}, false, []string{"https://e.com/shop/p/1", "https://e.com/shop/p/2", "https://e.com/shop/p/3"}},
			{"template of a path", sqlsource.Config{LocTemplate: "{+path}"}, false, []string{"https://e.com/shop/x/y", "https://e.com/shop/z", "relative"}},
			{"func", sqlsource.Config{Columns: []string{"path"}, LocFunc: func(r *sqlsource.Row) (string, error) { return r.String("path") + "/f", nil }},
				false, []string{"https://e.com/shop/x/y/f", "https://e.com/shop/z/f", "relative/f"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				cfg := tc.cfg
				cfg.Table, cfg.Key, cfg.Dialect = tab, "id", d.dialect
				if !tc.noBase {
					cfg.BaseURL = baseURL
				}
				urls, err := readPage(context.Background(), newSource(t, d.db, cfg), 1)
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

		t.Run("loaders", func(t *testing.T) {
			urls, err := readPage(context.Background(), newSource(t, d.db, sqlsource.Config{Table: tab, Key: "id", Loc: "url", Dialect: d.dialect, BaseURL: baseURL,
				Loaders: []sqlsource.Loader{
					sqlsource.Images("SELECT id, url, NULL, NULL, NULL, license FROM " + imgs + " WHERE id BETWEEN ? AND ?"),
					sqlsource.Alternates("SELECT id, lang, href FROM " + alts + " WHERE id BETWEEN ? AND ?"),
				}}), 1)
			if err != nil || len(urls) != 3 {
				t.Fatalf("%d URLs, %v", len(urls), err)
			}
			wantImages := [][]sitemap.Image{
				{{Loc: "https://e.com/shop/img/1.jpg", License: "https://e.com/shop/license"}, {Loc: "https://cdn.example.com/2.jpg"}},
				{{Loc: "https://cdn.example.com/3.jpg", License: "https://l.example.com/x"}},
				nil,
			}
			wantAlts := [][]sitemap.Alternate{
				{{Hreflang: "en", Href: "https://e.com/shop/a"}, {Hreflang: "de", Href: "https://e.com/de/a"}},
				{{Hreflang: "x-default", Href: "https://other.example.com/b"}},
				nil,
			}
			for i, u := range urls {
				if !reflect.DeepEqual(u.Images, wantImages[i]) || !reflect.DeepEqual(u.Alternates, wantAlts[i]) {
					t.Errorf("%s: images %+v, alternates %+v; want %+v, %+v", u.Loc, u.Images, u.Alternates, wantImages[i], wantAlts[i])
				}
			}
		})

		// What a custom Loader or Annotate sets is resolved too, without
		// changing their slices, which are shared by every URL.
		t.Run("custom", func(t *testing.T) {
			sharedImages := []sitemap.Image{{Loc: "https://cdn.example.com/a.jpg"}, {Loc: "/b.jpg", License: "//l.example.com/l"}}
			sharedAlts := []sitemap.Alternate{{Hreflang: "de", Href: "/de"}}
			imagesCopy, altsCopy := slices.Clone(sharedImages), slices.Clone(sharedAlts)
			urls, err := readPage(context.Background(), newSource(t, d.db, sqlsource.Config{Table: tab, Key: "id", Loc: "url", Dialect: d.dialect, BaseURL: baseURL,
				Loaders: []sqlsource.Loader{func(context.Context, *sqlsource.Page) (sqlsource.Merge, error) {
					return func(_ int64, u *sitemap.URL) { u.Images = sharedImages }, nil
				}},
				Annotate: func(r *sqlsource.Row, u *sitemap.URL) error {
					u.Alternates = sharedAlts
					return nil
				}}), 1)
			if err != nil || len(urls) != 3 {
				t.Fatalf("%d URLs, %v", len(urls), err)
			}
			wantImages := []sitemap.Image{{Loc: "https://cdn.example.com/a.jpg"}, {Loc: "https://e.com/shop/b.jpg", License: "https://l.example.com/l"}}
			wantAlts := []sitemap.Alternate{{Hreflang: "de", Href: "https://e.com/shop/de"}}
			for _, u := range urls {
				if !reflect.DeepEqual(u.Images, wantImages) || !reflect.DeepEqual(u.Alternates, wantAlts) {
					t.Errorf("%s: images %+v, alternates %+v; want %+v, %+v", u.Loc, u.Images, u.Alternates, wantImages, wantAlts)
				}
			}
			if !reflect.DeepEqual(sharedImages, imagesCopy) || !reflect.DeepEqual(sharedAlts, altsCopy) {
				t.Errorf("the shared slices were changed: %+v, %+v", sharedImages, sharedAlts)
			}
		})
	})
}

func TestBaseURLErrors(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, bad := range []string{"example.com", "/shop", "ftp://example.com", "https://", "https://example.com/?q=1",
		"https://example.com/?", "https://example.com/#top", "https://example.com#", "https://user@example.com", "https://exa mple.com", "mailto:a@example.com"} {
		if src, err := sqlsource.New(db, sqlsource.Config{Table: "t", Key: "id", Loc: "url", BaseURL: bad}); err == nil || src != nil || !strings.HasPrefix(err.Error(), "sqlsource: Config.BaseURL") {
			t.Errorf("BaseURL %q: %v, %v; want an error", bad, src, err)
		}
	}
	for _, good := range []string{"https://example.com", "http://example.com:8080/", "https://example.com/shop/"} {
		if _, err := sqlsource.New(db, sqlsource.Config{Table: "t", Key: "id", Loc: "url", BaseURL: good}); err != nil {
			t.Errorf("BaseURL %q: %v", good, err)
		}
	}
}
