package sitemap_test

import (
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/freshmap/sitemap"
)

// Invalidate tells the Sitemap what the application changed: the page is
// rebuilt at once in the background, the old copy served until the new
// one is ready, and the index rebuilt after it. adapters/sqlsource's Watch
// calls it for the application when a row is written.
func ExampleSitemap_Invalidate() {
	var mu sync.Mutex
	products := []string{"chair", "table"}
	src := sitemap.FromSeq(func(yield func(sitemap.URL) bool) {
		mu.Lock()
		defer mu.Unlock()
		for _, p := range products {
			if !yield(sitemap.URL{Loc: "https://shop.example/p/" + p}) {
				return
			}
		}
	}, 0)
	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://shop.example"},
		sitemap.Section{Name: "products", Source: src})
	if err != nil {
		log.Fatal(err)
	}
	defer sm.Close()
	urls := func() int { return strings.Count(fetch(sm, "/sitemap-products-1.xml"), "<url>") }
	fmt.Println(urls(), "URLs")

	mu.Lock()
	products = append(products, "lamp") // the application adds a product to page 1
	mu.Unlock()
	if err := sm.Invalidate("products", 1); err != nil {
		log.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); urls() == 2 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond) // the old copy is served until the rebuild ends
	}
	fmt.Println(urls(), "URLs")
	fmt.Println(sm.Invalidate("articles"))
	// Output:
	// 2 URLs
	// 3 URLs
	// sitemap: Invalidate: no section "articles"
}

// A Sitemap is an http.Handler of its own: mounted as the mux's fallback,
// it serves the sitemap files (and 404 for any other path the application
// does not route) but not robots.txt, which only the middleware merges.
// It is mounted without stripping the path, as it matches the request path
// against the base URL's.
func ExampleSitemap_ServeHTTP() {
	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://example.com"},
		sitemap.Section{Source: sitemap.FromSlice([]sitemap.URL{{Loc: "https://example.com/about"}}, 0)})
	if err != nil {
		log.Fatal(err)
	}
	defer sm.Close()

	mux := http.NewServeMux()
	mux.HandleFunc("GET /about", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "about us") })
	mux.Handle("/", sm) // http.ListenAndServe(":8080", mux)

	for _, path := range []string{"/about", "/sitemap_index.xml", "/sitemap-1.xml.gz", "/sitemap-2.xml.gz", "/cart"} {
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		fmt.Println(path, w.Code, w.Header().Get("Content-Type"))
	}
	// Output:
	// /about 200 text/plain; charset=utf-8
	// /sitemap_index.xml 200 application/xml; charset=utf-8
	// /sitemap-1.xml.gz 200 application/gzip
	// /sitemap-2.xml.gz 404 text/plain; charset=utf-8
	// /cart 404 text/plain; charset=utf-8
}
