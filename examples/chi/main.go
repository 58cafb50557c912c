// Command chi is a demo shop on the chi router with a dynamic sitemap of
// 200,000 products (with images and hreflang alternates), the static pages
// that adapters/chiroutes finds in the router, and the news of the last
// two days.
//
//	go run ./examples/chi             # serve on :8080
//	go run ./examples/chi -crawl      # fetch the whole sitemap once and print figures
//	go run ./examples/chi -h          # the other flags
//
// The first run builds an SQLite catalogue in the user's cache directory
// (see examples/internal/demo); later runs reuse it.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"

	"github.com/go-chi/chi/v5"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/chiroutes"
	"github.com/freshmap/sitemap/examples/internal/demo"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run() error {
	opt := demo.ParseFlags()
	log := opt.Logger()
	ln, err := demo.Listen(&opt) // with -crawl, a loopback port that opt.Base then names
	if err != nil {
		return err
	}
	cat, err := demo.Open(context.Background(), opt.DB, opt.Products, log)
	if err != nil {
		return err
	}
	defer cat.Close()
	r, sm, err := newRouter(cat, opt, log)
	if err != nil {
		return err
	}
	defer sm.Close()
	return demo.Serve(ln, r, sm, opt, log)
}

// newRouter returns the shop's router with the sitemap middleware in front.
func newRouter(cat *demo.Catalogue, opt demo.Options, log *slog.Logger) (http.Handler, *sitemap.Sitemap, error) {
	app := demo.NewApp(cat.DB, opt.Base, log)
	site := chi.NewRouter()
	site.Get("/", app.Home)
	site.Get("/robots.txt", app.Robots)
	site.Get("/news", app.News)
	site.Get("/news/{id}/{slug}", app.Article)
	site.Get("/img/{file}", app.Image)
	for _, l := range demo.Languages {
		site.Get(l.Prefix+"/p/{id}/{slug}", app.Product(l.Prefix))
	}
	for _, p := range demo.StaticPages {
		site.Get(p.Path, app.Static(p.Title))
	}

	// Static pages: every GET route without parameters (/, /news, /about…).
	pages, err := chiroutes.New(site, chiroutes.Config{BaseURL: opt.Base})
	if err != nil {
		return nil, nil, err
	}

	// Products and news come from the catalogue's tables, read with
	// adapters/sqlsource: see examples/internal/demo/sections.go.
	products, news, err := demo.Sections(cat.DB, opt)
	if err != nil {
		return nil, nil, err
	}

	sm, err := sitemap.New(sitemap.Config{BaseURL: opt.Base, Logger: log},
		sitemap.Section{Name: "pages", Source: pages},
		products,
		news,
	)
	if err != nil {
		return nil, nil, err
	}

	// chi wants middlewares before routes, and chiroutes wants the routes
	// before the sitemap exists: so the shop is mounted on an outer router
	// that uses the sitemap middleware.
	r := chi.NewRouter()
	r.Use(sm.Handler)
	r.Mount("/", site)
	return r, sm, nil
}
