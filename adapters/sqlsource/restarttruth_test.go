package sqlsource_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/sqlsource"
)

// TestRestartTruth is the restart, with the database as the only
// durable state (a page summary, no Store, no clock file), on each
// database, with every write counted and with significant columns only:
//
//  1. A process serves right after the summary is installed and stops as
//     soon as it has given its first clocks (the 2 s floor of its start:
//     before that it gives no Last-Modified at all, never one later than
//     its Date, so a process that lives less gives no date to hold
//     against the next); while none
//     serves, page 1's newest row is deleted, page 2's newest unpublished
//     and a row appended to page 4; a new process starts. Every changed
//     file answers 200 to If-Modified-Since its old date, no
//     Last-Modified moves back, and page 3 keeps its Last-Modified and
//     304.
//  2. A process serves a change its index shows (a new slug on page 3),
//     then restarts at once: every page keeps its Last-Modified and
//     answers 304 to it (with logical decoding, page 3 is rebuilt on its
//     Watcher's Invalidate, and keeps its Last-Modified too: the root's
//     clock.go, rule 5).
//  3. A process with a Watcher serves a change it is told of (Watch's
//     Invalidate: a rebuild from the index read before the change), and
//     another to the same page within that second, and restarts at once:
//     no If-Modified-Since of any date a crawler was given is 304 for
//     other bytes, and no Last-Modified moves back (the bug: the next
//     process gave the second change's bytes the date the first one's
//     had). Once quiet and read again, a restart keeps the
//     Last-Modified and 304 of every page, that of the changes too.
func TestRestartTruth(t *testing.T) {
	for name, significant := range map[string][]string{"every write": nil, "significant": {"slug", "published", "noindex"}} {
		t.Run(name, func(t *testing.T) {
			forEachDB(t, func(t *testing.T, d *testDB) { restartTruth(t, d, significant, false) })
		})
	}
}

// TestRestartTruthLogical is TestRestartTruth on PostgreSQL's logical
// decoding, where nothing but the replication slot records a write
// while no process serves: each process runs a Watcher, whose first
// changes (those committed while none ran) are applied before its
// Sitemap's first index is read.
func TestRestartTruthLogical(t *testing.T) {
	for name, significant := range map[string][]string{"every write": nil, "significant": {"slug", "published", "noindex"}} {
		t.Run(name, func(t *testing.T) {
			sqlsource.LogicalDSN(t)
			restartTruth(t, openDB(t, "postgres"), significant, true)
		})
	}
}

// restartTruth is TestRestartTruth on d; with logical, on logical
// decoding, a Watcher running beside each process's Sitemap.
func restartTruth(t *testing.T, d *testDB, significant []string, logical bool) {
	f := newFreshSiteWith(t, d, nil, func(cfg *sqlsource.Config) {
		cfg.Summary, cfg.Significant, cfg.WatchInterval = true, significant, 50*time.Millisecond
		if logical {
			cfg.Capture = sqlsource.CaptureLogical
		}
	}, func(cfg *sitemap.Config) { cfg.Now, cfg.ClockFile = nil, "" })
	var w *sqlsource.Watcher
	watching := logical // each process runs a Watcher
	stop := func() {    // the process stops
		if w != nil {
			if err := w.Close(); err != nil {
				t.Errorf("Watcher.Close: %v", err)
			}
			w = nil
		}
	}
	t.Cleanup(stop)
	serve := func(cfg sitemap.Config, ttl time.Duration) { // a process starts
		stop()
		f.serveTTL(t, cfg, ttl)
		if watching {
			var err error
			if w, err = f.src.Watch(context.Background(), f.sm, "products"); err != nil {
				t.Fatal(err)
			}
		}
	}
	var cfg sitemap.Config // real time, no Store, no clock file
	serve(cfg, freshTTL)
	before := f.fetchAll(t)

	stop()
	f.exec(t, "DELETE FROM products WHERE id = 9")
	f.exec(t, "UPDATE products SET published = ? WHERE id = 19", false)
	f.c.insert(t, products(36)...)
	nextSecond() // a process started in a later second (clock.go, rule 3: the index's floor)
	serve(cfg, freshTTL)
	after := f.fetchAll(t)
	for path, b := range before {
		a := after[path]
		if a.lastMod.Before(b.lastMod) {
			t.Errorf("restart 1: %s: Last-Modified %v, earlier than %v before", path, a.lastMod, b.lastMod)
		}
		r := f.ifModifiedSince(t, path, b)
		switch {
		case path == pagePath(3):
			if r.status != http.StatusNotModified || !a.lastMod.Equal(b.lastMod) {
				t.Errorf("restart 1: %s, unchanged: If-Modified-Since %v = %d, Last-Modified %v; want 304 and the same",
					path, b.lastMod, r.status, a.lastMod)
			}
		case r.status != http.StatusOK:
			t.Errorf("restart 1: %s, changed while no process ran: If-Modified-Since its old date %v = %d, want 200",
				path, b.lastMod, r.status)
		}
	}

	// A change served in a later second than its commit, by a
	// process whose index, read again after its TTL, shows it.
	serve(cfg, time.Second)
	served1 := f.fetchPages(t)
	f.exec(t, "UPDATE products SET slug = 'renamed-25' WHERE id = 25")
	nextSecond()
	poll(t, "page 3's new bytes", func() bool {
		f.get(t, indexPath)
		return !bytes.Equal(f.get(t, pagePath(3)).body, served1[pagePath(3)].body)
	})
	// The pages: the index, which keeps no time of its own in
	// the database, starts at the process's floor (2 s after
	// its start) and may be served without Last-Modified after
	// a change in its first seconds (clock.go, rules 1 and 3).
	served := f.fetchPages(t)
	serve(cfg, time.Second) // at once
	again := f.fetchPages(t)
	for path, s := range served {
		a := again[path]
		if a.lastMod.Before(s.lastMod) {
			t.Errorf("restart 2: %s: Last-Modified %v, earlier than %v before", path, a.lastMod, s.lastMod)
		}
		if !bytes.Equal(a.body, s.body) {
			t.Errorf("restart 2: %s: other bytes after a restart with no change", path)
			continue
		}
		if r := f.ifModifiedSince(t, path, s); r.status != http.StatusNotModified || !a.lastMod.Equal(s.lastMod) {
			t.Errorf("restart 2: %s, the same bytes: If-Modified-Since %v = %d, Last-Modified %v; want 304 and the same",
				path, s.lastMod, r.status, a.lastMod)
		}
	}

	// Restart 3: changes told by a Watcher, two within one second.
	watching = true
	serve(cfg, time.Second)
	// The changes of restarts 1 and 2 are applied and pruned first: a
	// Pages read between a batch's apply and its prune counts the batch
	// twice (summarypages.go), which is not this test's subject.
	poll(t, "the changes before applied", func() bool {
		st, err := f.src.WatchStats(context.Background())
		return err == nil && st.Pending == 0
	})
	h := newHolder()
	for path, r := range f.fetchPages(t) {
		h.keep(t, "restart 3, before", path, r)
	}
	nextSecond()
	for i, slug := range []string{"told-25", "told-25-again"} {
		old := f.getOnce(t, pagePath(3))
		h.keep(t, "restart 3, before write "+slug, pagePath(3), old)
		f.exec(t, "UPDATE products SET slug = ? WHERE id = 25", slug)
		poll(t, "page 3's bytes after write "+strconv.Itoa(i+1), func() bool {
			r := f.getOnce(t, pagePath(3))
			h.keep(t, "restart 3, after write "+slug, pagePath(3), r)
			return !bytes.Equal(r.body, old.body)
		})
	}
	serve(cfg, time.Second) // at once
	h.check(t, f, "restart 3, at once")
	// Quiet: past the TTL and the seconds of the changes, a crawler
	// reads the index and every page, then every page again.
	time.Sleep(2500 * time.Millisecond)
	f.get(t, indexPath)
	for n := int64(1); n <= freshPages; n++ {
		h.keep(t, "restart 3, quiet", pagePath(n), f.getOnce(t, pagePath(n)))
	}
	time.Sleep(1100 * time.Millisecond)
	quiet := map[string]reply{}
	for n := int64(1); n <= freshPages; n++ {
		r := f.get(t, pagePath(n))
		h.keep(t, "restart 3, quiet", pagePath(n), r)
		quiet[pagePath(n)] = r
	}
	serve(cfg, time.Second)
	h.check(t, f, "restart 3, quiet")
	for path, q := range quiet {
		r := f.getOnce(t, path, "If-Modified-Since", q.lastMod.Format(http.TimeFormat))
		if r.status != http.StatusNotModified {
			t.Errorf("restart 3, quiet: %s: If-Modified-Since %v = %d, want 304", path, q.lastMod, r.status)
		}
		if a := f.getOnce(t, path); !a.lastMod.Equal(q.lastMod) {
			t.Errorf("restart 3, quiet: %s: Last-Modified %v, want %v as before", path, a.lastMod, q.lastMod)
		}
	}
}

// holder is a crawler that keeps every copy of each file it was given with a
// Last-Modified, across processes, and checks each response against them:
// a Last-Modified never given to two different bytes of a file, never
// moving back.
type holder struct {
	held map[string]map[time.Time][]byte // path → Last-Modified → body
	last map[string]time.Time            // path → the latest Last-Modified given
}

func newHolder() *holder {
	return &holder{held: map[string]map[time.Time][]byte{}, last: map[string]time.Time{}}
}

// keep checks r, a response for path, and keeps it.
func (c *holder) keep(t *testing.T, step, path string, r reply) {
	t.Helper()
	if r.status != http.StatusOK || r.lastMod.IsZero() {
		return
	}
	if r.lastMod.Before(c.last[path]) {
		t.Errorf("%s: %s: Last-Modified %v, earlier than %v given before", step, path, r.lastMod, c.last[path])
	}
	c.last[path] = later(c.last[path], r.lastMod)
	if c.held[path] == nil {
		c.held[path] = map[time.Time][]byte{}
	}
	if b, ok := c.held[path][r.lastMod]; ok && !bytes.Equal(b, r.body) {
		t.Errorf("%s: %s: Last-Modified %v given to other bytes than before", step, path, r.lastMod)
	}
	c.held[path][r.lastMod] = r.body
}

// check sends If-Modified-Since every date held to f's process: a 304
// must be for the bytes held under it.
func (c *holder) check(t *testing.T, f *freshSite, step string) {
	t.Helper()
	for path, held := range c.held {
		now := f.getOnce(t, path)
		c.keep(t, step, path, now)
		for lm, b := range held {
			r := f.getOnce(t, path, "If-Modified-Since", lm.Format(http.TimeFormat))
			if r.status == http.StatusNotModified && !bytes.Equal(b, now.body) {
				t.Errorf("%s: %s: If-Modified-Since %v = 304, but the bytes held under it changed", step, path, lm)
			}
		}
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// serveTTL is serve with another TTL.
func (f *freshSite) serveTTL(t *testing.T, cfg sitemap.Config, ttl time.Duration) {
	t.Helper()
	f.srv.Close()
	f.sm.Close()
	cfg.BaseURL, cfg.TTL = "https://shop.example.com", ttl
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

// fetchPages fetches pages 1 to 4.
func (f *freshSite) fetchPages(t *testing.T) map[string]reply {
	t.Helper()
	got := map[string]reply{}
	for n := int64(1); n <= freshPages; n++ {
		got[pagePath(n)] = f.get(t, pagePath(n))
	}
	return got
}

// nextSecond sleeps into the next second.
func nextSecond() {
	now := time.Now()
	time.Sleep(now.Truncate(time.Second).Add(time.Second + 10*time.Millisecond).Sub(now))
}
