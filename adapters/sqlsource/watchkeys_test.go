package sqlsource_test

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freshmap/sitemap/adapters/sqlsource"
	"github.com/freshmap/sitemap/internal/testkit"
)

// keysRecorder is an Invalidator that can also be told keys, as a
// *sitemap.Sitemap can: it records every call, and refuses the calls of
// keys, or of pages, while told to.
type keysRecorder struct {
	mu                      sync.Mutex
	refuseKeys, refusePages bool
	calls                   []keysCall
}

type keysCall struct {
	at   time.Time
	keys bool // InvalidateKeys, else Invalidate
	args []int64
}

func (r *keysRecorder) Invalidate(section string, pages ...int64) error {
	return r.add(section, false, pages, r.refusePages)
}

func (r *keysRecorder) InvalidateKeys(section string, keys ...int64) error {
	return r.add(section, true, keys, r.refuseKeys)
}

func (r *keysRecorder) add(section string, keys bool, args []int64, refuse bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, keysCall{time.Now(), keys, slices.Clone(args)})
	if section != "products" {
		return errors.New("no such section")
	}
	if refuse {
		return errors.New("refused")
	}
	return nil
}

func (r *keysRecorder) record() []keysCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls)
}

// told returns the keys (or pages) told in calls that did not fail.
func (r *keysRecorder) told(keys bool) map[int64]bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	refused := r.refusePages
	if keys {
		refused = r.refuseKeys
	}
	m := map[int64]bool{}
	for _, c := range r.calls {
		if c.keys == keys && !refused {
			for _, k := range c.args {
				m[k] = true
			}
		}
	}
	return m
}

// forEachCapture runs f on every database with the change table, and on
// PostgreSQL with logical decoding too (where the server decodes).
func forEachCapture(t *testing.T, f func(t *testing.T, d *testDB, capture sqlsource.Capture)) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		t.Run("change table", func(t *testing.T) { f(t, d, sqlsource.CaptureChangeTable) })
		if d.name == "postgres" {
			t.Run("logical decoding", func(t *testing.T) {
				sqlsource.LogicalDSN(t)
				f(t, d, sqlsource.CaptureLogical)
			})
		}
	})
}

// keysSource makes a catalogue of keys 1 to 35 in pages of 10 whose
// significant columns are the slug and the filter's, with its summary
// installed for capture (and, with logical decoding, the new slot's
// resync told), and returns a Source over it that watches every 100 ms.
func keysSource(t *testing.T, d *testDB, capture sqlsource.Capture, logs *testkit.SyncBuffer) (*catalogue, *sqlsource.Source) {
	t.Helper()
	return keysSourceEvery(t, d, capture, logs, 100*time.Millisecond)
}

// keysSourceEvery is keysSource watching every interval.
func keysSourceEvery(t *testing.T, d *testDB, capture sqlsource.Capture, logs *testkit.SyncBuffer, every time.Duration) (*catalogue, *sqlsource.Source) {
	t.Helper()
	c := d.createCatalogue(t, products(ids(1, 35)...))
	cfg := c.config(10)
	cfg.Summary, cfg.Significant, cfg.Capture = true, []string{"slug", "published", "noindex"}, capture
	cfg.WatchInterval = every
	if logs != nil {
		cfg.Logger = slog.New(slog.NewTextHandler(logs, nil))
	}
	src := newSource(t, d.db, cfg)
	installSummary(t, src)
	if capture == sqlsource.CaptureLogical {
		// A slot made anew tells every page first (its changes before
		// were not kept): a watcher takes that, and acknowledges it.
		rec := &keysRecorder{}
		w, err := src.Watch(context.Background(), rec, "products")
		if err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the new slot's resync", func() bool { return len(rec.told(false)) > 0 })
		time.Sleep(200 * time.Millisecond) // acknowledged after the call
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return c, src
}

// waitFor polls cond for up to 20 s: a logical decoding consumer that
// takes over a slot may wait for the server to let the last one go.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("still waiting after 20s for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestWatchKeys: given an Invalidator that takes keys, the watcher tells
// the keys of the rows changed significantly (an update, a delete, an
// insert on a new page, a row leaving the filter), in sorted calls at
// most one per interval, never their pages, and never the keys of rows
// whose significant columns did not change.
func TestWatchKeys(t *testing.T) {
	forEachCapture(t, func(t *testing.T, d *testDB, capture sqlsource.Capture) {
		c, src := keysSource(t, d, capture, nil)
		rec := &keysRecorder{}
		watch(t, src, rec)
		d.exec(t, "UPDATE "+c.products+" SET updated_at = ? WHERE id >= 5 AND id <= 9 OR id = 21", c.timeArg(t0.AddDate(0, 1, 0)))
		d.exec(t, "UPDATE "+c.products+" SET slug = slug, noindex = noindex WHERE id = 22")
		d.exec(t, "UPDATE "+c.products+" SET slug = 'renamed-12' WHERE id = 12")
		d.exec(t, "DELETE FROM "+c.products+" WHERE id = 23")
		c.insert(t, products(45)...)
		d.exec(t, "UPDATE "+c.products+" SET published = ? WHERE id = 31", false)
		want := []int64{12, 23, 31, 45}
		waitFor(t, "the keys of the significant changes", func() bool { return len(rec.told(true)) >= len(want) })
		time.Sleep(300 * time.Millisecond) // three intervals more: anything else would be told by now
		if got := slices.Sorted(maps.Keys(rec.told(true))); !slices.Equal(got, want) {
			t.Errorf("keys told %v, want %v (the insignificant writes to 5-9, 21 and 22 tell nothing)", got, want)
		}
		calls := rec.record()
		for i, c := range calls {
			if !c.keys {
				t.Errorf("Invalidate(%v) called; want keys only", c.args)
			}
			if !slices.IsSorted(c.args) || len(slices.Compact(slices.Clone(c.args))) != len(c.args) {
				t.Errorf("InvalidateKeys(%v): want each key once, in order", c.args)
			}
			// Paced from the call before with logical decoding; from the
			// reads with the change table, and then at least half an
			// interval after the call before.
			least := 90 * time.Millisecond
			if capture == sqlsource.CaptureChangeTable {
				least = 45 * time.Millisecond
			}
			if i > 0 && c.at.Sub(calls[i-1].at) < least {
				t.Errorf("calls %v apart: want at least %v (interval 100ms)", c.at.Sub(calls[i-1].at), least)
			}
		}
	})
}

// TestWatchKeysLatency: rows inserted every 25 ms for 3 s are each told
// within an interval of their commit at the median: with logical
// decoding, the watcher waits for the next call to be due before it reads,
// not after (read first, a row that came while it waited was told a call
// later: 1.5 intervals at the median); with the change table, a call
// follows its read at once.
func TestWatchKeysLatency(t *testing.T) {
	forEachCapture(t, func(t *testing.T, d *testDB, capture sqlsource.Capture) {
		const every = 400 * time.Millisecond
		c, src := keysSourceEvery(t, d, capture, nil, every)
		rec := &keysRecorder{}
		watch(t, src, rec)
		committed := map[int64]time.Time{}
		for k := int64(100); k < 220; k++ {
			c.insert(t, products(k)...)
			committed[k] = time.Now()
			time.Sleep(25 * time.Millisecond)
		}
		waitFor(t, "every row's key", func() bool { return len(rec.told(true)) >= len(committed) })
		told := map[int64]time.Time{}
		for _, call := range rec.record() {
			for _, k := range call.args {
				if _, ok := told[k]; !ok && call.keys {
					told[k] = call.at
				}
			}
		}
		var lat []time.Duration
		for k, at := range committed {
			lat = append(lat, told[k].Sub(at))
		}
		slices.Sort(lat)
		if med := lat[len(lat)/2]; med > every {
			t.Errorf("commit → told: median %v, max %v; want at most the interval, %v, at the median", med, lat[len(lat)-1], every)
		} else {
			t.Logf("commit → told: median %v, max %v (interval %v)", med, lat[len(lat)-1], every)
		}
	})
}

// TestWatchKeysNotLost: a watcher whose InvalidateKeys (and then
// Invalidate) fails stops without acknowledging the changes it read, so
// the next watcher is told their keys: the summary records pages, so a
// batch is acknowledged only after its keys were told.
func TestWatchKeysNotLost(t *testing.T) {
	forEachCapture(t, func(t *testing.T, d *testDB, capture sqlsource.Capture) {
		c, src := keysSource(t, d, capture, nil)
		failing := &keysRecorder{refuseKeys: true, refusePages: true}
		w, err := src.Watch(context.Background(), failing, "products")
		if err != nil {
			t.Fatal(err)
		}
		d.exec(t, "UPDATE "+c.products+" SET slug = 'renamed-12' WHERE id = 12")
		d.exec(t, "UPDATE "+c.products+" SET slug = 'renamed-27' WHERE id = 27")
		waitFor(t, "the failing call", func() bool {
			calls := failing.record()
			return len(calls) > 0 && !calls[len(calls)-1].keys // keys refused, then pages
		})
		if err := w.Close(); err == nil || !strings.Contains(err.Error(), "refused") {
			t.Fatalf("Close = %v, want the Invalidator's refusal", err)
		}
		rec := &keysRecorder{}
		watch(t, src, rec)
		waitFor(t, "the next watcher to tell keys 12 and 27", func() bool {
			told := rec.told(true)
			return told[12] && told[27]
		})
	})
}

// TestWatchKeysRefused: an Invalidator whose InvalidateKeys fails (a
// Sitemap whose section's Source does not read segments) is told the
// pages of those keys instead, and from then on only pages; it is logged
// once.
func TestWatchKeysRefused(t *testing.T) {
	d := openDB(t, "sqlite")
	logs := &testkit.SyncBuffer{}
	c, src := keysSource(t, d, sqlsource.CaptureChangeTable, logs)
	rec := &keysRecorder{refuseKeys: true}
	w, err := src.Watch(context.Background(), rec, "products")
	if err != nil {
		t.Fatal(err)
	}
	d.exec(t, "UPDATE "+c.products+" SET slug = 'renamed-12' WHERE id = 12")
	d.exec(t, "UPDATE "+c.products+" SET slug = 'renamed-19' WHERE id = 19")
	waitFor(t, "page 2 to be told", func() bool { return rec.told(false)[2] })
	d.exec(t, "UPDATE "+c.products+" SET slug = 'renamed-33' WHERE id = 33")
	waitFor(t, "page 4 to be told", func() bool { return rec.told(false)[4] })
	if err := w.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	// Page 2's two renames may come in two reads of the change table, the
	// second after the refusal: page 2 is then told again, alone or with
	// page 4 (the calls are paced from the reads).
	keyCalls := 0
	for _, c := range rec.record() {
		if c.keys {
			keyCalls++
		} else if !slices.Equal(c.args, []int64{2}) && !slices.Equal(c.args, []int64{4}) && !slices.Equal(c.args, []int64{2, 4}) {
			t.Errorf("Invalidate(%v), want page 2, then page 4", c.args)
		}
	}
	if keyCalls != 1 {
		t.Errorf("%d InvalidateKeys calls, want the one refused", keyCalls)
	}
	if n := strings.Count(logs.String(), "InvalidateKeys refused"); n != 1 {
		t.Errorf("logged %d times, want once:\n%s", n, logs)
	}
}
