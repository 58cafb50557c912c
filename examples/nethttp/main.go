// Command nethttp is a demo shop on net/http's ServeMux with a dynamic
// sitemap of 200,000 products (with images and hreflang alternates), its
// static pages and the news of the last two days.
//
//	go run ./examples/nethttp             # serve on :8080
//	go run ./examples/nethttp -crawl      # fetch the whole sitemap once and print figures
//	go run ./examples/nethttp -h          # the other flags
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

	"github.com/freshmap/sitemap"
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
	h, sm, err := newHandler(cat, opt, log)
	if err != nil {
		return err
	}
	defer sm.Close()
	return demo.Serve(ln, h, sm, opt, log)
}

// newHandler returns the shop wrapped in the sitemap middleware.
func newHandler(cat *demo.Catalogue, opt demo.Options, log *slog.Logger) (http.Handler, *sitemap.Sitemap, error) {
	app := demo.NewApp(cat.DB, opt.Base, log)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", app.Home)
	mux.HandleFunc("GET /robots.txt", app.Robots)
	mux.HandleFunc("GET /news", app.News)
	mux.HandleFunc("GET /news/{id}/{slug}", app.Article)
	mux.HandleFunc("GET /img/{file}", app.Image)
	for _, l := range demo.Languages {
		mux.HandleFunc("GET "+l.Prefix+"/p/{id}/{slug}", app.Product(l.Prefix))
	}

	// Static pages: a list kept next to their routes.
	pages := []sitemap.URL{{Loc: opt.Base + "/", ChangeFreq: sitemap.Daily}, {Loc: opt.Base + "/news", ChangeFreq: sitemap.Hourly}}
	for _, p := range demo.StaticPages {
		mux.HandleFunc("GET "+p.Path, app.Static(p.Title))
		pages = append(pages, sitemap.URL{Loc: opt.Base + p.Path})
	}

	// Products and news come from the catalogue's tables, read with
	// adapters/sqlsource: see examples/internal/demo/sections.go.
	products, news, err := demo.Sections(cat.DB, opt)
	if err != nil {
		return nil, nil, err
	}

	sm, err := sitemap.New(sitemap.Config{BaseURL: opt.Base, Logger: log},
		sitemap.Section{Name: "pages", Source: sitemap.FromSlice(pages, 0)},
		products,
		news,
	)
	if err != nil {
		return nil, nil, err
	}
	return sm.Handler(mux), sm, nil
}
