package sqlsource_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap/adapters/sqlsource"
	"github.com/go-sql-driver/mysql"
)

func TestEarlyStop(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		c := d.createCatalogue(t, products(ids(1, 50)...))
		db := d.open(t)
		db.SetMaxOpenConns(1) // a leaked *sql.Rows would block the next query
		src := newSource(t, db, c.withExtensions(c.config(100)))
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		for range 3 {
			n := 0
			for _, err := range src.URLs(ctx, 1) {
				if err != nil {
					t.Fatal(err)
				}
				if n++; n == 2 {
					break
				}
			}
			for _, err := range src.Pages(ctx) {
				if err != nil {
					t.Fatal(err)
				}
				break
			}
		}
		if s := db.Stats(); s.InUse != 0 {
			t.Errorf("%d connections still in use", s.InUse)
		}
		urls, err := readPage(ctx, src, 1)
		if err != nil || len(urls) != 50 {
			t.Errorf("after early stops: %d URLs, %v", len(urls), err)
		}
	})
}

func TestCancelMidPage(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		c := d.createCatalogue(t, products(ids(1, 500)...))
		src := newSource(t, d.db, c.withExtensions(c.config(1000)))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		n, errs := 0, 0
		var last error
		for _, err := range src.URLs(ctx, 1) {
			if err != nil {
				errs++
				last = err
				continue
			}
			if n++; n == 3 {
				cancel()
			}
		}
		if !errors.Is(last, context.Canceled) || errs != 1 || n != 3 {
			t.Errorf("after cancelling at URL 3: %d URLs, %d errors, last %v; want 3 URLs then context.Canceled", n, errs, last)
		}
		if s := d.db.Stats(); s.InUse != 0 {
			t.Errorf("%d connections still in use", s.InUse)
		}
		// A cancelled context fails before the first query, and Pages too.
		if urls, err := readPage(ctx, src, 1); !errors.Is(err, context.Canceled) || len(urls) != 0 {
			t.Errorf("URLs on a cancelled ctx: %d URLs, %v", len(urls), err)
		}
		if _, err := readPages(ctx, src); !errors.Is(err, context.Canceled) {
			t.Errorf("Pages on a cancelled ctx: %v", err)
		}
	})
}

func TestClosedDB(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		c := d.createCatalogue(t, products(ids(1, 100)...))
		db := d.open(t)
		src := newSource(t, db, c.config(1000))
		// Closing the *sql.DB lets the query in flight finish (database/sql
		// closes the connection when the rows are done), then everything fails.
		n := 0
		for _, err := range src.URLs(context.Background(), 1) {
			if err != nil {
				t.Fatalf("the page in flight failed: %v", err)
			}
			if n++; n == 10 {
				db.Close()
			}
		}
		if _, err := readPage(context.Background(), src, 1); err == nil || !strings.Contains(err.Error(), "closed") {
			t.Errorf("URLs on a closed DB: %v", err)
		}
		if _, err := readPages(context.Background(), src); err == nil {
			t.Error("Pages on a closed DB succeeded")
		}
	})
}

func TestScanErrors(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		c := d.createCatalogue(t, products(ids(1, 20)...))
		d.exec(t, "UPDATE "+c.products+" SET slug = NULL WHERE id = 7")
		for name, cfg := range map[string]sqlsource.Config{
			"template": c.config(100),
			"column":   {Table: c.products, Key: "id", Loc: "slug", Dialect: d.dialect},
			"func": {Table: c.products, Key: "id", Columns: []string{"slug"}, Dialect: d.dialect, LocFunc: func(r *sqlsource.Row) (string, error) {
				if r.Bytes("slug") == nil {
					return "", errors.New("no slug")
				}
				return base + r.String("slug"), nil
			}},
			"scan": {Table: c.products, Key: "id", LastMod: "slug", Loc: "slug", Dialect: d.dialect}, // text as a time
		} {
			urls, err := readPage(context.Background(), newSource(t, d.db, cfg), 1)
			if name == "scan" {
				if err == nil {
					t.Errorf("%s: no error", name)
				}
				continue
			}
			if err == nil || !strings.Contains(err.Error(), "key 7") || len(urls) != 6 {
				t.Errorf("%s: %d URLs, %v; want 6 URLs, then an error about key 7", name, len(urls), err)
			}
		}
	})
}

// TestConnectionLost breaks the connection under a page being read: the
// server side is killed while the query waits on a lock the test holds.
func TestConnectionLost(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		ps := products(ids(1, 999)...)
		for i := range ps { // rows big enough that the server sends the first ones before it blocks
			ps[i].Slug = strings.Repeat("x", 200) + ps[i].Slug
		}
		c := d.createCatalogue(t, ps)
		db := d.open(t)
		db.SetMaxOpenConns(1)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		admin, err := d.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer admin.Close()
		cfg := c.config(1000)
		var kill func()
		switch d.name {
		case "sqlite": // no server: the driver fails instead
			fdb := failingDB(t, d.dsn, 300)
			src := newSource(t, fdb, cfg)
			urls, err := readPage(ctx, src, 1)
			if err == nil || !strings.Contains(err.Error(), errInjected.Error()) || len(urls) != 299 {
				t.Errorf("%d URLs, %v; want 299, then the driver's error", len(urls), err)
			}
			return
		case "postgres":
			var pid int
			if err := db.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
				t.Fatal(err)
			}
			// The table is small and not analysed: make sure it is read
			// through the index, as a big one would be, not sorted first.
			for _, set := range []string{"enable_seqscan", "enable_bitmapscan", "enable_sort"} {
				if _, err := db.ExecContext(ctx, "SET "+set+" = off"); err != nil {
					t.Fatal(err)
				}
			}
			lock := time.Now().UnixNano()
			if _, err := admin.ExecContext(ctx, "SELECT pg_advisory_lock($1)", lock); err != nil {
				t.Fatal(err)
			}
			defer admin.ExecContext(context.Background(), "SELECT pg_advisory_unlock($1)", lock)
			cfg.Filter = fmt.Sprintf("id < 500 OR (SELECT id > 0 FROM pg_advisory_lock_shared(%d))", lock)
			kill = func() {
				if _, err := admin.ExecContext(ctx, "SELECT pg_terminate_backend($1)", pid); err != nil {
					t.Error(err)
				}
			}
		case "mysql":
			var id int
			if err := db.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
				t.Fatal(err)
			}
			lock := c.products
			if _, err := admin.ExecContext(ctx, "SELECT GET_LOCK(?, 10)", lock); err != nil {
				t.Fatal(err)
			}
			defer admin.ExecContext(context.Background(), "SELECT RELEASE_LOCK(?)", lock)
			mysql.SetLogger(log.New(io.Discard, "", 0)) // the driver would log the EOF we cause
			// IF(id …) makes MySQL call GET_LOCK per row instead of once.
			cfg.Filter = fmt.Sprintf("id < 500 OR GET_LOCK(IF(id > 0, '%s', ''), 30) IS NOT NULL", lock)
			kill = func() {
				if _, err := admin.ExecContext(ctx, fmt.Sprintf("KILL %d", id)); err != nil {
					t.Error(err)
				}
			}
		}
		src := newSource(t, db, cfg)
		n := 0
		var last error
		for _, err := range src.URLs(ctx, 1) {
			if err != nil {
				last = err
				break
			}
			if n++; n == 1 {
				kill()
			}
		}
		if last == nil || errors.Is(last, context.DeadlineExceeded) || n >= 500 {
			t.Errorf("%d URLs, error %v; want fewer than 500, then the lost connection's error", n, last)
		}
		t.Logf("%d URLs, then %v", n, last)
	})
}

// TestConcurrent reads pages from many goroutines at once, as the serving
// layer does: under -race this checks that nothing is shared between calls.
func TestConcurrent(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		ps := products(ids(1, 99)...)
		for i := range ps {
			ps[i].Images = []string{fmt.Sprintf("https://cdn.example.com/%d.jpg", ps[i].ID)}
		}
		c := d.createCatalogue(t, ps)
		src := newSource(t, d.db, c.withExtensions(c.config(10)))
		want := takeSnapshot(t, src)
		errs := make(chan error, 8)
		for g := range 8 {
			go func() {
				for i := range want.infos {
					p := want.infos[(i+g)%len(want.infos)]
					urls, err := readPage(context.Background(), src, p.Number)
					if err == nil && !reflect.DeepEqual(urls, want.urls[p.Number]) {
						err = fmt.Errorf("page %d differs", p.Number)
					}
					if err != nil {
						errs <- err
						return
					}
				}
				infos, err := readPages(context.Background(), src)
				if err == nil && !reflect.DeepEqual(infos, want.infos) {
					err = errors.New("Pages differ")
				}
				errs <- err
			}()
		}
		for range 8 {
			if err := <-errs; err != nil {
				t.Error(err)
			}
		}
	})
}
