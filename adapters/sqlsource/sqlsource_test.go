package sqlsource_test

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/sqlsource"
)

func TestCheck(t *testing.T) {
	d := openDB(t, "sqlite")
	c := d.createCatalogue(t, products(1))
	for _, mistake := range []func(*sqlsource.Config){
		func(cfg *sqlsource.Config) { cfg.Table = "nosuchtable" },
		func(cfg *sqlsource.Config) { cfg.LastMod = "nosuchcolumn" },
		func(cfg *sqlsource.Config) { cfg.Filter = "published AND AND" },
		func(cfg *sqlsource.Config) { cfg.LocTemplate = base + "{nosuchcolumn}" },
	} {
		cfg := c.config(10)
		mistake(&cfg)
		if err := newSource(t, d.db, cfg).Check(context.Background()); err == nil {
			t.Errorf("Check of %+v passed", cfg)
		}
	}
	if err := newSource(t, d.db, c.config(10)).Check(context.Background()); err != nil {
		t.Errorf("Check: %v", err)
	}
}

func TestNewErrors(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ok := sqlsource.Config{Table: "t", Key: "id", Loc: "url"}
	for name, change := range map[string]func(*sqlsource.Config){
		"no table": func(c *sqlsource.Config) { c.Table = " " },
		"no key":   func(c *sqlsource.Config) { c.Key = "" },
		"no loc":   func(c *sqlsource.Config) { c.Loc = "" },
		"two locs": func(c *sqlsource.Config) { c.LocTemplate = "https://e.com/{id}" },
		"three locs": func(c *sqlsource.Config) {
			c.LocTemplate = "https://e.com/{id}"
			c.LocFunc = func(*sqlsource.Row) (string, error) { return "", nil }
		},
		"columns w/o func":  func(c *sqlsource.Config) { c.Columns = []string{"a"} },
		"negative size":     func(c *sqlsource.Config) { c.PageSize = -1 },
		"size too big":      func(c *sqlsource.Config) { c.PageSize = 50_001 },
		"unknown dialect":   func(c *sqlsource.Config) { c.Dialect = "oracle" },
		"nil loader":        func(c *sqlsource.Config) { c.Loaders = []sqlsource.Loader{nil} },
		"template no col":   func(c *sqlsource.Config) { c.Loc, c.LocTemplate = "", "https://e.com/" },
		"template unclosed": func(c *sqlsource.Config) { c.Loc, c.LocTemplate = "", "https://e.com/{id" },
		"template stray }":  func(c *sqlsource.Config) { c.Loc, c.LocTemplate = "", "https://e.com/}{id}" },
		"template empty {}": func(c *sqlsource.Config) { c.Loc, c.LocTemplate = "", "https://e.com/{}" },
		"empty column": func(c *sqlsource.Config) {
			c.Loc, c.LocFunc, c.Columns = "", func(*sqlsource.Row) (string, error) { return "", nil }, []string{""}
		},
	} {
		cfg := ok
		change(&cfg)
		if src, err := sqlsource.New(db, cfg); err == nil || src != nil || !strings.HasPrefix(err.Error(), "sqlsource: ") {
			t.Errorf("%s: New = %v, %v; want an error", name, src, err)
		}
	}
	if _, err := sqlsource.New(nil, ok); err == nil {
		t.Error("New(nil db) succeeded")
	}
	for _, size := range []int{0, 1, 50_000} {
		cfg := ok
		cfg.PageSize = size
		if _, err := sqlsource.New(db, cfg); err != nil {
			t.Errorf("PageSize %d: %v", size, err)
		}
	}
}

// TestSameAcrossDatabases loads one catalogue into every database and
// checks they all serve exactly the same pages and URLs.
func TestSameAcrossDatabases(t *testing.T) {
	ps := products(ids(1, 60)...)
	special := []product{
		{ID: 70, Slug: "Bäder & Öfen", Loc: base + "B%C3%A4der%20%26%20%C3%96fen"},
		{ID: 71, Slug: "日本語", Loc: base + "%E6%97%A5%E6%9C%AC%E8%AA%9E"},
		{ID: 72, Slug: "a/b?c", Loc: base + "a%2Fb%3Fc"},
	}
	for i := range special {
		special[i].Published = true
		special[i].Updated = time.Date(1999, 12, 31, 23, 59, 59, 0, time.UTC)
	}
	ps = append(ps, special...)
	for i := range ps {
		if ps[i].ID%7 == 0 {
			ps[i].Updated = time.Time{}
		}
		if ps[i].ID%11 == 0 {
			ps[i].Noindex = true
		}
		if ps[i].ID%3 == 0 {
			ps[i].Images = []string{"https://cdn.example.com/" + fmt.Sprint(ps[i].ID) + ".jpg"}
			ps[i].Alternates = [][2]string{{"fr", base + "fr"}, {"en", ps[i].loc()}}
		}
	}
	want, wantLM := model(ps, 25, 0, true)
	var first snapshot
	var firstName string
	for _, name := range append(dbNames, "mysql-text-times") {
		t.Run(name, func(t *testing.T) {
			var d *testDB
			if name == "mysql-text-times" { // without parseTime the driver gives text
				d = openDB(t, "mysql")
				d.dsn = strings.NewReplacer("parseTime=true", "parseTime=false").Replace(d.dsn)
				d.db = d.open(t)
			} else {
				d = openDB(t, name)
			}
			c := d.createCatalogue(t, ps)
			got := takeSnapshot(t, newSource(t, d.db, c.withExtensions(c.config(25))))
			checkSnapshot(t, got, want, wantLM)
			if first.infos == nil {
				first, firstName = got, name
				return
			}
			if !reflect.DeepEqual(got, first) {
				t.Errorf("%s serves other pages than %s:\n%+v\n%+v", name, firstName, got.infos, first.infos)
			}
		})
	}
}

// TestPageSize checks that a Source reports its page size to sitemap.New
// as a sitemap.PageSizer: Config.PageSize, or 50,000 by default.
func TestPageSize(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for size, want := range map[int]int{0: 50_000, 1: 1, 10: 10, 50_000: 50_000} {
		src, err := sqlsource.New(db, sqlsource.Config{Table: "t", Key: "id", Loc: "url", PageSize: size})
		if err != nil {
			t.Fatal(err)
		}
		ps, ok := sitemap.Source(src).(sitemap.PageSizer)
		if !ok {
			t.Fatal("*Source is not a sitemap.PageSizer")
		}
		if got := ps.PageSize(); got != want {
			t.Errorf("Config.PageSize %d: PageSize() = %d, want %d", size, got, want)
		}
	}
}
