package demo

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"

	"github.com/freshmap/sitemap"
)

// Wiring is what an example program is about, and what a user copies: the
// shop's routes on the catalogue db, its sitemap's sections and the
// sitemap middleware, for a site whose URLs start with opt.Base. store is
// the sitemap's Config.Store: nil, or with -redis the cache that the
// replicas share (see Options.Store). It returns the handler to serve and
// the sitemap, which the caller closes, before it closes db and store.
// ctx ends, before the sitemap is closed, when the program stops: what the
// wiring starts for the sitemap, such as sqlsource's Watch, ends with it.
type Wiring func(ctx context.Context, db *sql.DB, store sitemap.Store, opt Options, log *slog.Logger) (http.Handler, *sitemap.Sitemap, error)

// Main runs an example program around wire: it parses the flags, opens the
// catalogue (building it on first run) and, with -redis, the Store, calls
// wire, and serves the handler on -addr, as http.ListenAndServe would,
// until Ctrl-C; with -crawl it instead serves on a loopback port, crawls
// the whole sitemap once and prints figures. On an error it prints it and
// exits with status 1.
func Main(wire Wiring) {
	if err := run(context.Background(), os.Args[1:], os.Stdout, wire); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// run is Main with the arguments, the output and the context as
// parameters; it returns when ctx is done.
func run(ctx context.Context, args []string, out io.Writer, wire Wiring) error {
	opt := parseFlags(args)
	log := opt.logger()
	ln, err := listen(&opt) // with -crawl, a loopback port that opt.Base then names
	if err != nil {
		return err
	}
	defer ln.Close()
	cat, err := Open(ctx, opt.DB, opt.Products, log)
	if err != nil {
		return err
	}
	defer cat.Close()
	store, closeStore, err := opt.Store()
	if err != nil {
		return err
	}
	defer closeStore() // after sm.Close, deferred below
	if store != nil {
		log.Info("sharing the sitemap cache through Redis at " + opt.Redis)
	}
	wctx, stop := context.WithCancel(ctx)
	defer stop() // before sm.Close: what the wiring started ends first
	h, sm, err := wire(wctx, cat.DB, store, opt, log)
	if err != nil {
		return err
	}
	defer sm.Close()
	defer stop()
	if opt.Churn > 0 && !opt.Crawl {
		done := make(chan struct{})
		go func() {
			defer close(done)
			c := &Churn{DB: cat.DB, Site: h, PageSize: opt.PageSize, NoArticles: !hasSection(sm, "news")}
			if err := c.Run(wctx, opt.Churn, out); err != nil {
				log.Error("the churn stopped", "err", err)
			}
		}()
		defer func() { stop(); <-done }() // before sm.Close
	}
	return serve(ctx, ln, h, sm, opt, out, log)
}

// hasSection reports whether sm has a section named name.
func hasSection(sm *sitemap.Sitemap, name string) bool {
	for _, st := range sm.SectionStats() {
		if st.Section == name {
			return true
		}
	}
	return false
}
