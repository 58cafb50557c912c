package chiroutes_test

import (
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/freshmap/sitemap"
	"github.com/go-chi/chi/v5"
)

// A Sitemap mounted on a chi router as a handler of its own, for an
// application that keeps its robots.txt to itself (only the middleware,
// r.Use(sm.Handler), merges the Sitemap: line into it). chi's Mount leaves
// the request path whole, which the Sitemap needs: it matches the path
// against the base URL's, here https://example.com/shop.
func Example_mount() {
	pages := sitemap.FromSlice([]sitemap.URL{{Loc: "https://example.com/shop/"}}, 0)
	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://example.com/shop"},
		sitemap.Section{Name: "pages", Source: pages})
	if err != nil {
		log.Fatal(err)
	}
	defer sm.Close()

	shop := chi.NewRouter()
	shop.Get("/", page)
	shop.Handle("/sitemap*", sm) // the sitemap files: /shop/sitemap_index.xml, /shop/sitemap-pages-1.xml.gz …
	r := chi.NewRouter()
	r.Mount("/shop", shop) // http.ListenAndServe(":8080", r)

	for _, path := range []string{"/shop/", "/shop/sitemap_index.xml", "/shop/sitemap-pages-1.xml.gz", "/shop/sitemap-pages-2.xml.gz"} {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		fmt.Println(path, w.Code, w.Header().Get("Content-Type"))
	}
	// Output:
	// /shop/ 200 text/plain; charset=utf-8
	// /shop/sitemap_index.xml 200 application/xml; charset=utf-8
	// /shop/sitemap-pages-1.xml.gz 200 application/gzip
	// /shop/sitemap-pages-2.xml.gz 404 text/plain; charset=utf-8
}
