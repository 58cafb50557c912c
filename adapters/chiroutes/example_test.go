package chiroutes_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"strings"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/chiroutes"
	"github.com/go-chi/chi/v5"
)

func page(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, r.URL.Path) }

func Example() {
	r := chi.NewRouter()
	r.Get("/", page)
	r.Get("/about", page)
	r.Post("/contact", page) // not a page: POST only
	r.Route("/docs", func(r chi.Router) {
		r.Get("/", page)
		r.Get("/{slug}", page)
	})
	r.Get("/users/{id:[0-9]+}", page) // skipped: no expansion
	admin := chi.NewRouter()
	admin.Get("/", page)
	r.Mount("/admin", admin)

	src, err := chiroutes.New(r, chiroutes.Config{
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
	// Serve it as one section of the sitemap, wrapping the router (routes
	// must exist before they are walked, so r.Use comes too late):
	//	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://example.com"}, sitemap.Section{Source: src})
	//	http.ListenAndServe(":8080", sm.Handler(r))
	for u, err := range src.URLs(context.Background(), 1) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(strings.TrimSpace(u.Loc + " " + string(u.ChangeFreq)))
	}
	// Output:
	// https://example.com/ daily
	// https://example.com/about
	// https://example.com/docs/
	// https://example.com/docs/getting-started
	// https://example.com/docs/install
}
