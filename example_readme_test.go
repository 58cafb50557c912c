package sitemap_test

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"strings"
	"time"

	"github.com/freshmap/sitemap"
)

// The README's net/http example: a slice of URLs as the Source, and the
// middleware in front of the application's mux.
func Example_netHTTP() {
	pages := sitemap.FromSlice([]sitemap.URL{
		{Loc: "https://example.com/", LastMod: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)},
		{Loc: "https://example.com/about", ChangeFreq: sitemap.Yearly, Priority: new(0.3)},
		{Loc: "https://example.com/blog/hello", Images: []sitemap.Image{{Loc: "https://example.com/hello.png"}}},
	}, 0) // 0: the protocol's 50,000 URLs a file
	sm, err := sitemap.New(sitemap.Config{
		BaseURL: "https://example.com", // every URL the sitemap writes starts here
		TTL:     5 * time.Minute,       // how long a built file is fresh (default 15 min)
	}, sitemap.Section{Name: "pages", Source: pages, Extensions: sitemap.ExtImage})
	if err != nil {
		log.Fatal(err) // every configuration mistake surfaces here
	}
	defer sm.Close()

	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "home\n")
	})
	mux.HandleFunc("GET /robots.txt", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "User-agent: *\nDisallow: /cart\n")
	})
	h := sm.Handler(mux) // http.ListenAndServe(":8080", h)

	fmt.Print(fetch(h, "/"))
	fmt.Print(fetch(h, "/robots.txt"))
	fmt.Print(fetch(h, "/sitemap.xml")) // the index, as the application has no sitemap.xml
	fmt.Print(fetch(h, "/sitemap-pages-1.txt"))
	fmt.Println(strings.Count(fetch(h, "/sitemap-pages-1.xml"), "<image:image>"), "image")
	// Output:
	// home
	// User-agent: *
	// Disallow: /cart
	// Sitemap: https://example.com/sitemap_index.xml
	// <?xml version="1.0" encoding="UTF-8"?>
	// <sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
	// <sitemap><loc>https://example.com/sitemap-pages-1.xml.gz</loc><lastmod>2025-06-01T12:00:00Z</lastmod></sitemap>
	// </sitemapindex>
	// https://example.com/
	// https://example.com/about
	// https://example.com/blog/hello
	// 1 image
}
