package sqlsource_test

import (
	"context"
	"strings"
	"testing"

	"github.com/freshmap/sitemap/adapters/sqlsource"
)

// TestChangesRecorded counts what the change table's triggers record for
// each kind of write, with Significant: nothing for an UPDATE that sets
// no significant column or sets one to its own value, one row for an
// INSERT, a DELETE and a significant UPDATE, two (the old key deleted,
// the new one written) for an UPDATE of the key. On SQLite the UPDATE
// trigger names its columns (UPDATE OF), so an UPDATE of other columns
// runs no trigger at all.
func TestChangesRecorded(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		c := d.createCatalogue(t, products(ids(1, 20)...))
		cfg := c.config(10)
		cfg.Summary, cfg.Significant = true, []string{"slug", "published", "noindex"}
		installSummary(t, newSource(t, d.db, cfg))
		want := 0
		for _, w := range []struct {
			q     string
			added int
		}{
			{"UPDATE " + c.products + " SET updated_at = ? WHERE id = 3", 0},
			{"UPDATE " + c.products + " SET slug = slug, published = published WHERE id <= 5", 0},
			{"UPDATE " + c.products + " SET slug = 'renamed-4' WHERE id = 4", 1},
			{"UPDATE " + c.products + " SET published = NOT published, updated_at = ? WHERE id = 6", 1},
			{"UPDATE " + c.products + " SET id = 99 WHERE id = 7", 2},
			{"INSERT INTO " + c.products + " (id, slug, updated_at, published, noindex) VALUES (30, 'new', ?, true, false)", 1},
			{"DELETE FROM " + c.products + " WHERE id = 8", 1},
		} {
			var args []any
			if strings.Contains(w.q, "?") {
				args = append(args, c.timeArg(t0.AddDate(0, 2, 0)))
			}
			d.exec(t, w.q, args...)
			want += w.added
			if n := d.changeRows(t, c.products); n != want {
				t.Errorf("after %s: %d changes recorded, want %d", w.q, n, want)
				want = n
			}
		}
		if d.name != "sqlite" {
			return
		}
		st := d.state(t, c.products)
		if !strings.Contains(st.triggers, "AFTER UPDATE OF id, slug, published, noindex ON") {
			t.Errorf("the UPDATE trigger does not name its columns:\n%s", st.triggers)
		}
	})
}

// TestChangesGenerated: on SQLite, a significant column that is generated
// from another changes when that one is set, which UPDATE OF would not
// see; the UPDATE trigger then runs on every UPDATE, its WHEN deciding.
func TestChangesGenerated(t *testing.T) {
	d := openDB(t, "sqlite")
	d.exec(t, "CREATE TABLE gen (id INTEGER PRIMARY KEY, name TEXT NOT NULL, slug TEXT AS (lower(name)), stock INTEGER NOT NULL, "+
		"updated_at TEXT, published BOOLEAN NOT NULL)")
	d.exec(t, "INSERT INTO gen (id, name, stock, updated_at, published) VALUES (1, 'One', 1, '2024-01-01 00:00:00', true), "+
		"(2, 'Two', 1, '2024-01-01 00:00:00', true)")
	cfg := sqlsource.Config{Table: "gen", Key: "id", LocTemplate: base + "{slug}", LastMod: "updated_at", Filter: "published",
		PageSize: 10, Dialect: d.dialect, Summary: true, Significant: []string{"slug"}}
	installSummary(t, newSource(t, d.db, cfg))
	d.exec(t, "UPDATE gen SET stock = 2 WHERE id = 1")
	d.exec(t, "UPDATE gen SET name = 'ONE' WHERE id = 1") // the same slug
	if n := d.changeRows(t, "gen"); n != 0 {
		t.Errorf("%d changes recorded for updates that leave the slug as it was", n)
	}
	d.exec(t, "UPDATE gen SET name = 'Deux' WHERE id = 2")
	if n := d.changeRows(t, "gen"); n != 1 {
		t.Errorf("%d changes recorded for a new name (a new generated slug), want 1", n)
	}
}

// TestInstallUpgradeChanges installs over the change table of the
// version before (its triggers' fingerprint differs; on SQLite its
// UPDATE trigger names no columns) with a change recorded and not yet
// read: the triggers are replaced, the change is still there for Watch,
// and the new triggers record what they should.
func TestInstallUpgradeChanges(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		ctx := context.Background()
		c := d.createCatalogue(t, products(ids(1, 20)...))
		cfg := c.config(10)
		cfg.Summary, cfg.Significant = true, []string{"slug", "published", "noindex"}
		src := newSource(t, d.db, cfg)
		installSummary(t, src)
		changes, pages := c.products+"_sitemap_changes", c.products+"_sitemap_pages"
		if d.name == "sqlite" {
			// The version before's UPDATE trigger: a WHEN alone.
			d.exec(t, "DROP TRIGGER "+changes+"_upd")
			d.exec(t, "CREATE TRIGGER "+changes+"_upd AFTER UPDATE ON "+c.products+" WHEN (OLD.id IS NOT NEW.id OR OLD.slug IS NOT NEW.slug "+
				"OR OLD.published IS NOT NEW.published OR OLD.noindex IS NOT NEW.noindex) BEGIN INSERT INTO "+changes+
				" (sitemap_key, sitemap_kind, sitemap_changed_at) SELECT OLD.id, 2, strftime('%Y-%m-%d %H:%M:%S', 'now') WHERE OLD.id IS NOT NEW.id; "+
				"INSERT INTO "+changes+" (sitemap_key, sitemap_kind, sitemap_changed_at) VALUES (NEW.id, 1, strftime('%Y-%m-%d %H:%M:%S', 'now')); END")
		}
		d.exec(t, "UPDATE "+pages+" SET changes = 12345 WHERE page = 0") // the version before's fingerprint
		d.exec(t, "UPDATE "+c.products+" SET slug = 'renamed-4' WHERE id = 4")
		if n := d.changeRows(t, c.products); n != 1 {
			t.Fatalf("%d changes recorded before the upgrade, want 1", n)
		}
		installSummary(t, src)
		var fp int64
		if err := d.db.QueryRowContext(ctx, "SELECT changes FROM "+pages+" WHERE page = 0").Scan(&fp); err != nil {
			t.Fatal(err)
		}
		if fp == 12345 {
			t.Error("the installation's fingerprint is still the version before's")
		}
		if n := d.changeRows(t, c.products); n != 1 {
			t.Errorf("%d changes after the upgrade, want the 1 not yet read", n)
		}
		d.exec(t, "UPDATE "+c.products+" SET updated_at = ? WHERE id = 5", c.timeArg(t0.AddDate(0, 3, 0)))
		d.exec(t, "UPDATE "+c.products+" SET slug = 'renamed-6' WHERE id = 6")
		if n := d.changeRows(t, c.products); n != 2 {
			t.Errorf("%d changes after an insignificant and a significant update, want 2", n)
		}
		if d.name == "sqlite" && !strings.Contains(d.state(t, c.products).triggers, "AFTER UPDATE OF") {
			t.Error("the UPDATE trigger of the version before was not replaced")
		}
	})
}
