package sqlsource

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/internal/tcpproxy"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// TestPagesCatchUpBounded: with logical decoding, a new process's Pages
// waits for its Watcher to apply the changes committed before it
// started, but not forever: when the replication connection never works
// (cut through a TCP proxy, while the pool's connections to the server
// work), Pages fails once catchUpWait has passed since Watch started, at
// once after that, with an error that names the connection's failure;
// a Sitemap over it answers 503 at once (keeping what it served, if it
// had served any); once the connection heals and the Watcher has caught
// up, Pages lists the pages, with the change committed before Watch
// started.
func TestPagesCatchUpBounded(t *testing.T) {
	defer func(d time.Duration) { catchUpWait = d }(catchUpWait)
	catchUpWait = time.Second
	tb := newLRTable(t, 30)
	u, err := url.Parse(tb.dsn)
	if err != nil || u.Host == "" {
		t.Skipf("the PostgreSQL DSN is not a URL with a host: %v", err)
	}
	// The pool's connections go straight to the server; every connection
	// made after them (the Watcher's replication connection, made with the
	// pool's settings) goes through the proxy.
	proxy := tcpproxy.New(t, u.Host)
	var proxied atomic.Bool
	cc, err := pgx.ParseConfig(tb.dsn)
	if err != nil {
		t.Fatal(err)
	}
	cc.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if proxied.Load() {
			addr = proxy.Addr()
		}
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
	db := stdlib.OpenDB(*cc)
	t.Cleanup(func() { db.Close() })
	const conns = 4
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	var warm sync.WaitGroup
	for range conns {
		warm.Go(func() {
			if _, err := db.ExecContext(context.Background(), "SELECT pg_sleep(0.05)"); err != nil {
				t.Error(err)
			}
		})
	}
	warm.Wait()

	s, err := New(db, Config{Dialect: Postgres, Table: tb.cfg.Table, Key: "id", LocTemplate: "https://shop.example.com/{slug}",
		PageSize: 10, Summary: true, Capture: CaptureLogical, Slot: tb.cfg.Slot, Publication: tb.cfg.Publication,
		WatchInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.InstallSummary(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.RemoveSummary(context.Background()) })
	tb.exec(t, "INSERT INTO "+tb.cfg.Table+" VALUES (35, 'p35', 1)") // a fourth page, before Watch starts

	proxied.Store(true)
	proxy.Cut()
	start := time.Now()
	w, err := s.Watch(ctx, nopInvalidator{}, "products")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	pages := func() (int, error) {
		n := 0
		for _, err := range s.Pages(ctx) {
			if err != nil {
				return n, err
			}
			n++
		}
		return n, nil
	}
	_, err = pages()
	waited := time.Since(start)
	switch {
	case err == nil:
		t.Fatal("Pages with the replication connection cut: no error")
	case waited < catchUpWait || waited > catchUpWait+5*time.Second:
		t.Errorf("Pages failed after %v, want about catchUpWait (%v)", waited, catchUpWait)
	case !strings.Contains(err.Error(), "logical decoding has not applied") || !strings.Contains(err.Error(), "failed to connect"):
		t.Errorf("Pages: %v; want it to say the changes are not applied, and why (no replication connection)", err)
	}
	t0 := time.Now()
	if _, err := pages(); err == nil || time.Since(t0) > time.Second {
		t.Errorf("Pages again, past the bound: %v after %v; want an error at once", err, time.Since(t0))
	}

	// A Sitemap over it answers 503 at once, not after its BuildTimeout.
	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://shop.example.com", Logger: slog.New(slog.DiscardHandler)}, sitemap.Section{Name: "products", Source: s})
	if err != nil {
		t.Fatal(err)
	}
	defer sm.Close()
	t0 = time.Now()
	rec := httptest.NewRecorder()
	sm.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/sitemap_index.xml", nil))
	if rec.Code != http.StatusServiceUnavailable || time.Since(t0) > time.Second {
		t.Errorf("the index while the connection is cut: %d after %v, want 503 at once", rec.Code, time.Since(t0))
	}

	proxy.Restore()
	var n int
	waitFor(t, 20*time.Second, "Pages once the replication connection heals", func() bool {
		n, err = pages()
		return err == nil
	})
	if n != 4 {
		t.Errorf("Pages lists %d pages once caught up, want 4 (page 4's row was inserted before Watch started)", n)
	}
}

// nopInvalidator is told of the pages that changed, and does nothing.
type nopInvalidator struct{}

func (nopInvalidator) Invalidate(string, ...int64) error { return nil }
