package sqlsource_test

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
)

// The restart tests: a catalogue served, the process stopped, the newest
// row of page 1 deleted, the newest of page 2 unpublished and a row
// appended to the last page (4), and a new process started on the same
// database with no Store. Whatever is kept across the restart, every
// changed file (pages 1, 2 and 4, and the index) answers 200 to
// If-Modified-Since with its old date, and no Last-Modified is earlier
// than before; where something durable is kept (a clock file, the page
// summary), the unchanged page 3 keeps its Last-Modified and 304. After
// a restart with no change, Invalidate of every page moves no lastmod.

// serve replaces the site's Sitemap and server with a new process's,
// configured by cfg.
func (f *freshSite) serve(t *testing.T, cfg sitemap.Config) {
	t.Helper()
	f.srv.Close()
	f.sm.Close()
	cfg.BaseURL, cfg.TTL = "https://shop.example.com", freshTTL
	sm, err := sitemap.New(cfg, sitemap.Section{Name: "products", Source: f.src})
	if err != nil {
		t.Fatal(err)
	}
	f.sm, f.srv = sm, httptest.NewServer(sm)
	t.Cleanup(func() {
		f.srv.Close()
		sm.Close()
	})
}

// serveSettled serves cfg (serve), then lets the Sitemap's clock pass the
// floor of its start, two seconds ahead (the root's clock.go, rule 3):
// until the Date reaches that, a fresh process serves its files without
// Last-Modified, which must never be later than the Date (RFC 9110
// §8.8.2.1).
func (f *freshSite) serveSettled(t *testing.T, cfg sitemap.Config) {
	t.Helper()
	f.serve(t, cfg)
	f.pass(cfg, 2*time.Second)
}

// pass lets d pass on the clock of a Sitemap configured by cfg.
func (f *freshSite) pass(cfg sitemap.Config, d time.Duration) {
	if cfg.Now == nil {
		time.Sleep(d)
	} else {
		f.clock.advance(d)
	}
}

// fetchAll fetches the index and pages 1 to 4.
func (f *freshSite) fetchAll(t *testing.T) map[string]reply {
	t.Helper()
	got := map[string]reply{indexPath: f.get(t, indexPath)}
	for n := int64(1); n <= freshPages; n++ {
		got[pagePath(n)] = f.get(t, pagePath(n))
	}
	return got
}

func TestRestartClock(t *testing.T) {
	for _, mode := range []string{"nothing kept", "clock file", "page summary"} {
		t.Run(mode, func(t *testing.T) {
			forEachDB(t, func(t *testing.T, d *testDB) {
				f := newFreshSite(t, d, nil, mode == "page summary")
				cfg := sitemap.Config{Now: f.clock.Now}
				switch mode {
				case "clock file":
					cfg.ClockFile = filepath.Join(t.TempDir(), "clocks")
				case "page summary":
					// The summary's times are the database's: the Sitemap
					// runs on real time, and every page is written once, so
					// each has a durable change time (before its first
					// write, a summary has none).
					cfg.Now = nil
					f.exec(t, "UPDATE products SET slug = slug WHERE id IN (1, 11, 21, 31)")
					time.Sleep(1100 * time.Millisecond) // the changes below come in a later second
				}
				f.serveSettled(t, cfg)
				before := f.fetchAll(t)

				f.exec(t, "DELETE FROM products WHERE id = 9")
				f.exec(t, "UPDATE products SET published = ? WHERE id = 19", false)
				f.c.insert(t, products(36)...)
				f.clock.advance(24 * time.Hour)
				if mode == "page summary" {
					// A process started in a later second than the last one
					// (clock.go, rule 3).
					time.Sleep(time.Second)
				}
				f.serveSettled(t, cfg) // a new process on the same database
				after := f.fetchAll(t)
				// The pages' new clocks moved the index's again, within the
				// second: a second ahead, not served as Last-Modified until
				// the Date reaches it.
				f.pass(cfg, time.Second)
				for path, b := range before {
					a := after[path]
					if a.lastMod.Before(b.lastMod) {
						t.Errorf("%s: Last-Modified %v after the restart, earlier than %v", path, a.lastMod, b.lastMod)
					}
					r := f.ifModifiedSince(t, path, b)
					switch {
					case path == pagePath(3) && mode != "nothing kept":
						if r.status != http.StatusNotModified || !a.lastMod.Equal(b.lastMod) {
							t.Errorf("%s, unchanged: If-Modified-Since %v = %d, Last-Modified %v; want 304 and the same", path, b.lastMod, r.status, a.lastMod)
						}
					case path == pagePath(3):
						if a.etag != b.etag {
							t.Errorf("%s, unchanged: another ETag", path)
						}
					case r.status != http.StatusOK:
						t.Errorf("%s, changed while no process ran: If-Modified-Since its old date %v = %d, want 200", path, b.lastMod, r.status)
					}
				}

				// A restart with no change, then an Invalidate of every page.
				f.clock.advance(24 * time.Hour)
				if mode == "page summary" {
					time.Sleep(time.Second)
				}
				f.serveSettled(t, cfg)
				again := f.fetchAll(t)
				if err := f.sm.Invalidate("products"); err != nil {
					t.Fatal(err)
				}
				poll(t, "the rebuilds after Invalidate", func() bool {
					return f.sm.Stats().Builds >= int64(2*(freshPages+1))
				})
				for path, a := range again {
					r := f.get(t, path)
					if !r.lastMod.Equal(a.lastMod) || r.etag != a.etag {
						t.Errorf("%s: Invalidate with no change moved Last-Modified %v to %v", path, a.lastMod, r.lastMod)
					}
					if path == indexPath && mode != "nothing kept" && string(r.body) != string(a.body) {
						t.Errorf("the index changed after Invalidate with no change:\n%s\nwas\n%s", r.body, a.body)
					}
				}
			})
		})
	}
}
