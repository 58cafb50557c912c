package sitemap_test

import (
	"context"
	"fmt"
	"io"
	"iter"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/freshmap/sitemap"
)

// A small site: a slice of URLs is a Source.
func Example() {
	pages := sitemap.FromSlice([]sitemap.URL{
		{Loc: "https://example.com/", LastMod: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)},
		{Loc: "https://example.com/about", ChangeFreq: sitemap.Yearly, Priority: new(0.3)},
	}, 0)
	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://example.com"}, sitemap.Section{Source: pages})
	if err != nil {
		log.Fatal(err) // every configuration mistake surfaces here
	}
	defer sm.Close()

	fmt.Print(fetch(sm, "/sitemap_index.xml"))
	fmt.Print(fetch(sm, "/sitemap-1.xml"))
	// Output:
	// <?xml version="1.0" encoding="UTF-8"?>
	// <sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
	// <sitemap><loc>https://example.com/sitemap-1.xml.gz</loc><lastmod>2025-06-01T12:00:00Z</lastmod></sitemap>
	// </sitemapindex>
	// <?xml version="1.0" encoding="UTF-8"?>
	// <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" xmlns:video="http://www.google.com/schemas/sitemap-video/1.1" xmlns:xhtml="http://www.w3.org/1999/xhtml">
	// <url><loc>https://example.com/</loc><lastmod>2025-06-01T12:00:00Z</lastmod></url>
	// <url><loc>https://example.com/about</loc><changefreq>yearly</changefreq><priority>0.3</priority></url>
	// </urlset>
}

// fetch GETs path from h and returns the body.
func fetch(h http.Handler, path string) string {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
	return w.Body.String()
}

// products is a Source over a catalogue addressed by integer ID, as a
// database table would be: page n holds IDs [(n-1)*pageSize+1, n*pageSize],
// so a product never changes page when others are added or removed.
type products struct {
	maxID    int64 // a real source would run SELECT max(id) ... GROUP BY page
	pageSize int64
}

func (p products) Pages(ctx context.Context) iter.Seq2[sitemap.PageInfo, error] {
	return func(yield func(sitemap.PageInfo, error) bool) {
		for n := int64(1); (n-1)*p.pageSize < p.maxID; n++ {
			info := sitemap.PageInfo{Number: n, LastMod: time.Date(2025, 1, int(n), 0, 0, 0, 0, time.UTC)}
			if !yield(info, nil) {
				return
			}
		}
	}
}

// PageSize tells sitemap.New how many URLs a page holds (sitemap.PageSizer),
// so the Section need not repeat it.
func (p products) PageSize() int { return int(p.pageSize) }

func (p products) URLs(ctx context.Context, n int64) iter.Seq2[sitemap.URL, error] {
	return func(yield func(sitemap.URL, error) bool) {
		// SELECT id, slug, updated_at FROM products WHERE id >= ? AND id < ? ORDER BY id
		for id := (n-1)*p.pageSize + 1; id <= min(n*p.pageSize, p.maxID); id++ {
			u := sitemap.URL{
				Loc:     fmt.Sprintf("https://shop.example.com/p/%d", id),
				LastMod: time.Date(2025, 1, int(n), 0, 0, 0, 0, time.UTC),
				Images:  []sitemap.Image{{Loc: fmt.Sprintf("https://cdn.example.com/%d.jpg", id)}},
			}
			if !yield(u, nil) {
				return // the client is gone, or the page is full
			}
		}
	}
}

// Implementing a Source: each page is read directly by key range, and
// sections keep products, articles and static pages apart.
func ExampleSource() {
	static := sitemap.FromSlice([]sitemap.URL{{Loc: "https://shop.example.com/help", LastMod: time.Date(2024, 9, 1, 0, 0, 0, 0, time.UTC)}}, 0)
	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://shop.example.com"},
		sitemap.Section{Name: "products", Source: products{maxID: 5, pageSize: 2}, Extensions: sitemap.ExtImage},
		sitemap.Section{Name: "pages", Source: static})
	if err != nil {
		log.Fatal(err)
	}
	defer sm.Close()
	fmt.Print(fetch(sm, "/sitemap_index.xml"))
	fmt.Print(fetch(sm, "/sitemap-products-3.xml"))
	// Output:
	// <?xml version="1.0" encoding="UTF-8"?>
	// <sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
	// <sitemap><loc>https://shop.example.com/sitemap-products-1.xml.gz</loc><lastmod>2025-01-01T00:00:00Z</lastmod></sitemap>
	// <sitemap><loc>https://shop.example.com/sitemap-products-2.xml.gz</loc><lastmod>2025-01-02T00:00:00Z</lastmod></sitemap>
	// <sitemap><loc>https://shop.example.com/sitemap-products-3.xml.gz</loc><lastmod>2025-01-03T00:00:00Z</lastmod></sitemap>
	// <sitemap><loc>https://shop.example.com/sitemap-pages-1.xml.gz</loc><lastmod>2024-09-01T00:00:00Z</lastmod></sitemap>
	// </sitemapindex>
	// <?xml version="1.0" encoding="UTF-8"?>
	// <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
	// <url><loc>https://shop.example.com/p/5</loc><lastmod>2025-01-03T00:00:00Z</lastmod><image:image><image:loc>https://cdn.example.com/5.jpg</image:loc></image:image></url>
	// </urlset>
}

// The middleware serves robots.txt and the sitemaps and passes every other
// request to the application.
func ExampleSitemap_Handler() {
	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://example.com"},
		sitemap.Section{Source: sitemap.FromSlice([]sitemap.URL{{Loc: "https://example.com/"}}, 0)})
	if err != nil {
		log.Fatal(err)
	}
	defer sm.Close()

	mux := http.NewServeMux()
	mux.HandleFunc("GET /robots.txt", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "User-agent: *\nDisallow: /cart\n")
	})
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "home\n")
	})
	h := sm.Handler(mux) // http.ListenAndServe(":8080", h)

	fmt.Print(fetch(h, "/robots.txt"))
	fmt.Print(fetch(h, "/"))
	// Output:
	// User-agent: *
	// Disallow: /cart
	// Sitemap: https://example.com/sitemap_index.xml
	// home
}

// Stats are counters to export, for example with expvar:
// expvar.Publish("sitemap", expvar.Func(func() any { return sm.Stats() })).
func ExampleSitemap_Stats() {
	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://example.com"},
		sitemap.Section{Source: sitemap.FromSlice([]sitemap.URL{{Loc: "https://example.com/"}}, 0)})
	if err != nil {
		log.Fatal(err)
	}
	defer sm.Close()
	fetch(sm, "/sitemap-1.xml.gz") // builds the index, to learn that page 1 exists, then the page
	fetch(sm, "/sitemap-1.xml.gz") // from the cache
	st := sm.Stats()
	fmt.Println(st.Builds, st.CacheMisses, st.CacheHits)
	// Output:
	// 2 1 1
}

// FromRange suits a catalogue that can count its items and read any range
// of them by position.
func ExampleFromRange() {
	names := []string{"alpha", "beta", "gamma"}
	src := sitemap.FromRange(
		func(context.Context) (int64, error) { return int64(len(names)), nil },
		func(_ context.Context, lo, hi int64) iter.Seq2[sitemap.URL, error] {
			return func(yield func(sitemap.URL, error) bool) {
				for _, name := range names[lo:hi] {
					if !yield(sitemap.URL{Loc: "https://example.com/" + name}, nil) {
						return
					}
				}
			}
		}, 2)
	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://example.com"}, sitemap.Section{Source: src, PageSize: 2})
	if err != nil {
		log.Fatal(err)
	}
	defer sm.Close()
	fmt.Print(fetch(sm, "/sitemap-2.xml"))
	// Output:
	// <?xml version="1.0" encoding="UTF-8"?>
	// <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" xmlns:video="http://www.google.com/schemas/sitemap-video/1.1" xmlns:xhtml="http://www.w3.org/1999/xhtml">
	// <url><loc>https://example.com/gamma</loc></url>
	// </urlset>
}

// Several sites in one process: one Sitemap per host, chosen by the
// request's host from the listed ones; any other host goes to the app.
func ExampleNewSites() {
	var sms []*sitemap.Sitemap
	for _, base := range []string{"https://a.example", "https://b.example:8443"} {
		pages := sitemap.FromSlice([]sitemap.URL{{Loc: base + "/"}}, 0)
		sm, err := sitemap.New(sitemap.Config{BaseURL: base}, sitemap.Section{Source: pages})
		if err != nil {
			log.Fatal(err)
		}
		defer sm.Close()
		sms = append(sms, sm)
	}
	sites, err := sitemap.NewSites(sms...) // two Sitemaps for one host are an error
	if err != nil {
		log.Fatal(err)
	}
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "app\n") })
	h := sites.Handler(app) // http.ListenAndServe(":8080", h)

	for _, host := range []string{"A.example", "b.example:8443", "b.example", "evil.example"} {
		r := httptest.NewRequest(http.MethodGet, "/robots.txt", nil)
		r.Host = host // X-Forwarded-Host is never read
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		lines := strings.Split(strings.TrimSpace(w.Body.String()), "\n")
		fmt.Printf("%s: %s\n", host, lines[len(lines)-1]) // the app's robots.txt is "app"
	}
	// Output:
	// A.example: Sitemap: https://a.example/sitemap_index.xml
	// b.example:8443: Sitemap: https://b.example:8443/sitemap_index.xml
	// b.example: app
	// evil.example: app
}
