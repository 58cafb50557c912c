package sqlsource_test

import (
	"context"
	"database/sql"
	"fmt"
	"log"

	"github.com/freshmap/sitemap/adapters/sqlsource"
	_ "modernc.org/sqlite"
)

// A product table with slugs, update times and a published flag, and the
// products' images in a second table.
func Example() {
	db, err := sql.Open("sqlite", "file:example?mode=memory&cache=shared")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`CREATE TABLE products (id INTEGER PRIMARY KEY, slug TEXT NOT NULL,
			updated_at TEXT, published BOOLEAN NOT NULL, noindex BOOLEAN NOT NULL DEFAULT 0)`,
		`CREATE TABLE product_images (product_id INTEGER NOT NULL, position INTEGER NOT NULL, url TEXT NOT NULL)`,
		`INSERT INTO products VALUES
			(1, 'red-shoes', '2024-05-01 10:00:00', 1, 0),
			(2, 'blue-hat', '2024-05-03 08:30:00', 1, 0),
			(3, 'draft', NULL, 0, 0),
			(4, 'café crème', NULL, 1, 0),
			(12, 'green-scarf', '2024-04-01', 1, 0)`,
		`INSERT INTO product_images VALUES (1, 0, 'https://cdn.example.com/red-shoes.jpg')`,
	} {
		if _, err := db.Exec(q); err != nil {
			log.Fatal(err)
		}
	}

	src, err := sqlsource.New(db, sqlsource.Config{
		Table:       "products",
		Key:         "id",
		LocTemplate: "https://shop.example.com/p/{slug}",
		LastMod:     "updated_at",
		Filter:      "published AND NOT noindex",
		PageSize:    10, // tiny, to show two pages: keys 0-9 and 10-19
		Loaders: []sqlsource.Loader{sqlsource.Images(`SELECT product_id, url FROM product_images
			WHERE product_id BETWEEN ? AND ? ORDER BY product_id, position`)},
	})
	if err != nil {
		log.Fatal(err)
	}
	// src is a sitemap.Source: hand it to sitemap.New in a Section, which
	// takes its page size, 10 here, from src. This reads it directly.
	ctx := context.Background()
	for page, err := range src.Pages(ctx) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("page %d, lastmod %s\n", page.Number, page.LastMod.Format("2006-01-02 15:04"))
		for u, err := range src.URLs(ctx, page.Number) {
			if err != nil {
				log.Fatal(err)
			}
			fmt.Println(" ", u.Loc, u.LastMod.Format("2006-01-02"), len(u.Images), "image(s)")
		}
	}
	// Output:
	// page 1, lastmod 2024-05-03 08:30
	//   https://shop.example.com/p/red-shoes 2024-05-01 1 image(s)
	//   https://shop.example.com/p/blue-hat 2024-05-03 0 image(s)
	//   https://shop.example.com/p/caf%C3%A9%20cr%C3%A8me 0001-01-01 0 image(s)
	// page 2, lastmod 2024-04-01 00:00
	//   https://shop.example.com/p/green-scarf 2024-04-01 0 image(s)
}
