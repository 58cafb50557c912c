// Command chi is the demo shop on the chi router, with a dynamic sitemap in
// two sections: the pages that adapters/chiroutes finds in the router, and
// 200,000 products with images and hreflang alternates. (examples/nethttp
// adds a news section.)
//
//	go run ./examples/chi             # serve on :8080
//	go run ./examples/chi -crawl      # fetch the whole sitemap once and print figures
//	go run ./examples/chi -h          # the other flags
//
// Replicas share their cache through Redis when they have the same -redis
// and the same base URL (by default, http://localhost and the -addr port):
//
//	go run ./examples/chi -redis 127.0.0.1:6379                                          # the first, on :8080
//	go run ./examples/chi -redis 127.0.0.1:6379 -addr :8081 -base http://localhost:8080  # a second replica sharing its cache
//
// newRouter is the whole wiring. The rest lives in examples/demo:
// the flags, the SQLite catalogue (built in the user's cache directory on
// first run, then reused), the shop's page handlers, the server and the
// crawler.
package main

import (
	"context"
	"database/sql"
	"log/slog"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/chiroutes"
	"github.com/freshmap/sitemap/adapters/sqlsource"
	"github.com/freshmap/sitemap/examples/demo"
)

// main parses the flags, opens the catalogue (and with -redis the Store),
// and serves newRouter's router on -addr until Ctrl-C.
func main() { demo.Main(newRouter) }

// newRouter returns the shop's router, with the sitemap middleware among
// its middlewares, and the sitemap, which the caller closes. Every URL
// starts with opt.Base; store is nil, or with -redis the cache that the
// replicas share. The database tells the sitemap of every commit to the
// products (sqlsource's Watch) until ctx ends. chi wants the middlewares
// before the routes, so the sitemap comes first and the routes last.
func newRouter(ctx context.Context, db *sql.DB, store sitemap.Store, opt demo.Options, log *slog.Logger) (http.Handler, *sitemap.Sitemap, error) {
	r := chi.NewRouter()

	// Static pages: the router's GET routes without parameters (/, /news,
	// /about…). They are read from r whenever the section is built, so the
	// routes declared below are listed.
	pages, err := chiroutes.New(r, chiroutes.Config{
		BaseURL: opt.Base,
		Annotate: func(pattern, path string, u *sitemap.URL) {
			switch path {
			case "/":
				u.ChangeFreq = sitemap.Daily
			case "/news":
				u.ChangeFreq = sitemap.Hourly
			}
		},
	})
	if err != nil {
		return nil, nil, err
	}

	// Products: one file per opt.PageSize ids, each read with one range
	// query plus one for the images, whose table holds paths that BaseURL
	// makes absolute. Every product page exists in each language the router
	// serves: the section says so once (Hreflang), and each product is
	// written in each language, listing all of them. The page summary,
	// kept by Watch from the change table the triggers fill, lists the
	// pages; a write that changes none of the Significant columns records
	// no change.
	products, err := sqlsource.New(db, sqlsource.Config{
		Table:         "products",
		Key:           "id",
		KeyStart:      1,
		PageSize:      opt.PageSize,
		BaseURL:       opt.Base,
		LocTemplate:   "/p/{id}/{slug}",
		LastMod:       "updated_at", // Unix seconds
		Filter:        "published",
		Summary:       true,
		Significant:   []string{"slug", "updated_at", "published"},
		WatchInterval: 250 * time.Millisecond, // SQLite is polled: how often, and the most Invalidate calls
		Loaders: []sqlsource.Loader{sqlsource.Images(`SELECT product_id, path, caption FROM product_images
			WHERE product_id BETWEEN ? AND ? ORDER BY product_id, position`)},
	})
	if err != nil {
		return nil, nil, err
	}

	// Each section's page size comes from its Source. With a Store, each
	// document is built by one replica and served by all of them.
	sm, err := sitemap.New(sitemap.Config{BaseURL: opt.Base, Logger: log, Audit: &sitemap.Audit{}, HTML: true, Store: store},
		sitemap.Section{Name: "pages", Source: pages},
		sitemap.Section{Name: "products", Source: products, Extensions: sitemap.ExtImage | sitemap.ExtAlternates,
			Hreflang: &sitemap.Hreflang{Languages: languages(), XDefault: "en"}}, // each product in every language
	)
	if err != nil {
		return nil, nil, err
	}
	// Installing is a migration: a no-op when installed for this page
	// size already. Then each commit reaches the sitemap with no call of
	// the application's.
	if err := products.InstallSummary(ctx); err != nil {
		sm.Close()
		return nil, nil, err
	}
	watch, err := products.Watch(ctx, sm, "products")
	if err != nil {
		sm.Close()
		return nil, nil, err
	}
	context.AfterFunc(ctx, func() { watch.Close() })

	r.Use(middleware.Recoverer)
	r.Use(sm.Handler) // serves robots.txt and the sitemap files, and passes the rest to the routes

	app := demo.NewApp(db, opt.Base, log)
	r.Get("/", app.Home)
	r.Get("/robots.txt", app.Robots) // the sitemap middleware adds its Sitemap: line
	r.Get("/news", app.News)
	r.Get("/news/{id}/{slug}", app.Article)
	r.Get("/img/{file}", app.Image)
	for _, l := range demo.Languages {
		r.Get(l.Prefix+"/p/{id}/{slug}", app.Product(l.Prefix))
	}
	for _, p := range demo.StaticPages {
		r.Get(p.Path, app.Static(p.Title))
	}
	return r, sm, nil
}

// languages are the languages every product page exists in (demo.Languages),
// as the sitemap's hreflang cluster names them.
func languages() []sitemap.Language {
	var ls []sitemap.Language
	for _, l := range demo.Languages {
		ls = append(ls, sitemap.Language{Tag: l.Code, Prefix: l.Prefix})
	}
	return ls
}
