package sqlsource_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/freshmap/sitemap/adapters/sqlsource"
)

// catalogState is what the database holds of a table: its rows, the
// triggers on it and the tables named after it.
type catalogState struct {
	rows, triggers, tables string
}

func (d *testDB) state(t *testing.T, table string) catalogState {
	t.Helper()
	list := func(q string, args ...any) string {
		rows, err := d.db.Query(d.dialect.Rebind(q), args...)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
		slices.Sort(out)
		return strings.Join(out, "\n")
	}
	st := catalogState{rows: list("SELECT " + concatRow(d) + " FROM " + table)}
	switch d.name {
	case "sqlite":
		st.triggers = list("SELECT name || ':' || sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?", table)
		st.tables = list("SELECT name || ':' || sql FROM sqlite_master WHERE type = 'table' AND name LIKE ?", table+"%")
	case "postgres":
		st.triggers = list("SELECT tgname FROM pg_trigger WHERE tgrelid = to_regclass(?) AND NOT tgisinternal", table)
		st.tables = list("SELECT table_name || ':' || column_name || ':' || data_type FROM information_schema.columns WHERE table_name LIKE ?", table+"%")
	case "mysql":
		st.triggers = list("SELECT TRIGGER_NAME FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE() AND EVENT_OBJECT_TABLE = ?", table)
		st.tables = list("SELECT CONCAT(TABLE_NAME, ':', COLUMN_NAME, ':', COLUMN_TYPE) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME LIKE ?", table+"%")
	}
	return st
}

// concatRow is a product row as one text.
func concatRow(d *testDB) string {
	cols := []string{"id", "slug", "updated_at", "published", "noindex"}
	if d.name == "mysql" {
		return "CONCAT_WS('|', " + strings.Join(cols, ", ") + ")"
	}
	for i, c := range cols {
		cols[i] = "COALESCE(CAST(" + c + " AS TEXT), '')"
	}
	return strings.Join(cols, " || '|' || ")
}

// changeRows counts the change table's rows.
func (d *testDB) changeRows(t *testing.T, table string) int {
	t.Helper()
	var n int
	if err := d.db.QueryRow("SELECT COUNT(*) FROM " + table + "_sitemap_changes").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestInstallMigration: installing twice changes nothing (no trigger
// remade, no page moved); installing for another page size brings the
// summary to it; removing leaves the table, its rows and its triggers as
// they were before the first install.
func TestInstallMigration(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		ctx := context.Background()
		c := d.createCatalogue(t, products(ids(1, 25)...))
		before := d.state(t, c.products)
		cfg := c.config(10)
		cfg.Summary, cfg.Significant = true, []string{"slug", "published", "noindex"}
		sum := newSource(t, d.db, cfg)
		if err := sum.InstallSummary(ctx); err != nil {
			t.Fatal(err)
		}
		d.exec(t, "UPDATE "+c.products+" SET slug = ? WHERE id = 3", "renamed")
		installed, pages := d.state(t, c.products), readInfos(t, sum)
		if installed.triggers == before.triggers {
			t.Fatal("InstallSummary made no trigger")
		}
		for i := 0; i < 2; i++ {
			if err := sum.InstallSummary(ctx); err != nil {
				t.Fatalf("install again: %v", err)
			}
		}
		if again := d.state(t, c.products); again != installed {
			t.Errorf("installing again changed the database:\n%+v\nwas\n%+v", again, installed)
		}
		if got := readInfos(t, sum); got != pages {
			t.Errorf("installing again moved the pages:\n%s\nwas\n%s", got, pages)
		}
		if n := d.changeRows(t, c.products); n != 1 {
			t.Errorf("%d changes waiting, want the one update", n)
		}

		// Another page size: the same tables and triggers, the pages recounted.
		cfg5 := cfg
		cfg5.PageSize = 5
		sum5 := newSource(t, d.db, cfg5)
		if err := sum5.InstallSummary(ctx); err != nil {
			t.Fatal(err)
		}
		agg5 := newSource(t, d.db, func() sqlsource.Config { c := cfg5; c.Summary, c.Significant = false, nil; return c }())
		checkSummary(t, "page size 5", agg5, sum5)
		// Another Significant: the triggers replaced; an update of a
		// column no longer significant writes no change.
		cfgS := cfg5
		cfgS.Significant = []string{"published"}
		sumS := newSource(t, d.db, cfgS)
		if err := sumS.InstallSummary(ctx); err != nil {
			t.Fatal(err)
		}
		n := d.changeRows(t, c.products)
		d.exec(t, "UPDATE "+c.products+" SET slug = ? WHERE id = 4", "quiet")
		if m := d.changeRows(t, c.products); m != n {
			t.Errorf("an update of a column no longer significant wrote %d changes", m-n)
		}

		if err := sumS.RemoveSummary(ctx); err != nil {
			t.Fatal(err)
		}
		d.exec(t, "UPDATE "+c.products+" SET slug = ? WHERE id IN (3, 4)", "item-3") // as before, row by row
		d.exec(t, "UPDATE "+c.products+" SET slug = ? WHERE id = 4", "item-4")
		if after := d.state(t, c.products); after != before {
			t.Errorf("after RemoveSummary:\n%+v\nwant as before InstallSummary:\n%+v", after, before)
		}
	})
}

// readInfos returns src's pages as text.
func readInfos(t *testing.T, src *sqlsource.Source) string {
	t.Helper()
	infos, err := readPages(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, p := range infos {
		fmt.Fprintf(&b, "%d %s %v %v\n", p.Number, p.Version, p.LastMod, p.Changed)
	}
	return b.String()
}

// TestInstallUpgrade installs over a page summary of the version that
// recounted in triggers (its table, and a trigger of its names): the old
// trigger is dropped, the pages keep the change times of those written,
// and the new triggers record changes.
func TestInstallUpgrade(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		ctx := context.Background()
		c := d.createCatalogue(t, products(ids(1, 25)...))
		pages := c.products + "_sitemap_pages"
		typ := map[string]string{"sqlite": "", "postgres": " TIMESTAMPTZ", "mysql": " DATETIME"}[d.name]
		d.exec(t, "CREATE TABLE "+pages+" (page BIGINT PRIMARY KEY, listed BIGINT NOT NULL, changes BIGINT NOT NULL, changed_at"+typ+")")
		written := t0.AddDate(0, 6, 0)
		d.exec(t, "INSERT INTO "+pages+" VALUES (1, 9, 0, ?), (2, 10, 4, ?), (3, 6, 0, ?)", c.timeArg(t0), c.timeArg(written), c.timeArg(t0))
		switch d.name {
		case "postgres":
			d.exec(t, "CREATE FUNCTION "+pages+"_sync() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE "+pages+" SET changes = changes + 1; RETURN NULL; END $$")
			d.exec(t, "CREATE TRIGGER "+pages+"_sync AFTER INSERT OR UPDATE OR DELETE ON "+c.products+" FOR EACH ROW EXECUTE FUNCTION "+pages+"_sync()")
		case "mysql":
			d.exec(t, "CREATE TRIGGER "+pages+"_ins_lock BEFORE INSERT ON "+c.products+" FOR EACH ROW UPDATE "+pages+" SET changes = changes + 1")
		default:
			d.exec(t, "CREATE TRIGGER "+pages+"_ins AFTER INSERT ON "+c.products+" BEGIN UPDATE "+pages+" SET changes = changes + 1; END")
		}
		cfg := c.config(10)
		cfg.Summary = true
		sum := newSource(t, d.db, cfg)
		installSummary(t, sum)
		st := d.state(t, c.products)
		if strings.Contains(st.triggers, "_sitemap_pages_") {
			t.Errorf("the old trigger is still there: %s", st.triggers)
		}
		infos, err := readPages(ctx, sum)
		if err != nil {
			t.Fatal(err)
		}
		if len(infos) != 3 || !infos[1].Changed.Equal(written) {
			t.Errorf("pages after the upgrade: %+v; want 3, page 2 changed at %v", infos, written)
		}
		for _, p := range []int{0, 2} {
			if len(infos) == 3 && !infos[p].Changed.After(written) {
				t.Errorf("page %d, never written under the old summary: change time %v, want the upgrade's", p+1, infos[p].Changed)
			}
		}
		agg := newSource(t, d.db, c.config(10))
		c.insert(t, products(26)...)
		checkSummary(t, "insert after the upgrade", agg, sum)
		if n := d.changeRows(t, c.products); n != 1 {
			t.Errorf("%d changes recorded for one insert", n)
		}
	})
}
