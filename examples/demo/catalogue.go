// Package demo holds what the runnable examples (examples/nethttp and
// examples/chi) share and what is not about the sitemap library itself: an
// embedded SQLite catalogue of products and news articles, built on first
// run; a tiny shop application that serves its pages; and Main, which
// parses the flags, opens the catalogue, calls an example's Wiring and
// serves the result, or with -crawl fetches the whole sitemap tree once and
// reports time and memory. Each example's Wiring, its routes, sitemap
// sections and middleware, stays in its own main.go.
package demo

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"time"

	_ "modernc.org/sqlite" // registers the pure-Go "sqlite" driver
)

// schemaVersion changes whenever the schema or the generated data does, so
// that an older catalogue file is rebuilt rather than misread. Version 2
// has no languages table: every product page exists in each of Languages,
// and the wirings make the alternates from those.
const schemaVersion = 2

// Catalogue is an open demo database.
type Catalogue struct {
	DB        *sql.DB
	Path      string
	Products  int           // products in the catalogue, published or not
	Built     bool          // whether Open built the file (false: reused)
	BuildTime time.Duration // how long building took, when Built
}

// Close closes the database.
func (c *Catalogue) Close() error { return c.DB.Close() }

// DefaultPath is where a catalogue of n products lives unless -db says
// otherwise: in the user's cache directory, or else the temp directory,
// never inside the source tree.
func DefaultPath(n int) string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "freshmap-sitemap-demo", "catalogue-"+strconv.Itoa(n)+".db")
}

// Open opens the catalogue at path, building it first unless the file
// already holds a complete catalogue of n products (its meta row is written
// last, in the same transaction as everything else, so an interrupted build
// leaves a file that is rebuilt). It then tops up the news so that the last
// two days have articles. A file that is not a demo catalogue is never
// overwritten.
func Open(ctx context.Context, path string, n int, log *slog.Logger) (*Catalogue, error) {
	if n < 1 {
		return nil, fmt.Errorf("demo: the catalogue needs at least 1 product, not %d", n)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	c := &Catalogue{Path: path, Products: n}
	complete, err := inspect(ctx, path, n)
	if err != nil {
		return nil, err
	}
	if !complete {
		log.Info("building the demo catalogue", "path", path, "products", n)
		start := time.Now()
		if err := build(ctx, path, n); err != nil {
			return nil, err
		}
		c.Built, c.BuildTime = true, time.Since(start)
		log.Info("catalogue built", "path", path, "products", n, "took", c.BuildTime.Round(time.Millisecond))
	} else {
		log.Info("reusing the demo catalogue", "path", path, "products", n)
	}
	c.DB, err = sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)")
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	if err := topUpNews(ctx, c.DB, time.Now()); err != nil {
		c.DB.Close()
		return nil, err
	}
	return c, nil
}

// ourTables are the tables a demo catalogue holds
// (with the page summaries and change tables the wirings install, and
// the row times of a summary with Significant columns; languages is in
// catalogues of version 1, which are rebuilt, and summaries in those
// whose wirings recorded their installations).
var ourTables = map[string]bool{"meta": true, "products": true, "product_images": true, "languages": true, "articles": true,
	"summaries": true, "products_sitemap_pages": true, "articles_sitemap_pages": true,
	"products_sitemap_rows": true, "articles_sitemap_rows": true,
	"products_sitemap_changes": true, "articles_sitemap_changes": true}

// inspect reports whether path holds a complete catalogue of n products.
// It removes a file that is ours but incomplete or of another size or
// version, and refuses one that holds tables of its own.
func inspect(ctx context.Context, path string, n int) (complete bool, err error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		return false, fmt.Errorf("demo: %w", err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "SELECT name FROM sqlite_schema WHERE type = 'table'")
	if err != nil {
		return false, fmt.Errorf("demo: %s is not a SQLite database: %w", path, err)
	}
	tables := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return false, fmt.Errorf("demo: %w", err)
		}
		tables[name] = true
	}
	if err := rows.Close(); err != nil {
		return false, fmt.Errorf("demo: %w", err)
	}
	for name := range tables {
		if !ourTables[name] {
			return false, fmt.Errorf("demo: %s holds a table %q, so it is not a demo catalogue; choose another -db", path, name)
		}
	}
	if tables["meta"] {
		var version, products int
		err := db.QueryRowContext(ctx, "SELECT version, products FROM meta").Scan(&version, &products)
		if err == nil && version == schemaVersion && products == n {
			return true, nil
		}
	}
	db.Close()
	for _, f := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return false, fmt.Errorf("demo: removing an incomplete catalogue: %w", err)
		}
	}
	return false, nil
}
