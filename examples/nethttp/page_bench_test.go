package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/sqlsource"
	"github.com/freshmap/sitemap/examples/demo"
	"github.com/freshmap/sitemap/internal/gzpipe"
	"github.com/freshmap/sitemap/internal/testenv"
	"github.com/freshmap/sitemap/internal/testkit"
)

// The cold page benchmarks read the products page 1 of a demo catalogue
// of benchProducts products, benchPageSize a page (the demo's default),
// with the demo's hreflang cluster (productLanguages): about 9,800
// published products, each listed in its three languages with 1 to 3
// images and 4 alternates, about 29,400 URLs.
const (
	benchProducts = 20_000
	benchPageSize = 10_000
	benchBase     = "http://localhost:8080"
	benchLevel    = 6 // the default gzip level
	benchPath     = "/sitemap-products-1.xml.gz"
)

// benchDBs are the databases the benchmarks read the catalogue from; a
// server's is skipped without its DSN (SITEMAP_TEST_POSTGRES_DSN,
// SITEMAP_TEST_MYSQL_DSN), or fails then with SITEMAP_REQUIRE_SERVICES=1.
var benchDBs = []string{"sqlite", "postgres", "mysql"}

// BenchmarkDemoPage serves a cold demo products page end to end, as
// /sitemap-products-1.xml.gz: the SQLite, PostgreSQL or MariaDB Source
// with its images loader and the alternates its Annotate makes, the XML,
// gzip, the hash and the clock. The index stays cached; the page is never cached (the cache's
// byte budget holds the index but not the page), so each request builds
// it. Compare with BenchmarkDemoPageGzip, gzip alone on the page's XML;
// SetBytes is that XML's length in both.
func BenchmarkDemoPage(b *testing.B) {
	for _, name := range benchDBs {
		b.Run(name, func(b *testing.B) {
			p := newDemoPage(b, name)
			r := httptest.NewRequest(http.MethodGet, benchPath, nil)
			first := httptest.NewRecorder() // the served file's size beside gzip alone's on its XML
			p.sm.ServeHTTP(first, r)
			size := float64(first.Body.Len()) / float64(len(gzipAlone(b, new(bytes.Buffer), p.xml)))
			w := &discard{h: http.Header{}}
			builds := p.sm.Stats().Builds
			b.ReportAllocs()
			b.SetBytes(int64(len(p.xml)))
			cpu := testkit.StartCPU(b)
			for b.Loop() {
				clear(w.h)
				w.code = 0
				p.sm.ServeHTTP(w, r)
			}
			cpu.Report()
			if w.code != 0 && w.code != http.StatusOK || w.n == 0 {
				b.Fatalf("status %d, %d bytes", w.code, w.n)
			}
			if got := p.sm.Stats().Builds - builds; got != int64(b.N) {
				b.Fatalf("%d builds for %d requests: the page was cached", got, b.N)
			}
			b.ReportMetric(float64(p.urls), "urls/page")
			b.ReportMetric(size, "size/gzip")
		})
	}
}

// gzipAlone is xml compressed as one gzip stream at benchLevel, into buf
// (reset first).
func gzipAlone(b *testing.B, buf *bytes.Buffer, xml []byte) []byte {
	buf.Reset()
	z := gzpipe.Get(buf, benchLevel)
	if _, err := z.Write(xml); err != nil {
		b.Fatal(err)
	}
	if err := z.Close(); err != nil {
		b.Fatal(err)
	}
	gzpipe.Put(z, benchLevel)
	return buf.Bytes()
}

// BenchmarkDemoPageGzip compresses the XML of BenchmarkDemoPage's page
// alone, at the same level: the floor it is measured against.
func BenchmarkDemoPageGzip(b *testing.B) {
	for _, name := range benchDBs {
		b.Run(name, func(b *testing.B) {
			p := newDemoPage(b, name)
			var buf bytes.Buffer
			b.ReportAllocs()
			b.SetBytes(int64(len(p.xml)))
			cpu := testkit.StartCPU(b)
			for b.Loop() {
				gzipAlone(b, &buf, p.xml)
			}
			cpu.Report()
			b.ReportMetric(float64(p.urls), "urls/page")
		})
	}
}

// demoPage is a sitemap of the demo's products section alone, its index
// cached, and the XML of its page 1.
type demoPage struct {
	sm   *sitemap.Sitemap
	xml  []byte
	urls int
}

func newDemoPage(b *testing.B, name string) *demoPage {
	db := benchCatalogue(b, name)
	src, err := productsSource(db, demo.Options{Base: benchBase, PageSize: benchPageSize})
	if err != nil {
		b.Fatal(err)
	}
	// The summary the demo installs (its wiring does it for SQLite
	// alone): its Pages and the row times its pages join.
	if err := src.RemoveSummary(b.Context()); err != nil {
		b.Fatal(err)
	}
	if err := src.InstallSummary(b.Context()); err != nil {
		b.Fatal(err)
	}
	sm, err := sitemap.New(sitemap.Config{BaseURL: benchBase, CacheBytes: 64 << 10},
		sitemap.Section{Name: "products", Source: src, Extensions: sitemap.ExtImage | sitemap.ExtAlternates, Hreflang: productLanguages()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { sm.Close() })
	rec := httptest.NewRecorder() // the index, then the page's plain XML
	sm.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, strings.TrimSuffix(benchPath, ".gz"), nil))
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Encoding") != "" {
		b.Fatalf("status %d, headers %v", rec.Code, rec.Header())
	}
	p := &demoPage{sm: sm, xml: rec.Body.Bytes()}
	p.urls = bytes.Count(p.xml, []byte("<url>"))
	if p.urls < benchPageSize*9/10 || !bytes.Contains(p.xml, []byte("<image:image>")) || !bytes.Contains(p.xml, []byte(`hreflang="x-default"`)) {
		b.Fatalf("page 1 has %d URLs, or no images or alternates", p.urls)
	}
	if st := sm.Stats(); st.CachedDocuments != 1 {
		b.Fatalf("%d documents cached, want the index alone", st.CachedDocuments)
	}
	return p
}

// discard is a ResponseWriter that keeps only the status and the number
// of bytes; reset before use.
type discard struct {
	h    http.Header
	code int
	n    int
}

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(p []byte) (int, error) { d.n += len(p); return len(p), nil }
func (d *discard) WriteHeader(code int)        { d.code = code }

var (
	cataloguesMu sync.Mutex
	catalogues   = map[string]*sql.DB{} // by database name, made once per process
	benchTemp    string                 // the SQLite catalogue's directory, removed by TestMain
)

// benchCatalogue returns the demo catalogue of benchProducts products on
// database name: the SQLite file the demo builds, or a copy of its
// products and images in a schema (PostgreSQL) or database
// (MariaDB) named sitemap_demo_bench on the test server.
func benchCatalogue(b *testing.B, name string) *sql.DB {
	cataloguesMu.Lock()
	defer cataloguesMu.Unlock()
	if db := catalogues[name]; db != nil {
		return db
	}
	ctx := context.Background()
	if catalogues["sqlite"] == nil {
		dir, err := os.MkdirTemp("", "demo-bench-")
		if err != nil {
			b.Fatal(err)
		}
		benchTemp = dir
		cat, err := demo.Open(ctx, filepath.Join(dir, "catalogue.db"), benchProducts, nil)
		if err != nil {
			b.Fatal(err)
		}
		catalogues["sqlite"] = cat.DB
	}
	if name == "sqlite" {
		return catalogues[name]
	}
	db := openBenchServer(b, name)
	if err := copyCatalogue(ctx, catalogues["sqlite"], db, name); err != nil {
		db.Close()
		b.Fatal(err)
	}
	catalogues[name] = db
	return db
}

// openBenchServer opens the database sitemap_demo_bench on the server
// named by the DSN in postgres's or mysql's variable, creating it.
func openBenchServer(b *testing.B, name string) *sql.DB {
	group, env, driver := "PostgreSQL", "SITEMAP_TEST_POSTGRES_DSN", "pgx"
	if name == "mysql" {
		group, env, driver = "MariaDB", "SITEMAP_TEST_MYSQL_DSN", "mysql"
	}
	dsn := os.Getenv(env)
	if dsn == "" {
		testenv.Unavailable(b, group, env+" is not set")
	}
	admin, err := sql.Open(driver, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer admin.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := admin.PingContext(ctx); err != nil {
		testenv.Unavailable(b, group, fmt.Sprintf("no answer at %s: %v", env, err))
	}
	if name == "postgres" {
		if _, err := admin.Exec("DROP SCHEMA IF EXISTS sitemap_demo_bench CASCADE; CREATE SCHEMA sitemap_demo_bench"); err != nil {
			b.Fatal(err)
		}
		sep := "?"
		if strings.Contains(dsn, "?") {
			sep = "&"
		}
		dsn += sep + "search_path=sitemap_demo_bench"
	} else {
		for _, q := range []string{"DROP DATABASE IF EXISTS sitemap_demo_bench", "CREATE DATABASE sitemap_demo_bench"} {
			if _, err := admin.Exec(q); err != nil {
				b.Fatal(err)
			}
		}
		cfg, err := mysql.ParseDSN(dsn)
		if err != nil {
			b.Fatal(err)
		}
		cfg.DBName = "sitemap_demo_bench"
		dsn = cfg.FormatDSN()
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		b.Fatal(err)
	}
	return db
}

// catalogueTables are the tables the products section reads, with their
// columns, as the demo's SQLite schema has them; "bool" is a boolean
// column, and "time" a time (Unix seconds in SQLite, TIMESTAMPTZ or
// DATETIME on the servers, as a summary's times there are).
var catalogueTables = []struct {
	name, key string
	cols      []string
	types     []string
}{
	{"products", "id", []string{"id", "slug", "name", "price_cents", "updated_at", "published"},
		[]string{"BIGINT", "VARCHAR(255)", "VARCHAR(255)", "BIGINT", "time", "bool"}},
	{"product_images", "product_id, position", []string{"product_id", "position", "path", "caption"},
		[]string{"BIGINT", "INT", "VARCHAR(255)", "VARCHAR(255)"}},
}

// copyCatalogue creates the catalogue's tables in dst and copies the rows
// of src into them, 500 rows an INSERT.
func copyCatalogue(ctx context.Context, src, dst *sql.DB, name string) error {
	dialect := sqlsource.Postgres
	if name == "mysql" {
		dialect = sqlsource.MySQL
	}
	for _, t := range catalogueTables {
		defs := make([]string, len(t.cols))
		for i, c := range t.cols {
			typ := t.types[i]
			switch {
			case typ == "bool":
				typ = "BOOLEAN"
			case typ == "time" && name == "mysql":
				typ = "DATETIME"
			case typ == "time":
				typ = "TIMESTAMPTZ"
			}
			defs[i] = c + " " + typ + " NOT NULL"
		}
		if _, err := dst.ExecContext(ctx, "CREATE TABLE "+t.name+" ("+strings.Join(defs, ", ")+", PRIMARY KEY ("+t.key+"))"); err != nil {
			return fmt.Errorf("%s: %w", t.name, err)
		}
		rows, err := src.QueryContext(ctx, "SELECT "+strings.Join(t.cols, ", ")+" FROM "+t.name)
		if err != nil {
			return err
		}
		insert := func(vals []any) error {
			if len(vals) == 0 {
				return nil
			}
			row := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(t.cols)), ", ") + ")"
			q := "INSERT INTO " + t.name + " VALUES " + strings.TrimSuffix(strings.Repeat(row+", ", len(vals)/len(t.cols)), ", ")
			_, err := dst.ExecContext(ctx, dialect.Rebind(q), vals...)
			return err
		}
		var vals []any
		for rows.Next() {
			row := make([]any, len(t.cols))
			ptrs := make([]any, len(t.cols))
			for i := range row {
				switch t.types[i] {
				case "bool":
					ptrs[i] = new(bool)
				case "BIGINT", "INT", "time":
					ptrs[i] = new(int64)
				default:
					ptrs[i] = new(string)
				}
			}
			if err := rows.Scan(ptrs...); err != nil {
				rows.Close()
				return err
			}
			for i, p := range ptrs {
				switch p := p.(type) {
				case *bool:
					row[i] = *p
				case *int64:
					row[i] = *p
					if t.types[i] == "time" {
						row[i] = time.Unix(*p, 0).UTC()
					}
				case *string:
					row[i] = *p
				}
			}
			if vals = append(vals, row...); len(vals) >= 500*len(t.cols) {
				if err := insert(vals); err != nil {
					rows.Close()
					return fmt.Errorf("%s: %w", t.name, err)
				}
				vals = vals[:0]
			}
		}
		if err := rows.Close(); err != nil {
			return err
		}
		if err := insert(vals); err != nil {
			return fmt.Errorf("%s: %w", t.name, err)
		}
	}
	if name == "postgres" {
		_, err := dst.ExecContext(ctx, "ANALYZE")
		return err
	}
	_, err := dst.ExecContext(ctx, "ANALYZE TABLE products, product_images")
	return err
}

// closeCatalogues closes the benchmarks' databases and removes the SQLite
// catalogue's directory.
func closeCatalogues() {
	for _, db := range catalogues {
		db.Close()
	}
	if benchTemp != "" {
		os.RemoveAll(benchTemp)
	}
}
