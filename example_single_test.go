package sitemap_test

import (
	"fmt"
	"log"
	"time"

	"github.com/freshmap/sitemap"
)

// A small site as one sitemap file, with no index: Config.SingleFile
// serves every section's URLs in one <urlset> at the index's name, here
// sitemap.xml. The sections' page sizes must add up to 50,000 at most.
func ExampleConfig_singleFile() {
	pages := sitemap.FromSlice([]sitemap.URL{
		{Loc: "https://example.com/", LastMod: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)},
		{Loc: "https://example.com/about"},
	}, 100)
	posts := sitemap.FromSlice([]sitemap.URL{
		{Loc: "https://example.com/blog/hello", Images: []sitemap.Image{{Loc: "https://example.com/hello.jpg"}}},
	}, 1000)
	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://example.com", IndexName: "sitemap.xml", SingleFile: true},
		sitemap.Section{Name: "pages", Source: pages, Extensions: sitemap.ExtNone},
		sitemap.Section{Name: "posts", Source: posts, Extensions: sitemap.ExtImage})
	if err != nil {
		log.Fatal(err) // such as page sizes that add up to more than one file holds
	}
	defer sm.Close()

	fmt.Print(fetch(sm, "/sitemap.xml"))
	fmt.Print(fetch(sm, "/robots.txt"))
	// Output:
	// <?xml version="1.0" encoding="UTF-8"?>
	// <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
	// <url><loc>https://example.com/</loc><lastmod>2025-06-01T12:00:00Z</lastmod></url>
	// <url><loc>https://example.com/about</loc></url>
	// <url><loc>https://example.com/blog/hello</loc><image:image><image:loc>https://example.com/hello.jpg</image:loc></image:image></url>
	// </urlset>
	// User-agent: *
	// Allow: /
	//
	// Sitemap: https://example.com/sitemap.xml
}
