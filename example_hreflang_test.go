package sitemap_test

import (
	"fmt"
	"log"

	"github.com/freshmap/sitemap"
)

// Every product page exists in English, German and French: the Source
// lists each page once, and the section declares the languages once.
// Each language's version is written, each listing them all and the
// x-default.
func ExampleHreflang() {
	products := sitemap.FromSlice([]sitemap.URL{{Loc: "https://example.com/p/1"}}, 0)
	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://example.com"}, sitemap.Section{
		Source:     products,
		Extensions: sitemap.ExtAlternates,
		Hreflang: &sitemap.Hreflang{
			Languages: []sitemap.Language{{Tag: "en"}, {Tag: "de", Prefix: "/de"}, {Tag: "fr", Prefix: "/fr"}},
			XDefault:  "en",
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer sm.Close()
	fmt.Print(fetch(sm, "/sitemap-1.xml"))
	// Output:
	// <?xml version="1.0" encoding="UTF-8"?>
	// <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">
	// <url><loc>https://example.com/p/1</loc><xhtml:link rel="alternate" hreflang="en" href="https://example.com/p/1"/><xhtml:link rel="alternate" hreflang="de" href="https://example.com/de/p/1"/><xhtml:link rel="alternate" hreflang="fr" href="https://example.com/fr/p/1"/><xhtml:link rel="alternate" hreflang="x-default" href="https://example.com/p/1"/></url>
	// <url><loc>https://example.com/de/p/1</loc><xhtml:link rel="alternate" hreflang="en" href="https://example.com/p/1"/><xhtml:link rel="alternate" hreflang="de" href="https://example.com/de/p/1"/><xhtml:link rel="alternate" hreflang="fr" href="https://example.com/fr/p/1"/><xhtml:link rel="alternate" hreflang="x-default" href="https://example.com/p/1"/></url>
	// <url><loc>https://example.com/fr/p/1</loc><xhtml:link rel="alternate" hreflang="en" href="https://example.com/p/1"/><xhtml:link rel="alternate" hreflang="de" href="https://example.com/de/p/1"/><xhtml:link rel="alternate" hreflang="fr" href="https://example.com/fr/p/1"/><xhtml:link rel="alternate" hreflang="x-default" href="https://example.com/p/1"/></url>
	// </urlset>
}

// A section's default changefreq and priority: a URL's own value wins.
func ExampleSection_defaults() {
	pages := sitemap.FromSlice([]sitemap.URL{
		{Loc: "https://example.com/guide"},
		{Loc: "https://example.com/news", ChangeFreq: sitemap.Hourly},
	}, 0)
	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://example.com"},
		sitemap.Section{Source: pages, Extensions: sitemap.ExtNone, ChangeFreq: sitemap.Monthly, Priority: new(0.6)})
	if err != nil {
		log.Fatal(err)
	}
	defer sm.Close()
	fmt.Print(fetch(sm, "/sitemap-1.xml"))
	// Output:
	// <?xml version="1.0" encoding="UTF-8"?>
	// <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
	// <url><loc>https://example.com/guide</loc><changefreq>monthly</changefreq><priority>0.6</priority></url>
	// <url><loc>https://example.com/news</loc><changefreq>hourly</changefreq><priority>0.6</priority></url>
	// </urlset>
}
