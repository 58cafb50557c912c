package sqlsource_test

import (
	"compress/gzip"
	"context"
	"database/sql"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/sqlsource"
)

// A Sitemap kept fresh by the database: a row is renamed, with no call of
// the application's, and the next fetches of its file show it. A change of
// its stock count alone, a column not named in Significant, changes
// nothing: no rebuild, and no lastmod moves.
func ExampleSource_Watch() {
	dir, err := os.MkdirTemp("", "watch")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "shop.db")+"?_pragma=busy_timeout(5000)")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`CREATE TABLE products (id INTEGER PRIMARY KEY, slug TEXT NOT NULL, stock INTEGER, updated_at TEXT)`,
		`INSERT INTO products VALUES (1, 'red-shoes', 5, '2024-03-01'), (2, 'blue-hat', 2, '2024-03-02')`,
	} {
		if _, err := db.Exec(q); err != nil {
			log.Fatal(err)
		}
	}

	src, err := sqlsource.New(db, sqlsource.Config{
		Table:         "products",
		Key:           "id",
		LocTemplate:   "https://shop.example.com/p/{slug}",
		LastMod:       "updated_at",
		Summary:       true,                   // Watch reads the page summary
		Significant:   []string{"slug"},       // other columns' changes do not count, nor move lastmod
		WatchInterval: 100 * time.Millisecond, // SQLite and MariaDB are polled; zero means 250 ms
	})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	if err := src.InstallSummary(ctx); err != nil { // once, as a migration
		log.Fatal(err)
	}
	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://shop.example.com"},
		sitemap.Section{Name: "products", Source: src})
	if err != nil {
		log.Fatal(err)
	}
	defer sm.Close()
	w, err := src.Watch(ctx, sm, "products")
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close() // before sm.Close

	srv := httptest.NewServer(sm)
	defer srv.Close()
	page := srv.URL + "/sitemap-products-1.xml.gz"
	fmt.Println(locsOf(fetch(page)))
	for _, q := range []string{
		`UPDATE products SET stock = stock - 1, updated_at = '2024-03-09' WHERE id = 2`, // not significant
		`UPDATE products SET slug = 'red-boots' WHERE id = 1`,
	} {
		if _, err := db.Exec(q); err != nil {
			log.Fatal(err)
		}
	}
	for range 200 { // the page is rebuilt in the background; the old copy is served meanwhile
		if xml := fetch(page); strings.Contains(xml, "red-boots") {
			fmt.Println(locsOf(xml))
			fmt.Println(strings.Contains(xml, "<lastmod>2024-03-02"), strings.Contains(xml, "2024-03-09")) // blue-hat's lastmod did not move
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Output:
	// [https://shop.example.com/p/red-shoes https://shop.example.com/p/blue-hat]
	// [https://shop.example.com/p/red-boots https://shop.example.com/p/blue-hat]
	// true false
}

// fetch GETs a .xml.gz file and returns its XML.
func fetch(url string) string {
	resp, err := http.Get(url)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	z, err := gzip.NewReader(resp.Body)
	if err != nil {
		log.Fatal(err)
	}
	b, err := io.ReadAll(z)
	if err != nil {
		log.Fatal(err)
	}
	return string(b)
}

// locsOf returns the <loc>s of a document.
func locsOf(xml string) []string {
	var out []string
	for _, m := range locRE.FindAllStringSubmatch(xml, -1) {
		out = append(out, m[1])
	}
	return out
}

var locRE = regexp.MustCompile(`<loc>([^<]*)</loc>`)
