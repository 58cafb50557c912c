package sqlsource_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/sqlsource"
)

// TestImagesFrom reads the same images with ImagesFrom as with Images and
// the query of the same columns, on every database: paths resolved, NULL
// as "", the order of the key then Order, each of the five fields from its
// own column, and a key outside the catalogue ignored.
func TestImagesFrom(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		c := d.createCatalogue(t, products(1, 2, 3, 4, 12))
		d.exec(t, "INSERT INTO "+c.images+" VALUES (2, 1, '/img/2-b.svg', 'B ü'), (3, 0, '//cdn.example.com/c.jpg', NULL), "+
			"(2, 0, 'https://c.com/a', 'A'), (1000, 0, 'https://c.com/x', 'X'), (12, 5, '/img/12.svg', ''), (2, 2, '/img/2-c.svg', 'C')")
		sub := "(SELECT product_id, position, url, title, 'Dublin' AS geo, '/license' AS lic FROM " + c.images + ") AS i"
		for _, tc := range []struct {
			name  string
			table sqlsource.ImageTable
			query string
		}{
			{"loc", sqlsource.ImageTable{Table: c.images, Key: "product_id", Order: "position", Loc: "url"},
				"SELECT product_id, url FROM " + c.images},
			{"loc and caption", sqlsource.ImageTable{Table: c.images, Key: "product_id", Order: "position", Loc: "url", Caption: "title"},
				"SELECT product_id, url, title FROM " + c.images},
			{"every field", sqlsource.ImageTable{Table: sub, Key: "product_id", Order: "position", Loc: "url", Caption: "title",
				GeoLocation: "geo", Title: "title", License: "lic"},
				"SELECT product_id, url, title, geo, title, lic FROM " + sub},
			{"some fields", sqlsource.ImageTable{Table: sub, Key: "product_id", Order: "position DESC", Loc: "url", Title: "title", License: "lic"},
				"SELECT product_id, url, '', '', title, lic FROM " + sub},
		} {
			t.Run(tc.name, func(t *testing.T) {
				order := " ORDER BY product_id, position"
				if strings.HasSuffix(tc.table.Order, "DESC") {
					order += " DESC"
				}
				want := readImages(t, c, sqlsource.Images(tc.query+" WHERE product_id BETWEEN ? AND ?"+order))
				got := readImages(t, c, sqlsource.ImagesFrom(tc.table))
				if !reflect.DeepEqual(got, want) {
					t.Errorf("ImagesFrom read\n%+v\nImages\n%+v", got, want)
				}
				if imgs := got[2]; len(imgs) != 3 || imgs[1].Loc != "https://shop.example.com/img/2-b.svg" || imgs[1].Caption != "" && imgs[1].Caption != "B ü" {
					t.Errorf("key 2's images %+v", imgs)
				}
				if imgs := got[3]; len(imgs) != 1 || imgs[0].Loc != "https://cdn.example.com/c.jpg" || imgs[0].Caption != "" {
					t.Errorf("key 3's images %+v", imgs)
				}
			})
		}
	})
}

// readImages returns the images of page 1 of c's products with load, by
// key, with BaseURL https://shop.example.com.
func readImages(t *testing.T, c *catalogue, load sqlsource.Loader) map[int64][]sitemap.Image {
	t.Helper()
	cfg := c.config(100)
	cfg.BaseURL = "https://shop.example.com"
	cfg.Loaders = []sqlsource.Loader{load}
	urls, err := readPage(context.Background(), newSource(t, c.d.db, cfg), 1)
	if err != nil {
		t.Fatal(err)
	}
	imgs := map[int64][]sitemap.Image{}
	for _, u := range urls {
		var key int64
		for _, p := range products(1, 2, 3, 4, 12) {
			if u.Loc == base+p.Slug {
				key = p.ID
			}
		}
		if key == 0 {
			t.Fatalf("URL %s is not a product's", u.Loc)
		}
		imgs[key] = u.Images
	}
	return imgs
}

// TestImagesFromNone: a page without images, on every database.
func TestImagesFromNone(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		c := d.createCatalogue(t, products(1, 2))
		d.exec(t, "INSERT INTO "+c.images+" VALUES (12, 0, 'https://c.com/a', 'A')") // page 2's
		cfg := c.config(10)
		cfg.Loaders = []sqlsource.Loader{sqlsource.ImagesFrom(sqlsource.ImageTable{Table: c.images, Key: "product_id", Loc: "url", Caption: "title"})}
		urls, err := readPage(context.Background(), newSource(t, d.db, cfg), 1)
		if err != nil || len(urls) != 2 || urls[0].Images != nil || urls[1].Images != nil {
			t.Errorf("%+v, %v", urls, err)
		}
	})
}

// TestImagesFromErrors: a value that holds the separator fails the page,
// as does an ImageTable without a table, key or loc.
func TestImagesFromErrors(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		c := d.createCatalogue(t, products(1, 2))
		d.exec(t, "INSERT INTO "+c.images+" VALUES (1, 0, 'https://c.com/a', 'A'), (2, 0, 'https://c.com/b', ?)", "two\x1fparts")
		cfg := c.config(100)
		for _, tc := range []struct {
			table sqlsource.ImageTable
			want  string
		}{
			{sqlsource.ImageTable{Table: c.images, Key: "product_id", Loc: "url", Caption: "title"}, "an image of key 2: a value holds U+001F"},
			{sqlsource.ImageTable{Table: c.images, Key: "product_id", Loc: "title", Caption: "url"}, "an image of key 2: a value holds U+001F"},
			{sqlsource.ImageTable{Table: c.images, Key: "product_id", Caption: "title"}, "needs ImageTable.Table, Key and Loc"},
			{sqlsource.ImageTable{Key: "product_id", Loc: "url"}, "needs ImageTable.Table, Key and Loc"},
		} {
			cfg.Loaders = []sqlsource.Loader{sqlsource.ImagesFrom(tc.table)}
			urls, err := readPage(context.Background(), newSource(t, d.db, cfg), 1)
			if err == nil || !strings.Contains(err.Error(), tc.want) || len(urls) != 0 {
				t.Errorf("%+v: %d URLs, %v; want the error %q", tc.table, len(urls), err, tc.want)
			}
		}
		// A loc alone is read as it is, separator and all: there is
		// nothing to split.
		loc := sqlsource.ImageTable{Table: c.images, Key: "product_id", Loc: "title"}
		cfg.Loaders = []sqlsource.Loader{sqlsource.ImagesFrom(loc)}
		urls, err := readPage(context.Background(), newSource(t, d.db, cfg), 1)
		if err != nil || len(urls) != 2 || len(urls[1].Images) != 1 || urls[1].Images[0].Loc != "two\x1fparts" {
			t.Errorf("loc alone: %+v, %v", urls, err)
		}
		// SQLite's page of images is one value, its images parted by
		// U+001E: a value that holds one fails the page, even a loc alone
		// that makes a well-formed image of it. The other databases read
		// an image a row.
		d.exec(t, "UPDATE "+c.images+" SET title = ? WHERE product_id = 2", "two\x1e2\x1f/img/x.svg")
		urls, err = readPage(context.Background(), newSource(t, d.db, cfg), 1)
		switch {
		case d.name == "sqlite" && (err == nil || !strings.Contains(err.Error(), "3 images joined where SQLite counted 2: a value holds U+001E")):
			t.Errorf("U+001E in a loc: %d URLs, %v", len(urls), err)
		case d.name != "sqlite" && (err != nil || len(urls) != 2 || urls[1].Images[0].Loc != "two\x1e2\x1f/img/x.svg"):
			t.Errorf("U+001E in a loc: %+v, %v", urls, err)
		}
	})
}

// TestImagesFromTooMany: a URL gets its first 1,000 images, in order, from
// SQLite's page of images as from Images.
func TestImagesFromTooMany(t *testing.T) {
	d := openDB(t, "sqlite")
	c := d.createCatalogue(t, products(1, 2))
	d.exec(t, "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i+1 FROM n WHERE i < 1200) INSERT INTO "+c.images+" SELECT 1, i, 'https://c.com/' || i, 'caption ' || i FROM n")
	d.exec(t, "INSERT INTO "+c.images+" VALUES (2, 0, '/two.jpg', NULL)")
	got := readImages(t, c, sqlsource.ImagesFrom(sqlsource.ImageTable{Table: c.images, Key: "product_id", Order: "position", Loc: "url", Caption: "title"}))
	if imgs := got[1]; len(imgs) != 1000 || imgs[999].Loc != "https://c.com/999" || imgs[999].Caption != "caption 999" || imgs[0].Loc != "https://c.com/0" {
		t.Errorf("key 1: %d images, the last %+v", len(imgs), imgs[len(imgs)-1])
	}
	if imgs := got[2]; len(imgs) != 1 || imgs[0].Loc != "https://shop.example.com/two.jpg" {
		t.Errorf("key 2: %+v", imgs)
	}
}
