package sqlsource_test

import (
	"context"
	"fmt"
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

// TestChangeTableVacuumed: on PostgreSQL the watcher vacuums the change
// table as it deletes from it, every 10,000 rows, so that the rows it
// deleted do not pile up in it, dead, for every read of the table to
// scan, however long autovacuum takes to come (it may be off: it is on
// the test server). 60,000 changes pass through the table: it is vacuumed
// (by us: vacuum_count counts no autovacuum) at least 5 times, and holds
// less than what 25,000 rows take. Without the vacuum it is vacuumed
// never, and holds all 60,000, 3.5 MB, if autovacuum has not come. The
// size is checked only while no other transaction of the database holds
// the dead rows back (a vacuum cannot remove what one may still see).
func TestChangeTableVacuumed(t *testing.T) {
	d := openDB(t, "postgres")
	c := d.createCatalogue(t, products(ids(1, 35)...))
	cfg := c.config(1000)
	cfg.Summary, cfg.WatchInterval = true, 20*time.Millisecond
	src := newSource(t, d.db, cfg)
	installSummary(t, src)
	watch(t, src, &recorder{})
	const rounds, rows = 6, 5000 // each round inserts rows, then deletes them: 2×rows changes
	changes := c.products + "_sitemap_changes"
	for range rounds {
		d.exec(t, "INSERT INTO "+c.products+" SELECT g, 'g-' || g, now(), true, false FROM generate_series(100, 99 + "+fmt.Sprint(rows)+") g")
		poll(t, "the inserts applied", func() bool { return d.changeRows(t, c.products) == 0 })
		d.exec(t, "DELETE FROM "+c.products+" WHERE id >= 100")
		poll(t, "the deletes applied", func() bool { return d.changeRows(t, c.products) == 0 })
	}
	var vacuums int
	poll(t, "5 vacuums of the change table", func() bool {
		if err := d.db.QueryRow("SELECT vacuum_count FROM pg_stat_user_tables WHERE relname = '" + changes + "'").Scan(&vacuums); err != nil {
			t.Fatal(err)
		}
		return vacuums >= 2*rounds*rows/10_000-1
	})
	var size int64
	var held bool // another transaction of the database may see the dead rows
	if err := d.db.QueryRow("SELECT pg_relation_size('"+changes+"'), EXISTS (SELECT 1 FROM pg_stat_activity WHERE datname = current_database() "+
		"AND pid <> pg_backend_pid() AND backend_xmin IS NOT NULL AND xact_start < now() - interval '1 second')").Scan(&size, &held); err != nil {
		t.Fatal(err)
	}
	// A change row takes about 60 bytes. The table holds at most the rows
	// deleted since the last vacuum, 10,000, and the ones read with them.
	if limit := int64(25_000 * 60); size > limit && !held {
		t.Errorf("the change table takes %d bytes after %d changes went through it and %d vacuums, want at most %d (what 25,000 rows take)",
			size, 2*rounds*rows, vacuums, limit)
	}
}
