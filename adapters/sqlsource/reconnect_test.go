package sqlsource_test

import (
	"database/sql"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/freshmap/sitemap/internal/tcpproxy"
	"github.com/freshmap/sitemap/internal/testkit"
)

// proxied opens d's database server through a TCP proxy that the test
// can cut. The *sql.DB is closed when t ends.
func proxied(t *testing.T, d *testDB) (*tcpproxy.Proxy, *sql.DB) {
	t.Helper()
	var target string
	var dsn func(addr string) string
	switch d.name {
	case "postgres":
		u, err := url.Parse(d.dsn)
		if err != nil || u.Host == "" {
			t.Skipf("the PostgreSQL DSN is not a URL with a host: %v", err)
		}
		target = u.Host
		dsn = func(addr string) string { u.Host = addr; return u.String() }
	case "mysql":
		cfg, err := mysql.ParseDSN(d.dsn)
		if err != nil {
			t.Fatal(err)
		}
		target = cfg.Addr
		dsn = func(addr string) string { cfg.Addr = addr; return cfg.FormatDSN() }
	default:
		t.Fatalf("no proxy for %s", d.name)
	}
	p := tcpproxy.New(t, target)
	through := &testDB{name: d.name, dialect: d.dialect, dsn: dsn(p.Addr())}
	return p, through.open(t)
}

// TestWatchReconnect cuts the watcher's connections to the database, on
// PostgreSQL its listener's, commits a change while it cannot hear, and
// restores them: the watcher reads the summary again and tells the
// change, then hears the next one as before.
func TestWatchReconnect(t *testing.T) {
	for _, name := range []string{"postgres", "mysql"} {
		t.Run(name, func(t *testing.T) {
			d := openDB(t, name)
			f := newFreshSite(t, d, nil, true)
			rec := &recorder{inv: f.sm, tick: f.realTime()}
			before := f.crawlAll(t)
			proxy, db := proxied(t, d)
			logs := &testkit.SyncBuffer{}
			watch(t, f.watchSource(t, db, 100*time.Millisecond, logs), rec)

			proxy.Cut()
			poll(t, "the watcher to find its connection cut", func() bool { return strings.Contains(logs.String(), "trying again") })
			f.exec(t, "UPDATE products SET slug = 'renamed-12' WHERE id = 12")
			time.Sleep(300 * time.Millisecond) // a few of its attempts fail
			if rec.told(2) {
				t.Fatal("page 2 was told while the watcher was cut off")
			}
			proxy.Restore()
			after := f.pollChange(t, 2, before)
			if !hasLoc(after.pages[2].body, base+"renamed-12") {
				t.Errorf("page 2 does not show the change made while cut off:\n%s", after.pages[2].body)
			}
			f.checkOnlyChanged(t, 2, before, after)
			if !strings.Contains(logs.String(), "applied again") {
				t.Error("the watcher did not log that it applies the changes again")
			}

			f.exec(t, "UPDATE products SET slug = 'renamed-25' WHERE id = 25")
			again := f.pollChange(t, 3, after)

			if !hasLoc(again.pages[3].body, base+"renamed-25") {
				t.Errorf("page 3 does not show the change made after the reconnection:\n%s", again.pages[3].body)
			}
		})
	}
}
