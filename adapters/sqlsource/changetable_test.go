package sqlsource_test

import (
	"context"
	"testing"
	"time"
)

// TestChangeTableLateCommit: a transaction that takes its change id
// before another commits a later one, and commits after the watcher read
// and pruned that later one, is applied all the same: the change table is
// never read "since the last id".
func TestChangeTableLateCommit(t *testing.T) {
	for _, name := range []string{"postgres", "mysql"} {
		t.Run(name, func(t *testing.T) {
			d := openDB(t, name)
			c := d.createCatalogue(t, products(ids(1, 35)...))
			cfg := c.config(10)
			cfg.Summary, cfg.WatchInterval = true, 50*time.Millisecond
			src := newSource(t, d.db, cfg)
			installSummary(t, src)
			ctx := context.Background()
			tx, err := d.db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback()
			if _, err := tx.Exec(d.dialect.Rebind("INSERT INTO "+c.products+" (id, slug, updated_at, published, noindex) VALUES (?, ?, ?, ?, ?)"),
				36, "late", c.timeArg(t0), true, false); err != nil {
				t.Fatal(err)
			}
			d.exec(t, "UPDATE "+c.products+" SET slug = ? WHERE id = 12", "early")
			rec := &recorder{}
			watch(t, src, rec)
			poll(t, "page 2 told", func() bool { return rec.told(2) })
			poll(t, "the change table pruned", func() bool { return d.changeRows(t, c.products) == 0 })
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			poll(t, "page 4, committed late, told", func() bool { return rec.told(4) })
		})
	}
}

// TestWatchApplyFails: changes read while the summary cannot be written
// stay in the change table and are applied once it can.
func TestWatchApplyFails(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		c := d.createCatalogue(t, products(ids(1, 35)...))
		cfg := c.config(10)
		cfg.Summary, cfg.WatchInterval = true, 50*time.Millisecond
		src := newSource(t, d.db, cfg)
		installSummary(t, src)
		rec := &recorder{}
		watch(t, src, rec)
		pages := c.products + "_sitemap_pages"
		d.exec(t, "ALTER TABLE "+pages+" RENAME TO "+pages+"_away")
		d.exec(t, "UPDATE "+c.products+" SET slug = ? WHERE id = 25", "while-away")
		time.Sleep(300 * time.Millisecond) // the watcher reads the change and fails to apply it, a few times
		if rec.told(3) || d.changeRows(t, c.products) != 1 {
			t.Fatalf("told %v with the summary away; %d changes left, want the one", rec.record(), d.changeRows(t, c.products))
		}
		d.exec(t, "ALTER TABLE "+pages+"_away RENAME TO "+pages)
		poll(t, "page 3 told", func() bool { return rec.told(3) })
		poll(t, "the change table pruned", func() bool { return d.changeRows(t, c.products) == 0 })
		agg := newSource(t, d.db, c.config(10))
		checkSummary(t, "after the failed applies", agg, src)
	})
}
