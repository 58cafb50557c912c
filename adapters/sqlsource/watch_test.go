package sqlsource_test

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/sqlsource"
	"github.com/freshmap/sitemap/internal/testkit"
)

// The tests of Watch change rows behind a Sitemap whose clock never
// passes its TTL, so that nothing but the watcher can make it rebuild, and
// check through its handler that the right file and the index changed.

// recorder is an Invalidator that records each call and passes it on to
// inv, if set; with fail set it fails every call.
type recorder struct {
	inv  sqlsource.Invalidator
	fail bool
	tick func() // if set, called before each call is passed on

	mu    sync.Mutex
	calls []invalidation
}

type invalidation struct {
	at    time.Time
	pages []int64
}

func (r *recorder) Invalidate(section string, pages ...int64) error {
	r.mu.Lock()
	r.calls = append(r.calls, invalidation{time.Now(), slices.Clone(pages)})
	r.mu.Unlock()
	if r.fail {
		return errors.New("refused")
	}
	if r.tick != nil {
		r.tick()
	}
	if r.inv == nil {
		return nil
	}
	return r.inv.Invalidate(section, pages...)
}

func (r *recorder) record() []invalidation {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls)
}

// told reports whether page was in a call.
func (r *recorder) told(page int64) bool {
	for _, c := range r.record() {
		if slices.Contains(c.pages, page) {
			return true
		}
	}
	return false
}

// watchSource returns a Source on db over f's catalogue and summary that
// watches every interval, logging to logs if set.
func (f *freshSite) watchSource(t *testing.T, db *sql.DB, every time.Duration, logs *testkit.SyncBuffer) *sqlsource.Source {
	t.Helper()
	cfg := f.c.config(10)
	cfg.Summary, cfg.WatchInterval = true, every
	if logs != nil {
		cfg.Logger = slog.New(slog.NewTextHandler(logs, nil))
	}
	return newSource(t, db, cfg)
}

// watch starts src's watcher, telling inv, closed when t ends (before the
// Sitemap is closed and the table dropped).
func watch(t *testing.T, src *sqlsource.Source, inv sqlsource.Invalidator) *sqlsource.Watcher {
	t.Helper()
	w, err := src.Watch(context.Background(), inv, "products")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := w.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return w
}

// realTime moves the Sitemap's clock to the time it is, where the
// summary's change times are (the databases' clocks), and returns a func
// for the recorder to call before each Invalidate, which moves it on to
// the time it is then and three seconds more. The Sitemap gives a file
// whose bytes changed a clock a second after its last, and serves bytes
// that would need one more than a second ahead of its time without
// Last-Modified (which get refuses): as time passes in service, its clock
// must move between the index's changes, two or three per Invalidate
// (the page's change time in the summary, the rebuilt page).
func (f *freshSite) realTime() func() {
	catchUp := func() {
		if d := time.Until(f.clock.Now()); d < 0 {
			f.clock.advance(-d)
		}
	}
	catchUp()
	return func() {
		catchUp()
		f.clock.advance(3 * time.Second)
	}
}

// watchEvery is the interval of the tests' watchers: how often they read
// the change table.
func watchEvery(*testDB) time.Duration { return 100 * time.Millisecond }

// TestWatch commits a change to a column no Version shows (the slug), with
// no call of the application's: the watcher tells the Sitemap, which
// serves the page with the new bytes and a later clock, and the index
// lists it, while no other page changes.
func TestWatch(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		f := newFreshSite(t, d, nil, true)
		rec := &recorder{inv: f.sm, tick: f.realTime()}
		before := f.crawlAll(t)
		watch(t, f.watchSource(t, d.db, watchEvery(d), nil), rec)

		f.exec(t, "UPDATE products SET slug = 'renamed-12' WHERE id = 12")
		after := f.pollChange(t, 2, before)
		if !hasLoc(after.pages[2].body, base+"renamed-12") || hasLoc(after.pages[2].body, productLoc(12)) {
			t.Errorf("page 2 does not show the new slug:\n%s", after.pages[2].body)
		}
		f.checkOnlyChanged(t, 2, before, after)
		for _, c := range rec.record() {
			if !slices.Equal(c.pages, []int64{2}) {
				t.Errorf("Invalidate of pages %v; want page 2 only", c.pages)
			}
		}
	})
}

// TestWatchNewPage inserts a row on a page that had none, and deletes
// every row of another: the index lists the new page and drops the empty
// one, with no call of the application's.
func TestWatchNewPage(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		f := newFreshSite(t, d, nil, true)
		rec := &recorder{inv: f.sm, tick: f.realTime()}
		f.crawlAll(t)
		watch(t, f.watchSource(t, d.db, 100*time.Millisecond, nil), rec)
		f.c.insert(t, products(45)...)
		f.exec(t, "DELETE FROM products WHERE id >= 30 AND id <= 35")
		poll(t, "the index to list page 5 and not page 4", func() bool {
			lms := indexLastMods(t, f.get(t, indexPath).body)
			_, four := lms[4]
			_, five := lms[5]
			return five && !four
		})
		if r := f.get(t, pagePath(5)); !hasLoc(r.body, productLoc(45)) {
			t.Errorf("page 5 does not list product 45:\n%s", r.body)
		}
	})
}

// TestWatchCoalesce makes 100,000 row updates, in statements of 35 rows
// (every row) in transactions of 20 statements, then a last change: the
// watcher calls Invalidate at most once per interval, each page at most
// once per call, the Sitemap reads each page at most once per call that
// names it (so at most once per interval), and the last change is served.
func TestWatchCoalesce(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		var counter *countingSource
		f := newFreshSite(t, d, func(src *sqlsource.Source) sitemap.Source {
			counter = &countingSource{Source: src}
			return counter
		}, true)
		rec := &recorder{inv: f.sm, tick: f.realTime()}
		before := f.crawlAll(t)
		reads := counter.urls.Load()
		const every = 500 * time.Millisecond // 3 s more on the Sitemap's clock per call: within its TTL
		watch(t, f.watchSource(t, d.db, every, nil), rec)
		rows := 100_000
		if testing.Short() {
			rows = 10_000
		}
		start := time.Now()
		update := "UPDATE " + f.c.products + " SET noindex = noindex WHERE id >= 1 AND id <= 35"
		for n := 0; n < rows; n += 20 * 35 {
			tx, err := d.db.Begin()
			if err != nil {
				t.Fatal(err)
			}
			for range 20 {
				if _, err := tx.Exec(update); err != nil {
					t.Fatal(err)
				}
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
		}
		f.exec(t, "UPDATE products SET slug = 'last-12' WHERE id = 12")
		// Rebuilds of the other pages may still be under way: wait for
		// page 2 alone. The last change is behind every earlier one in the
		// change table, applied 10,000 at a time: under the race detector
		// on a busy machine that takes longer than poll's bound.
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			r := f.get(t, pagePath(2))
			if r.etag != before.pages[2].etag && hasLoc(r.body, base+"last-12") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("still waiting after 30s for page 2 to show the last change (%v since the updates began)", time.Since(start))
			}
		}
		calls := rec.record()
		span := calls[len(calls)-1].at.Sub(calls[0].at)
		// Each call is at least an interval after the one before, as the
		// watcher's clock says; the recorder's may see them a little closer.
		if most := int(span/every) + 2; len(calls) > most {
			t.Errorf("%d Invalidate calls in %v; want at most %d, one per %v", len(calls), span, most, every)
		}
		told := 0
		for _, c := range calls {
			if !slices.IsSorted(c.pages) || len(slices.Compact(slices.Clone(c.pages))) != len(c.pages) {
				t.Errorf("Invalidate of pages %v: want each page once", c.pages)
			}
			told += len(c.pages)
		}
		if got := counter.urls.Load() - reads; got > int64(told) {
			t.Errorf("%d page reads for %d pages told in %d Invalidate calls; want at most one a page a call", got, told, len(calls))
		}
		t.Logf("%s: %d row updates in %v, %d Invalidate calls naming %d pages, %d page reads", d.name, rows,
			time.Since(start).Round(time.Millisecond), len(calls), told, counter.urls.Load()-reads)
	})
}

// TestWatchClose stops watchers by Close and by their context: no
// goroutine is left, and Close may be called again.
func TestWatchClose(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		f := newFreshSite(t, d, nil, true)
		before := runtime.NumGoroutine()
		rec := &recorder{}
		db := d.open(t) // closed below: its connections are not the watchers'
		src := f.watchSource(t, db, 50*time.Millisecond, nil)
		w1, err := src.Watch(context.Background(), rec, "products")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		w2, err := src.Watch(ctx, rec, "products")
		if err != nil {
			t.Fatal(err)
		}
		f.exec(t, "UPDATE products SET slug = 'renamed-12' WHERE id = 12")
		poll(t, "page 2 to be told", func() bool { return rec.told(2) })
		cancel()
		for _, w := range []*sqlsource.Watcher{w1, w2, w1, w2} {
			if err := w.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		}
		db.Close()
		checkGoroutines(t, before)
	})
}

// TestWatchInvalidateFails gives the watcher an Invalidator that fails,
// as a Sitemap does for an unknown section: the watcher stops, logs it,
// and Close returns the error.
func TestWatchInvalidateFails(t *testing.T) {
	d := openDB(t, "sqlite")
	f := newFreshSite(t, d, nil, true)
	before := runtime.NumGoroutine()
	logs := &testkit.SyncBuffer{}
	w, err := f.watchSource(t, d.db, 50*time.Millisecond, logs).Watch(context.Background(), &recorder{fail: true}, "products")
	if err != nil {
		t.Fatal(err)
	}
	f.exec(t, "UPDATE products SET slug = 'renamed-12' WHERE id = 12")
	poll(t, "the watcher to stop", func() bool { return strings.Contains(logs.String(), "watch stopped") })
	if err := w.Close(); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("Close = %v; want the Invalidator's error", err)
	}
	checkGoroutines(t, before)
}

// TestWatchConfig checks what Watch and New refuse.
func TestWatchConfig(t *testing.T) {
	d := openDB(t, "sqlite")
	f := newFreshSite(t, d, nil, true)
	cfg := f.c.config(10)
	if _, err := newSource(t, d.db, cfg).Watch(context.Background(), f.sm, "products"); err == nil {
		t.Error("Watch without Config.Summary: no error")
	}
	cfg.Summary = true
	src := newSource(t, d.db, cfg)
	var nilRec *recorder
	for name, inv := range map[string]sqlsource.Invalidator{"nil": nil, "nil pointer": nilRec} {
		if _, err := src.Watch(context.Background(), inv, "products"); err == nil {
			t.Errorf("Watch with a %s Invalidator: no error", name)
		}
	}
	if _, err := src.Watch(context.Background(), f.sm, " "); err == nil {
		t.Error("Watch with no section: no error")
	}
	cfg.WatchInterval = -time.Second
	if _, err := sqlsource.New(d.db, cfg); err == nil {
		t.Error("New with a negative WatchInterval: no error")
	}
}

// checkGoroutines waits until there are no more goroutines than before.
func checkGoroutines(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(pollFor)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines left, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(5 * time.Millisecond)
	}
}
