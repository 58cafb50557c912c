package sqlsource_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/freshmap/sitemap/adapters/sqlsource"
)

// TestApplyStatements: applying a batch of changes on 51 pages, and
// reading Pages while changes wait on 51 pages, cost a few statements
// each, not one or two per page (apply.go's listedPages and one upsert
// for many pages), and leave the summary as the aggregate counts it: a
// page whose rows all became unlisted is no longer listed.
func TestApplyStatements(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		ctx := context.Background()
		c := d.createCatalogue(t, products(ids(1, 200)...))
		db, hooks := d.db, (*driverHooks)(nil)
		if d.name == "sqlite" {
			db, hooks = countingDB(t, d.dsn)
		}
		statements := func() int64 {
			if hooks == nil {
				return 0
			}
			return hooks.queries.Load() + hooks.execs.Load()
		}
		cfg := c.config(4) // 51 pages: keys from 0
		cfg.Summary = true
		src := newSource(t, db, cfg)
		installSummary(t, src)
		agg := newSource(t, d.db, c.config(4))
		d.exec(t, "UPDATE "+c.products+" SET updated_at = ?", c.timeArg(t0.Add(time.Hour)))
		d.exec(t, "UPDATE "+c.products+" SET published = ? WHERE id BETWEEN 24 AND 31", false) // pages 7 and 8 (keys from 0, 4 a page)

		before := statements()
		checkSummary(t, "changes waiting on every page", agg, src)
		if n := statements() - before; n > 4 {
			t.Errorf("Pages with changes waiting on 51 pages: %d statements, want at most 4", n)
		}
		before = statements()
		pages, err := sqlsource.ApplyWaiting(ctx, src)
		if err != nil {
			t.Fatal(err)
		}
		if n := statements() - before; n > 10 {
			t.Errorf("applying changes on 51 pages: %d statements, want at most 10", n)
		}
		if want := ids(1, 51); !slices.Equal(pages, want) {
			t.Errorf("applied pages %v, want %v", pages, want)
		}
		if n := d.changeRows(t, c.products); n != 0 {
			t.Errorf("%d changes left after the ack, want none", n)
		}
		got := checkSummary(t, "applied", agg, src)
		if _, ok := got[7]; ok {
			t.Errorf("page 7, every row unlisted, is listed: %v", got[7])
		}
	})
}

// TestChangeTableEvery: the change table is read an interval after the
// last read began, however long the consumer took over that read's
// changes (within the interval): the time to apply them is not added to
// the wait; and never sooner than an interval, however quick it was.
func TestChangeTableEvery(t *testing.T) {
	d := openDB(t, "sqlite")
	c := d.createCatalogue(t, products(ids(1, 20)...))
	cfg := c.config(10)
	const every = 400 * time.Millisecond
	cfg.Summary, cfg.WatchInterval = true, every
	src := newSource(t, d.db, cfg)
	installSummary(t, src)
	read := sqlsource.ChangeTableReads(src)
	ctx := context.Background()
	first, _, err := read(ctx) // at once
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * every / 4) // the consumer applies and tells what it read
	d.exec(t, "UPDATE "+c.products+" SET slug = ? WHERE id = 3", "renamed")
	second, n, err := read(ctx)
	if err != nil || n != 1 {
		t.Fatalf("second read: %d changes, %v; want the rename", n, err)
	}
	if gap := second.Sub(first); gap < every || gap >= every+every/2 {
		t.Errorf("second read %v after the first began, want %v (the consumer's %v within it)", gap, every, 3*every/4)
	}
	third, _, err := read(ctx) // the consumer took no time
	if err != nil {
		t.Fatal(err)
	}
	if gap := third.Sub(second); gap < every {
		t.Errorf("third read %v after the second, want at least %v", gap, every)
	}
}

// TestWatchStatsSteps: WatchStats says how many batches the watcher
// applied and how long their reads, applies and the rest of their steps
// took, where the time of commit → told goes.
func TestWatchStatsSteps(t *testing.T) {
	d := openDB(t, "sqlite")
	c := d.createCatalogue(t, products(ids(1, 30)...))
	cfg := c.config(10)
	cfg.Summary, cfg.WatchInterval = true, 50*time.Millisecond
	src := newSource(t, d.db, cfg)
	installSummary(t, src)
	rec := &recorder{}
	watch(t, src, rec)
	d.exec(t, "UPDATE "+c.products+" SET slug = ? WHERE id IN (3, 15)", "renamed")
	var st sqlsource.WatchStats
	poll(t, "the batch applied, told and acknowledged", func() bool {
		var err error
		if st, err = src.WatchStats(context.Background()); err != nil {
			t.Fatal(err)
		}
		return st.Batches > 0 && st.BatchTime > 0 && st.Pending == 0
	})
	if !rec.told(1) || !rec.told(2) {
		t.Errorf("pages told %v, want 1 and 2", rec.record())
	}
	if st.Batches != 1 || st.Applied != 2 || st.ReadTime <= 0 || st.ApplyTime <= 0 || st.BatchTime < st.ApplyTime {
		t.Errorf("WatchStats = %+v; want one batch of two changes, with its read, apply and step times", st)
	}
}

// TestWatchSlowApplyOnce: one apply that is slow (it waits for the
// database's write lock) delays its own batch, not the ones after it:
// each later batch is told as soon as it is applied, not as long after its
// read as the slow one was (the pace of the calls kept from the slow one).
func TestWatchSlowApplyOnce(t *testing.T) {
	d := openDB(t, "sqlite")
	c := d.createCatalogue(t, products(ids(1, 40)...))
	d.exec(t, "CREATE TABLE "+c.products+"_lock (a INTEGER)")
	db, hooks := countingDB(t, d.dsn)
	cfg := c.config(10)
	const every, slow = 300 * time.Millisecond, 200 * time.Millisecond
	cfg.Summary, cfg.Significant, cfg.WatchInterval = true, []string{"slug", "published"}, every
	src := newSource(t, db, cfg)
	installSummary(t, src)
	rec := &keysRecorder{}
	w, err := src.Watch(context.Background(), rec, "products")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	toldAt := func(key int64) (time.Time, bool) {
		for _, call := range rec.record() {
			if call.keys && slices.Contains(call.args, key) {
				return call.at, true
			}
		}
		return time.Time{}, false
	}
	// The first change's apply waits for a write lock, held until slow
	// after the read that found it.
	d.exec(t, "UPDATE "+c.products+" SET slug = ? WHERE id = 1", "slow")
	committed := time.Now()
	tx, err := d.db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("INSERT INTO " + c.products + "_lock VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	poll(t, "the watcher's read", func() bool { r := hooks.watchReads(); return r[len(r)-1].After(committed) })
	time.Sleep(slow)
	tx.Rollback()
	poll(t, "the slow change told", func() bool { _, ok := toldAt(1); return ok })
	for _, key := range []int64{5, 15, 25, 35} {
		d.exec(t, "UPDATE "+c.products+" SET slug = ? WHERE id = ?", "quick", key)
		committed := time.Now()
		poll(t, "a later change told", func() bool { _, ok := toldAt(key); return ok })
		at, _ := toldAt(key)
		var read time.Time // the read that found it: the last before the call
		for _, r := range hooks.watchReads() {
			if r.After(committed) && !r.After(at) {
				read = r
			}
		}
		if read.IsZero() {
			t.Fatalf("no read of the change table between the commit of key %d and its call", key)
		}
		if d := at.Sub(read); d > slow/2 {
			t.Errorf("change of key %d told %v after the read that found it, want at once (the slow apply's %v kept?)", key, d.Round(time.Millisecond), slow)
		}
	}
}

// TestWatchIntervalDefault: without Config.WatchInterval, the change
// table is read every DefaultWatchInterval, 250 ms.
func TestWatchIntervalDefault(t *testing.T) {
	d := openDB(t, "sqlite")
	c := d.createCatalogue(t, products(ids(1, 20)...))
	cfg := c.config(10)
	cfg.Summary = true
	src := newSource(t, d.db, cfg)
	installSummary(t, src)
	read := sqlsource.ChangeTableReads(src)
	ctx := context.Background()
	first, _, err := read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	second, _, err := read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if gap := second.Sub(first); sqlsource.DefaultWatchInterval != 250*time.Millisecond || gap < 250*time.Millisecond || gap > 700*time.Millisecond {
		t.Errorf("reads %v apart with the default interval %v, want 250 ms", gap, sqlsource.DefaultWatchInterval)
	}
}
