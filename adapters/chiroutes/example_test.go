package chiroutes_test

import (
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/chiroutes"
	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
)

func page(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, r.URL.Path) }

// The Source and the sitemap come first, then chi's middlewares with the
// sitemap's among them, then the routes, which each build reads.
func Example() {
	r := chi.NewRouter()
	pages, err := chiroutes.New(r, chiroutes.Config{
		BaseURL: "https://example.com",
		Values:  map[string][]string{"/docs/{slug}": {"install", "getting-started"}},
		Exclude: func(pattern, path string) bool { return strings.HasPrefix(path, "/admin/") },
		Annotate: func(pattern, path string, u *sitemap.URL) {
			if path == "/" {
				u.ChangeFreq = sitemap.Daily
			}
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://example.com"},
		sitemap.Section{Name: "pages", Source: pages})
	if err != nil {
		log.Fatal(err)
	}
	defer sm.Close()

	r.Use(middleware.Recoverer)
	r.Use(sm.Handler) // serves robots.txt and the sitemap files; chi's middlewares above see them
	r.Get("/", page)
	r.Get("/about", page)
	r.Post("/contact", page) // not a page: POST only
	r.Route("/docs", func(r chi.Router) {
		r.Get("/", page)
		r.Get("/{slug}", page)
	})
	r.Get("/users/{id:[0-9]+}", page) // skipped: no expansion
	r.Route("/admin", func(r chi.Router) {
		r.Get("/", page) // excluded
	})

	rec := httptest.NewRecorder() // or http.ListenAndServe(":8080", r)
	r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/sitemap-pages-1.xml", nil))
	for line := range strings.Lines(rec.Body.String()) {
		if strings.HasPrefix(line, "<url>") {
			fmt.Print(line)
		}
	}
	// Output:
	// <url><loc>https://example.com/</loc><changefreq>daily</changefreq></url>
	// <url><loc>https://example.com/about</loc></url>
	// <url><loc>https://example.com/docs/</loc></url>
	// <url><loc>https://example.com/docs/getting-started</loc></url>
	// <url><loc>https://example.com/docs/install</loc></url>
}

// Without chiroutes, the sitemap's middleware goes in chi's r.Use like any
// other, before the routes as chi requires, so chi's own middlewares see
// the sitemap requests too. (The root package's examples do not import chi,
// so that the root module does not require it.)
func Example_middleware() {
	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://example.com"},
		sitemap.Section{Source: sitemap.FromSlice([]sitemap.URL{{Loc: "https://example.com/"}}, 0)})
	if err != nil {
		log.Fatal(err)
	}
	defer sm.Close()

	r := chi.NewRouter()
	r.Use(middleware.Recoverer)
	r.Use(sm.Handler)
	r.Get("/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "home") })

	fmt.Print(get(r, "/"))
	fmt.Println(strings.Count(get(r, "/sitemap-1.xml"), "<url>"))
	fmt.Print(get(r, "/robots.txt"))
	// Output:
	// home
	// 1
	// User-agent: *
	// Allow: /
	//
	// Sitemap: https://example.com/sitemap_index.xml
}

// get GETs path from h and returns the body.
func get(h http.Handler, path string) string {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
	return w.Body.String()
}
