package sqlsource_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/sqlsource"
	"github.com/freshmap/sitemap/internal/testenv"

	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"
)

// The environment variables that name the test servers. Without them, or
// when a server does not answer, its tests are skipped, or fail when
// SITEMAP_REQUIRE_SERVICES=1 (see internal/testenv); SQLite always runs.
const (
	envPostgres = "SITEMAP_TEST_POSTGRES_DSN"
	envMySQL    = "SITEMAP_TEST_MYSQL_DSN"
)

// server is a database server the tests can use.
type server struct {
	group   string // its group in testenv's summary of skipped tests
	env     string // the variable that holds its DSN
	example string // a DSN to give as an example
	driver  string
}

var servers = map[string]server{
	"postgres": {"PostgreSQL", envPostgres, "postgres://postgres@127.0.0.1:5432/test?sslmode=disable", "pgx"},
	"mysql":    {"MariaDB", envMySQL, "root@tcp(127.0.0.1:3306)/test?parseTime=true", "mysql"},
}

// pingTimeout is how long a server has to answer before its tests give up.
const pingTimeout = 3 * time.Second

var (
	downMu sync.Mutex
	down   = map[string]string{} // server name → why it did not answer, so later tests need not wait again
)

// openServer opens database server name ("postgres" or "mysql") at the DSN
// in its environment variable and checks that it answers. When the variable
// is unset or the server does not answer, it stops t with
// testenv.Unavailable: a skip, or a failure when services are required.
// The caller closes the *sql.DB.
func openServer(t testing.TB, name string) (*sql.DB, string) {
	t.Helper()
	srv, ok := servers[name]
	if !ok {
		t.Fatalf("unknown database server %q", name)
	}
	dsn := os.Getenv(srv.env)
	if dsn == "" {
		testenv.Unavailable(t, srv.group, srv.env+" is not set; set it to a DSN such as "+srv.example)
	}
	downMu.Lock()
	why := down[name]
	downMu.Unlock()
	if why != "" {
		testenv.Unavailable(t, srv.group, why)
	}
	db, err := sql.Open(srv.driver, dsn)
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), pingTimeout)
		err = db.PingContext(ctx)
		cancel()
		if err != nil {
			db.Close()
		}
	}
	if err != nil {
		why := fmt.Sprintf("no answer at %s within %v: %v", srv.env, pingTimeout, err)
		downMu.Lock()
		down[name] = why
		downMu.Unlock()
		testenv.Unavailable(t, srv.group, why)
	}
	return db, dsn
}

// testDB is one database a test runs against.
type testDB struct {
	name    string // sqlite, postgres, mysql
	dialect sqlsource.Dialect
	dsn     string
	db      *sql.DB
}

var dbNames = []string{"sqlite", "postgres", "mysql"}

// forEachDB runs f as a subtest on each database; openDB skips those whose
// server is not there.
func forEachDB(t *testing.T, f func(t *testing.T, d *testDB)) {
	t.Helper()
	for _, name := range dbNames {
		t.Run(name, func(t *testing.T) {
			f(t, openDB(t, name))
		})
	}
}

// openDB opens database name for t: a new SQLite file, or a server that
// openServer found. The *sql.DB is closed when t ends.
func openDB(t testing.TB, name string) *testDB {
	t.Helper()
	d := &testDB{name: name}
	switch name {
	case "sqlite":
		d.dialect = sqlsource.SQLite
		d.dsn = "file:" + filepath.Join(t.TempDir(), "test.db") + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)"
		d.db = d.open(t)
		return d
	case "postgres":
		d.dialect = sqlsource.Postgres
	case "mysql":
		d.dialect = sqlsource.MySQL
	default:
		t.Fatalf("unknown database %q", name)
	}
	db, dsn := openServer(t, name)
	t.Cleanup(func() { db.Close() })
	d.db, d.dsn = db, dsn
	return d
}

// open opens another *sql.DB on d's database, closed when t ends.
func (d *testDB) open(t testing.TB) *sql.DB {
	t.Helper()
	driver := map[string]string{"sqlite": "sqlite", "postgres": "pgx", "mysql": "mysql"}[d.name]
	db, err := sql.Open(driver, d.dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		t.Fatalf("%s: %v", d.name, err)
	}
	return db
}

// tableName returns a name no other test uses, since tests of several
// packages share the servers.
func tableName(t testing.TB, prefix string) string {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return "sqlsrc_" + prefix + "_" + hex.EncodeToString(b[:])
}

func (d *testDB) exec(t testing.TB, query string, args ...any) {
	t.Helper()
	if _, err := d.db.ExecContext(context.Background(), d.dialect.Rebind(query), args...); err != nil {
		t.Fatalf("%s: %s: %v", d.name, query, err)
	}
}

// createTable creates a table with the columns given as name and type per
// dialect, and drops it when t ends.
func (d *testDB) createTable(t testing.TB, prefix string, cols ...column) string {
	t.Helper()
	name := tableName(t, prefix)
	defs := make([]string, len(cols))
	for i, c := range cols {
		defs[i] = c.name + " " + c.types[d.name]
	}
	ddl := "CREATE TABLE " + name + " (" + strings.Join(defs, ", ") + ")"
	if d.name == "mysql" {
		ddl += " DEFAULT CHARSET=utf8mb4"
	}
	d.exec(t, ddl)
	t.Cleanup(func() {
		if _, err := d.db.Exec("DROP TABLE " + name); err != nil && !strings.Contains(err.Error(), "closed") {
			t.Errorf("drop %s: %v", name, err)
		}
	})
	return name
}

type column struct {
	name  string
	types map[string]string // by database name
}

func col(name, sqlite, postgres, mysql string) column {
	return column{name, map[string]string{"sqlite": sqlite, "postgres": postgres, "mysql": mysql}}
}

// product is one row of the test catalogue.
type product struct {
	ID         int64
	Slug       string
	Loc        string    // the loc the slug must give; "" means the plain one
	Updated    time.Time // zero stores NULL
	Published  bool
	Noindex    bool
	Images     []string
	Alternates [][2]string // hreflang, href
}

const base = "https://shop.example.com/p/"

func (p product) loc() string {
	if p.Loc != "" {
		return p.Loc
	}
	return base + p.Slug
}

func (p product) listed() bool { return p.Published && !p.Noindex }

// catalogue holds products in tables of one database.
type catalogue struct {
	d                      *testDB
	products, images, alts string // table names
	timeForm               string // how SQLite stores times: "text" (default), "iso", "unix"
}

// createCatalogue creates the product, image and alternate tables and
// inserts ps.
func (d *testDB) createCatalogue(t testing.TB, ps []product) *catalogue {
	t.Helper()
	return d.createCatalogueAs(t, ps, "text")
}

func (d *testDB) createCatalogueAs(t testing.TB, ps []product, timeForm string) *catalogue {
	t.Helper()
	timeType := map[string]string{"text": "TEXT", "iso": "TEXT", "unix": "INTEGER", "datetime": "DATETIME"}[timeForm]
	c := &catalogue{d: d, timeForm: timeForm}
	c.products = d.createTable(t, "products",
		col("id", "INTEGER PRIMARY KEY", "BIGINT PRIMARY KEY", "BIGINT PRIMARY KEY"),
		col("slug", "TEXT", "TEXT", "VARCHAR(255)"),
		col("updated_at", timeType, "TIMESTAMPTZ", "DATETIME"),
		col("published", "BOOLEAN NOT NULL", "BOOLEAN NOT NULL", "BOOLEAN NOT NULL"),
		col("noindex", "BOOLEAN NOT NULL", "BOOLEAN NOT NULL", "BOOLEAN NOT NULL"))
	c.images = d.createTable(t, "images",
		col("product_id", "INTEGER NOT NULL", "BIGINT NOT NULL", "BIGINT NOT NULL"),
		col("position", "INTEGER NOT NULL", "INTEGER NOT NULL", "INTEGER NOT NULL"),
		col("url", "TEXT NOT NULL", "TEXT NOT NULL", "VARCHAR(255) NOT NULL"),
		col("title", "TEXT", "TEXT", "VARCHAR(255)"))
	c.alts = d.createTable(t, "alts",
		col("product_id", "INTEGER NOT NULL", "BIGINT NOT NULL", "BIGINT NOT NULL"),
		col("lang", "TEXT NOT NULL", "TEXT NOT NULL", "VARCHAR(16) NOT NULL"),
		col("href", "TEXT NOT NULL", "TEXT NOT NULL", "VARCHAR(255) NOT NULL"))
	c.insert(t, ps...)
	return c
}

// timeArg returns t as this database stores it: a time.Time for the
// servers, and for SQLite the form the catalogue was made with.
func (c *catalogue) timeArg(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	if c.d.name != "sqlite" {
		return t
	}
	switch c.timeForm {
	case "unix":
		return t.Unix()
	case "iso":
		return t.UTC().Format("2006-01-02T15:04:05Z")
	}
	return t.UTC().Format("2006-01-02 15:04:05")
}

// insert adds products with their images and alternates, in batches.
func (c *catalogue) insert(t testing.TB, ps ...product) {
	t.Helper()
	const batch = 200
	for lo := 0; lo < len(ps); lo += batch {
		chunk := ps[lo:min(lo+batch, len(ps))]
		var rows, imgs, alts []string
		var args, imgArgs, altArgs []any
		for _, p := range chunk {
			rows = append(rows, "(?, ?, ?, ?, ?)")
			args = append(args, p.ID, p.Slug, c.timeArg(p.Updated), p.Published, p.Noindex)
			for i, img := range p.Images {
				imgs = append(imgs, "(?, ?, ?, ?)")
				imgArgs = append(imgArgs, p.ID, i, img, "image "+fmt.Sprint(i))
			}
			for _, a := range p.Alternates {
				alts = append(alts, "(?, ?, ?)")
				altArgs = append(altArgs, p.ID, a[0], a[1])
			}
		}
		c.d.exec(t, "INSERT INTO "+c.products+" (id, slug, updated_at, published, noindex) VALUES "+strings.Join(rows, ", "), args...)
		if len(imgs) > 0 {
			c.d.exec(t, "INSERT INTO "+c.images+" (product_id, position, url, title) VALUES "+strings.Join(imgs, ", "), imgArgs...)
		}
		if len(alts) > 0 {
			c.d.exec(t, "INSERT INTO "+c.alts+" (product_id, lang, href) VALUES "+strings.Join(alts, ", "), altArgs...)
		}
	}
}

// config returns the usual configuration for the catalogue: loc from the
// slug, lastmod, the published filter, and pages of size keys.
func (c *catalogue) config(size int) sqlsource.Config {
	return sqlsource.Config{
		Table:       c.products,
		Key:         "id",
		LocTemplate: base + "{slug}",
		LastMod:     "updated_at",
		Filter:      "published AND NOT noindex",
		PageSize:    size,
		Dialect:     c.d.dialect,
	}
}

// withExtensions adds the image and alternate loaders to cfg.
func (c *catalogue) withExtensions(cfg sqlsource.Config) sqlsource.Config {
	cfg.Loaders = []sqlsource.Loader{
		sqlsource.Images("SELECT product_id, url FROM " + c.images + " WHERE product_id BETWEEN ? AND ? ORDER BY product_id, position"),
		sqlsource.Alternates("SELECT product_id, lang, href FROM " + c.alts + " WHERE product_id BETWEEN ? AND ? ORDER BY product_id, lang"),
	}
	return cfg
}

func newSource(t testing.TB, db *sql.DB, cfg sqlsource.Config) *sqlsource.Source {
	t.Helper()
	src, err := sqlsource.New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// readPage collects page n of src, copying the slices of every URL (the
// contract lets a Source reuse them).
func readPage(ctx context.Context, src sitemap.Source, n int64) ([]sitemap.URL, error) {
	var urls []sitemap.URL
	for u, err := range src.URLs(ctx, n) {
		if err != nil {
			return urls, err
		}
		u.Images = slices.Clone(u.Images)
		u.Alternates = slices.Clone(u.Alternates)
		urls = append(urls, u)
	}
	return urls, nil
}

func readPages(ctx context.Context, src sitemap.Source) ([]sitemap.PageInfo, error) {
	var infos []sitemap.PageInfo
	for p, err := range src.Pages(ctx) {
		if err != nil {
			return infos, err
		}
		infos = append(infos, p)
	}
	return infos, nil
}

// snapshot is everything a Source serves: its pages and their URLs.
type snapshot struct {
	infos []sitemap.PageInfo
	urls  map[int64][]sitemap.URL
}

func takeSnapshot(t testing.TB, src sitemap.Source) snapshot {
	t.Helper()
	ctx := context.Background()
	infos, err := readPages(ctx, src)
	if err != nil {
		t.Fatalf("Pages: %v", err)
	}
	s := snapshot{infos: infos, urls: map[int64][]sitemap.URL{}}
	for _, p := range infos {
		urls, err := readPage(ctx, src, p.Number)
		if err != nil {
			t.Fatalf("URLs(%d): %v", p.Number, err)
		}
		s.urls[p.Number] = urls
	}
	return s
}

// model computes what a Source over ps must serve, with pages of size keys
// from start, listing the products that pass listed: the expected URLs
// (with extensions when ext is set) and each page's newest lastmod.
func model(ps []product, size, start int64, ext bool) (map[int64][]sitemap.URL, map[int64]time.Time) {
	ps = slices.Clone(ps)
	slices.SortFunc(ps, func(a, b product) int { return int(a.ID - b.ID) })
	urls, lastmods := map[int64][]sitemap.URL{}, map[int64]time.Time{}
	for _, p := range ps {
		if !p.listed() || p.ID < start {
			continue
		}
		n := (p.ID-start)/size + 1
		u := sitemap.URL{Loc: p.loc(), LastMod: p.Updated.UTC().Truncate(time.Second)}
		if p.Updated.IsZero() {
			u.LastMod = time.Time{}
		}
		if ext {
			for _, img := range p.Images {
				u.Images = append(u.Images, sitemap.Image{Loc: img})
			}
			alts := slices.Clone(p.Alternates)
			slices.SortFunc(alts, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
			for _, a := range alts {
				u.Alternates = append(u.Alternates, sitemap.Alternate{Hreflang: a[0], Href: a[1]})
			}
		}
		urls[n] = append(urls[n], u)
		if u.LastMod.After(lastmods[n]) {
			lastmods[n] = u.LastMod
		}
	}
	return urls, lastmods
}

var t0 = time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)

// products returns n listed products with the given ids, each with a
// distinct lastmod.
func products(ids ...int64) []product {
	ps := make([]product, len(ids))
	for i, id := range ids {
		ps[i] = product{ID: id, Slug: fmt.Sprintf("item-%d", id), Updated: t0.Add(time.Duration(id) * time.Minute), Published: true}
	}
	return ps
}

func ids(lo, hi int64) []int64 {
	var s []int64
	for i := lo; i <= hi; i++ {
		s = append(s, i)
	}
	return s
}
