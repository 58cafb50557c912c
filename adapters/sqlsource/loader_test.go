package sqlsource_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/sqlsource"
)

func TestLoaders(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		ps := products(ids(1, 35)...)
		for i := range ps {
			id := ps[i].ID
			for j := range id % 4 { // 0 to 3 images
				ps[i].Images = append(ps[i].Images, fmt.Sprintf("https://cdn.example.com/%d/%d.jpg", id, j))
			}
			if id%2 == 0 {
				ps[i].Alternates = [][2]string{{"en", ps[i].loc()}, {"de", base + "de/" + ps[i].Slug}, {"x-default", ps[i].loc()}}
			}
		}
		ps[4].Published = false // a filtered row's images are read but not shown
		c := d.createCatalogue(t, ps)
		// Images of a row that is not in the catalogue, between two that are.
		d.exec(t, "INSERT INTO "+c.images+" VALUES (1000, 0, 'https://cdn.example.com/x.jpg', NULL)")

		cfg := c.withExtensions(c.config(10))
		calls := make([]map[int64]int, len(cfg.Loaders))
		for i, load := range cfg.Loaders {
			calls[i] = map[int64]int{}
			cfg.Loaders[i] = func(ctx context.Context, p *sqlsource.Page) (sqlsource.Merge, error) {
				calls[i][p.Number]++
				if p.Hi-p.Lo != 9 || p.Lo != (p.Number-1)*10 || p.DB == nil || p.Dialect != d.dialect {
					t.Errorf("loader given %+v", p)
				}
				return load(ctx, p)
			}
		}
		src := newSource(t, d.db, cfg)
		want, wantLM := model(ps, 10, 0, true)
		got := takeSnapshot(t, src)
		checkSnapshot(t, got, want, wantLM)
		for i := range calls {
			if want := map[int64]int{1: 1, 2: 1, 3: 1, 4: 1}; !reflect.DeepEqual(calls[i], want) {
				t.Errorf("loader %d called %v times per page, want %v", i, calls[i], want)
			}
		}

		// A loader error fails the page before any URL.
		cfg.Loaders = append(cfg.Loaders, func(context.Context, *sqlsource.Page) (sqlsource.Merge, error) {
			return nil, errors.New("loader broke")
		})
		if urls, err := readPage(context.Background(), newSource(t, d.db, cfg), 1); err == nil || !strings.Contains(err.Error(), "loader broke") || len(urls) != 0 {
			t.Errorf("failing loader: %d URLs, %v", len(urls), err)
		}
		// A query of the wrong shape is reported.
		cfg.Loaders = []sqlsource.Loader{sqlsource.Images("SELECT product_id FROM " + c.images + " WHERE product_id BETWEEN ? AND ?")}
		if _, err := readPage(context.Background(), newSource(t, d.db, cfg), 1); err == nil || !strings.Contains(err.Error(), "columns") {
			t.Errorf("one-column image query: %v", err)
		}
	})
}

func TestImageColumnsAndOrder(t *testing.T) {
	d := openDB(t, "sqlite")
	c := d.createCatalogue(t, products(1, 2, 3))
	d.exec(t, "INSERT INTO "+c.images+" VALUES (2, 1, 'https://c.com/b', 'B'), (3, 0, 'https://c.com/c', NULL), (2, 0, 'https://c.com/a', 'A')")
	cfg := c.config(10)
	// Unordered by key; caption, geo location, title and license in that order.
	cfg.Loaders = []sqlsource.Loader{sqlsource.Images("SELECT product_id, url, title, 'Dublin', title, 'https://c.com/l' FROM " + c.images + " WHERE product_id BETWEEN ? AND ? ORDER BY product_id DESC, position")}
	urls, err := readPage(context.Background(), newSource(t, d.db, cfg), 1)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]sitemap.Image{
		nil,
		{{Loc: "https://c.com/a", Caption: "A", GeoLocation: "Dublin", Title: "A", License: "https://c.com/l"}, {Loc: "https://c.com/b", Caption: "B", GeoLocation: "Dublin", Title: "B", License: "https://c.com/l"}},
		{{Loc: "https://c.com/c", GeoLocation: "Dublin", License: "https://c.com/l"}},
	}
	for i, u := range urls {
		if !reflect.DeepEqual(u.Images, want[i]) {
			t.Errorf("URL %d images %+v, want %+v", i, u.Images, want[i])
		}
	}
}

func TestTooManyImages(t *testing.T) {
	d := openDB(t, "sqlite")
	c := d.createCatalogue(t, products(1))
	d.exec(t, "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM n WHERE i < 1200) INSERT INTO "+c.images+" SELECT 1, i, 'https://c.com/' || i, NULL FROM n")
	cfg := c.withExtensions(c.config(10))
	urls, err := readPage(context.Background(), newSource(t, d.db, cfg), 1)
	if err != nil || len(urls) != 1 || len(urls[0].Images) != 1000 || urls[0].Images[999].Loc != "https://c.com/999" {
		t.Fatalf("%d URLs, %v", len(urls), err)
	}
}

// TestQueriesPerPage counts the statements the driver runs: one per page,
// plus one per Loader, however many URLs the page holds.
func TestQueriesPerPage(t *testing.T) {
	d := openDB(t, "sqlite")
	ps := products(ids(1, 120)...)
	for i := range ps {
		ps[i].Images = []string{"https://cdn.example.com/1.jpg", "https://cdn.example.com/2.jpg"}
		ps[i].Alternates = [][2]string{{"en", ps[i].loc()}}
	}
	c := d.createCatalogue(t, ps)
	db, counts := countingDB(t, d.dsn)
	src := newSource(t, db, c.withExtensions(c.config(100)))
	for _, n := range []int64{1, 2} {
		before := counts.queries.Load()
		urls, err := readPage(context.Background(), src, n)
		if err != nil {
			t.Fatal(err)
		}
		if q := counts.queries.Load() - before; q != 3 {
			t.Errorf("page %d (%d URLs): %d queries, want 3", n, len(urls), q)
		}
	}
	// Pages: one aggregate per page, then one for the empty page after the
	// last and a seek that finds nothing.
	before := counts.queries.Load()
	if infos, err := readPages(context.Background(), src); err != nil || len(infos) != 2 {
		t.Fatalf("Pages: %v, %v", infos, err)
	}
	if q := counts.queries.Load() - before; q != 2+2 {
		t.Errorf("Pages of 2 pages: %d queries, want 4", q)
	}
	// Gaps cost an aggregate and a seek each, whatever their length.
	c.insert(t, products(1_000_000, 1_000_001, 5_000_000_000)...)
	before = counts.queries.Load()
	if infos, err := readPages(context.Background(), src); err != nil || len(infos) != 4 {
		t.Fatalf("Pages: %v, %v", infos, err)
	}
	if q := counts.queries.Load() - before; q != 4+2+2+2 {
		t.Errorf("Pages of 4 pages with 2 gaps: %d queries, want 10", q)
	}
}
