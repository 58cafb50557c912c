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
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/chiroutes"
	"github.com/freshmap/sitemap/adapters/sqlsource"
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

	// Products: one file per 10,000 ids, each read with one range query
	// plus one query each for images and alternates. The tables hold
	// paths, which BaseURL makes absolute.
	products, err := sqlsource.New(cat.DB, sqlsource.Config{
		Table:       "products",
		Key:         "id",
		KeyStart:    1,
		PageSize:    opt.PageSize,
		BaseURL:     opt.Base,
		LocTemplate: "/p/{id}/{slug}",
		LastMod:     "updated_at", // Unix seconds
		Filter:      "published",
		Loaders: []sqlsource.Loader{
			sqlsource.Images(`SELECT product_id, path, caption FROM product_images
				WHERE product_id BETWEEN ? AND ? ORDER BY product_id, position`),
			sqlsource.Alternates(`SELECT p.id, l.hreflang, l.prefix || '/p/' || p.id || '/' || p.slug
				FROM products p CROSS JOIN languages l WHERE p.id BETWEEN ? AND ? ORDER BY p.id, l.position`),
		},
	})
	if err != nil {
		return nil, nil, err
	}

	// News: the articles of the last two days, at most 1,000 a file, with
	// their <news:news> filled from the same rows.
	news, err := sqlsource.New(cat.DB, sqlsource.Config{
		Table:       "articles",
		Key:         "id",
		KeyStart:    1,
		PageSize:    1000,
		BaseURL:     opt.Base,
		LocTemplate: "/news/{id}/{slug}",
		LastMod:     "published_at",
		Filter:      "published_at >= unixepoch('now', '-2 days')",
		Columns:     []string{"title", "lang", "keywords"},
		Annotate: func(r *sqlsource.Row, u *sitemap.URL) error {
			u.News = &sitemap.News{PublicationName: "Freshmap Daily", Language: r.String("lang"), PublicationDate: r.LastMod,
				Title: r.String("title"), Keywords: strings.Split(r.String("keywords"), ", ")}
			return nil
		},
	})
	if err != nil {
		return nil, nil, err
	}

	sm, err := sitemap.New(sitemap.Config{BaseURL: opt.Base, Logger: log},
		sitemap.Section{Name: "pages", Source: pages},
		sitemap.Section{Name: "products", Source: products, PageSize: opt.PageSize, Extensions: sitemap.ExtImage | sitemap.ExtAlternates},
		sitemap.Section{Name: "news", Source: news, PageSize: 1000, Extensions: sitemap.ExtNews},
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
