package sqlsource_test

import (
	"context"
	"database/sql"
	"fmt"
	"log"
	"math"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/sqlsource"
	_ "modernc.org/sqlite"
)

// TestPageOfBoundaries checks PageOf through the public API, at the edges
// of pages, of KeyStart and of the int64 range, and that every key it
// places on a page is one that page's query reads.
func TestPageOfBoundaries(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:") // New does not touch it
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, tc := range []struct {
		size  int
		start int64
		key   int64
		page  int64
	}{
		{10, 0, 0, 1},  // KeyStart is the first key of page 1
		{10, 0, 9, 1},  // the last key of page 1
		{10, 0, 10, 2}, // the first of page 2
		{10, 0, 19, 2},
		{10, 0, 20, 3},
		{10, 1, 1, 1}, // KeyStart 1: page 1 is keys 1 to 10
		{10, 1, 10, 1},
		{10, 1, 11, 2},
		{10, 1, 123456, 12346},
		{0, 0, 123456, 3}, // the default page size, 50,000
		{10, 1, 0, 0},     // below KeyStart: no page
		{10, 100, 99, 0},  // just below KeyStart
		{10, 0, -1, 0},    // a negative key, KeyStart 0
		{10, 0, math.MinInt64, 0},
		{10, -20, -20, 1}, // a negative KeyStart
		{10, -20, -11, 1},
		{10, -20, -10, 2},
		{10, -20, 0, 3},
		{10, 0, math.MaxInt64, math.MaxInt64/10 + 1}, // the last page of keys
		{10, 0, math.MaxInt64 - 7, math.MaxInt64/10 + 1},
		{10, 0, math.MaxInt64 - 8, math.MaxInt64 / 10},
		{50_000, 0, math.MaxInt64, math.MaxInt64/50_000 + 1},
		{50_000, 1, math.MaxInt64, (math.MaxInt64-1)/50_000 + 1},
		{1, 0, math.MaxInt64 - 1, math.MaxInt64}, // the last page number there is
		{1, 0, math.MaxInt64, 0},                 // would be page 2⁶³: no page
	} {
		src, err := sqlsource.New(db, sqlsource.Config{Table: "t", Key: "id", Loc: "loc",
			PageSize: tc.size, KeyStart: tc.start, Dialect: sqlsource.SQLite})
		if err != nil {
			t.Fatal(err)
		}
		if got := src.PageOf(tc.key); got != tc.page {
			t.Errorf("PageSize %d, KeyStart %d: PageOf(%d) = %d, want %d", tc.size, tc.start, tc.key, got, tc.page)
		}
	}
}

// TestPagesPastLastPage lists a table whose largest key, math.MaxInt64,
// is past the last page an int64 numbers (with pages of one key): Pages
// lists the pages before it and stops, without an error, and PageOf says
// the key is on no page.
func TestPagesPastLastPage(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		c := d.createCatalogue(t, []product{
			{ID: 5, Slug: "five", Published: true},
			{ID: math.MaxInt64, Slug: "max", Published: true},
		})
		src := newSource(t, d.db, c.config(1))
		infos, err := readPages(context.Background(), src)
		if err != nil {
			t.Fatalf("Pages: %v", err)
		}
		if len(infos) != 1 || infos[0].Number != 6 {
			t.Errorf("Pages = %+v, want page 6 alone", infos)
		}
		if n := src.PageOf(math.MaxInt64); n != 0 {
			t.Errorf("PageOf(MaxInt64) = %d, want 0", n)
		}
	})
}

// TestNineteenDigitPage serves a page whose number has 19 digits, which
// pages of fewer than 10 keys reach: the index lists it, so it must be
// served. It is not: the root's page-number parser (internal/paths, ParsePage) accepts at most 18
// digits, so the file the index lists is a 404.
func TestNineteenDigitPage(t *testing.T) {
	d := openDB(t, "sqlite")
	const id = 999_999_999_999_999_999 // on page 10¹⁸ with pages of one key from 0
	c := d.createCatalogue(t, []product{{ID: id, Slug: "far", Published: true}})
	src := newSource(t, d.db, c.config(1))
	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://shop.example.com"}, sitemap.Section{Name: "p", Source: src})
	if err != nil {
		t.Fatal(err)
	}
	defer sm.Close()
	srv := httptest.NewServer(sm)
	defer srv.Close()
	want := fmt.Sprintf("https://shop.example.com/sitemap-p-%d.xml.gz", src.PageOf(id))
	if got := locs(t, get(t, srv.URL+"/sitemap_index.xml")); len(got) != 1 || got[0] != want {
		t.Fatalf("the index lists %q, want %s", got, want)
	}
	if got := locs(t, get(t, srv.URL+strings.TrimPrefix(want, "https://shop.example.com"))); len(got) != 1 || got[0] != base+"far" {
		t.Errorf("%s lists %q, want %s", want, got, base+"far")
	}
}

// PageOf names the file that holds a row, for Invalidate: after the
// application updates product 12, the one file that lists it is rebuilt
// in the background while the old copy is served.
func ExampleSource_PageOf() {
	db, err := sql.Open("sqlite", "file:pageof?mode=memory&cache=shared")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`CREATE TABLE products (id INTEGER PRIMARY KEY, slug TEXT NOT NULL)`,
		`INSERT INTO products VALUES (1, 'red-shoes'), (12, 'blue-hat'), (25, 'green-scarf')`,
	} {
		if _, err := db.Exec(q); err != nil {
			log.Fatal(err)
		}
	}
	src, err := sqlsource.New(db, sqlsource.Config{
		Table:       "products",
		Key:         "id",
		LocTemplate: "https://shop.example.com/p/{slug}",
		PageSize:    10, // tiny, for the example: keys 1-10, 11-20, 21-30...
		KeyStart:    1,
	})
	if err != nil {
		log.Fatal(err)
	}
	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://shop.example.com"},
		sitemap.Section{Name: "products", Source: src})
	if err != nil {
		log.Fatal(err)
	}
	defer sm.Close()

	if _, err := db.Exec(`UPDATE products SET slug = 'navy-hat' WHERE id = 12`); err != nil {
		log.Fatal(err)
	}
	if err := sm.Invalidate("products", src.PageOf(12)); err != nil {
		log.Fatal(err)
	}

	for _, id := range []int64{1, 10, 11, 12, 25, 0} {
		fmt.Printf("product %d is on page %d\n", id, src.PageOf(id))
	}
	// Output:
	// product 1 is on page 1
	// product 10 is on page 1
	// product 11 is on page 2
	// product 12 is on page 2
	// product 25 is on page 3
	// product 0 is on page 0
}
