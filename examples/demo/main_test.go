package demo

import (
	"bytes"
	"context"
	"database/sql"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/internal/testkit"
)

// homeOnly is the smallest Wiring: the home page and robots.txt, and a
// sitemap that lists the home page.
func homeOnly(_ context.Context, db *sql.DB, store sitemap.Store, opt Options, log *slog.Logger) (http.Handler, *sitemap.Sitemap, error) {
	app := NewApp(db, opt.Base, log)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", app.Home)
	mux.HandleFunc("GET /robots.txt", app.Robots)
	sm, err := sitemap.New(sitemap.Config{BaseURL: opt.Base, Logger: log, Store: store},
		sitemap.Section{Source: sitemap.FromSlice([]sitemap.URL{{Loc: opt.Base + "/"}}, 0)})
	if err != nil {
		return nil, nil, err
	}
	return sm.Handler(mux), sm, nil
}

func TestRunCrawl(t *testing.T) {
	var base string
	wire := func(ctx context.Context, db *sql.DB, store sitemap.Store, opt Options, log *slog.Logger) (http.Handler, *sitemap.Sitemap, error) {
		base = opt.Base
		return homeOnly(ctx, db, store, opt, log)
	}
	var out bytes.Buffer
	args := []string{"-crawl", "-products", "50", "-db", filepath.Join(t.TempDir(), "catalogue.db")}
	if err := run(t.Context(), args, &out, wire); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Errorf("with -crawl the Wiring got base %q, want the loopback port's URL", base)
	}
	if want := "crawl: robots.txt, the index and 1 sitemap files with 1 URLs in "; !strings.HasPrefix(out.String(), want) {
		t.Errorf("output:\n%s\nwant it to start with %q", out.String(), want)
	}
}

// TestRunServe serves until the context is done, and prints the URLs to
// open first.
func TestRunServe(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	out := new(testkit.SyncBuffer)
	errc := make(chan error, 1)
	args := []string{"-addr", "127.0.0.1:0", "-products", "50", "-db", filepath.Join(t.TempDir(), "catalogue.db")}
	go func() { errc <- run(ctx, args, out, homeOnly) }()
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(out.String(), "Ctrl-C stops it."); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no Ctrl-C line after 10 s:\n%s", out.String())
		}
	}
	cancel()
	if err := <-errc; err != nil {
		t.Errorf("run: %v", err)
	}
	if want := "the sitemap index (1 files)"; !strings.Contains(out.String(), want) {
		t.Errorf("output:\n%s\nwant %q", out.String(), want)
	}
}

// TestRunRedisDown crawls a demo whose -redis names a port where no Redis
// listens: the sitemap serves alone, and the demo does not stop.
func TestRunRedisDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	var sm *sitemap.Sitemap
	wire := func(ctx context.Context, db *sql.DB, store sitemap.Store, opt Options, log *slog.Logger) (http.Handler, *sitemap.Sitemap, error) {
		if store == nil {
			t.Error("with -redis the Wiring got no Store")
		}
		h, s, err := homeOnly(ctx, db, store, opt, log)
		sm = s
		return h, s, err
	}
	var out bytes.Buffer
	args := []string{"-crawl", "-redis", addr, "-products", "50", "-db", filepath.Join(t.TempDir(), "catalogue.db")}
	if err := run(t.Context(), args, &out, wire); err != nil {
		t.Fatal(err)
	}
	if want := "crawl: robots.txt, the index and 1 sitemap files with 1 URLs in "; !strings.HasPrefix(out.String(), want) {
		t.Errorf("output:\n%s\nwant it to start with %q", out.String(), want)
	}
	if st := sm.Stats(); st.Builds != 2 || st.StoreErrors == 0 {
		t.Errorf("built %d documents with %d store errors; want the index and its file built here, and the errors counted", st.Builds, st.StoreErrors)
	}
}
