// Command nethttp is a demo shop on net/http's ServeMux with a dynamic
// sitemap in three sections: its static pages, 200,000 products in three
// languages with images and hreflang alternates, and the news of the last
// two days. The
// sitemap's Prometheus metrics are at /metrics.
//
//	go run ./examples/nethttp             # serve on :8080
//	go run ./examples/nethttp -crawl      # fetch the whole sitemap once and print figures
//	go run ./examples/nethttp -churn 2s   # edit the catalogue every 2 s and print how soon the sitemap showed it
//	go run ./examples/nethttp -h          # the other flags
//
// Replicas share their cache through Redis when they have the same -redis
// and the same base URL (by default, http://localhost and the -addr port):
//
//	go run ./examples/nethttp -redis 127.0.0.1:6379                                          # the first, on :8080
//	go run ./examples/nethttp -redis 127.0.0.1:6379 -addr :8081 -base http://localhost:8080  # a second replica sharing its cache
//
// newHandler is the whole wiring. The rest lives in examples/demo:
// the flags, the SQLite catalogue (built in the user's cache directory on
// first run, then reused), the shop's page handlers, the server and the
// crawler.
package main

import (
	"context"
	"database/sql"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/promsitemap"
	"github.com/freshmap/sitemap/adapters/sqlsource"
	"github.com/freshmap/sitemap/examples/demo"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// main parses the flags, opens the catalogue (and with -redis the Store),
// and serves newHandler's handler on -addr until Ctrl-C.
func main() { demo.Main(newHandler) }

// newHandler returns the shop wrapped in the sitemap middleware, and the
// sitemap, which the caller closes. Every URL starts with opt.Base. store
// is nil, or with -redis the cache that the replicas share. The database
// tells the sitemap of every commit (sqlsource's Watch) until ctx ends.
func newHandler(ctx context.Context, db *sql.DB, store sitemap.Store, opt demo.Options, log *slog.Logger) (http.Handler, *sitemap.Sitemap, error) {
	app := demo.NewApp(db, opt.Base, log)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", app.Home)
	mux.HandleFunc("GET /robots.txt", app.Robots) // the sitemap middleware adds its Sitemap: line
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

	products, err := productsSource(db, opt)
	if err != nil {
		return nil, nil, err
	}

	// News: the newest 1,000 articles of the last two days, always at
	// /sitemap-news-1.xml.gz (Section.Latest reads Recent, newest first),
	// with their <news:news> filled from the same rows.
	news, err := sqlsource.New(db, sqlsource.Config{
		Table:         "articles",
		Key:           "id",
		KeyStart:      1,
		PageSize:      1000,
		BaseURL:       opt.Base,
		LocTemplate:   "/news/{id}/{slug}",
		LastMod:       "published_at",
		Filter:        "published_at >= unixepoch('now', '-2 days')",
		Columns:       []string{"title", "lang", "keywords"},
		Summary:       true, // for Watch: a new article reaches the news file at once
		WatchInterval: 250 * time.Millisecond,
		Annotate: func(r *sqlsource.Row, u *sitemap.URL) error {
			u.News = &sitemap.News{PublicationName: "Freshmap Daily", Language: r.String("lang"), PublicationDate: r.LastMod,
				Title: r.String("title"), Keywords: strings.Split(r.String("keywords"), ", ")}
			return nil
		},
	})
	if err != nil {
		return nil, nil, err
	}

	// Each section's page size comes from its Source. With a Store, each
	// document is built by one replica and served by all of them.
	sm, err := sitemap.New(sitemap.Config{BaseURL: opt.Base, Logger: log, Audit: &sitemap.Audit{}, HTML: true, FeedEntries: 100, IndexNow: opt.IndexNow(), Store: store},
		sitemap.Section{Name: "pages", Source: sitemap.FromSlice(pages, 0)},
		sitemap.Section{Name: "products", Source: products, Extensions: sitemap.ExtImage | sitemap.ExtAlternates, Hreflang: productLanguages()},
		sitemap.Section{Name: "news", Source: news, Extensions: sitemap.ExtNews, Latest: true},
	)
	if err != nil {
		return nil, nil, err
	}
	// Installing is a migration: a no-op when installed for this page
	// size already. Then each commit reaches the sitemap with no call of
	// the application's, through every replica's Store.
	for _, w := range []struct {
		section string
		src     *sqlsource.Source
	}{{"products", products}, {"news", news}} {
		if err := w.src.InstallSummary(ctx); err != nil {
			sm.Close()
			return nil, nil, err
		}
		watch, err := w.src.Watch(ctx, sm, w.section)
		if err != nil {
			sm.Close()
			return nil, nil, err
		}
		context.AfterFunc(ctx, func() { watch.Close() })
	}
	reg := prometheus.NewRegistry() // the sitemap's metrics at /metrics
	reg.MustRegister(promsitemap.New(sm))
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	return sm.Handler(mux), sm, nil // serves robots.txt and the sitemap files, and passes the rest to mux
}

// productsSource is the products section's Source: one file per
// opt.PageSize ids, each read with one range query plus one for the
// images (sqlsource.ImagesFrom: on SQLite, a page's images come as one
// row). The tables hold paths, which BaseURL makes absolute. Every
// product page exists in each language the mux serves: the section says
// so once (productLanguages), and each product is written in each of them.
// The page summary, kept by Watch from the change table the triggers
// fill, lists the pages; a write that changes none of the Significant
// columns (a price) records no change and changes nothing in the sitemap.
// Its SQL is the same on SQLite, PostgreSQL and MariaDB.
func productsSource(db *sql.DB, opt demo.Options) (*sqlsource.Source, error) {
	return sqlsource.New(db, sqlsource.Config{
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
		Loaders: []sqlsource.Loader{
			sqlsource.ImagesFrom(sqlsource.ImageTable{Table: "product_images",
				Key: "product_id", Order: "position", Loc: "path", Caption: "caption"}),
		},
	})
}

// productLanguages is the hreflang cluster of every product page: one
// version in each of demo.Languages (/p/…, /de/p/…, /fr/p/…), English
// also the x-default.
func productLanguages() *sitemap.Hreflang {
	h := &sitemap.Hreflang{XDefault: "en"}
	for _, l := range demo.Languages {
		h.Languages = append(h.Languages, sitemap.Language{Tag: l.Code, Prefix: l.Prefix})
	}
	return h
}
