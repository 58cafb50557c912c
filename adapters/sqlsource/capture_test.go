package sqlsource_test

import (
	"context"
	"database/sql"
	"log/slog"
	"strings"
	"testing"

	"github.com/freshmap/sitemap/adapters/sqlsource"
	"github.com/freshmap/sitemap/internal/testkit"
)

// TestCaptureConfig: New refuses a change capture the database or the
// configuration cannot have, saying what to do.
func TestCaptureConfig(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	base := sqlsource.Config{Table: "products", Key: "id", Loc: "loc", Summary: true}
	for name, tc := range map[string]struct {
		change func(*sqlsource.Config)
		want   string
	}{
		"logical on SQLite":           {func(c *sqlsource.Config) { c.Capture = sqlsource.CaptureLogical }, "use CaptureChangeTable"},
		"unknown":                     {func(c *sqlsource.Config) { c.Capture = 7 }, "unknown Config.Capture"},
		"without a summary":           {func(c *sqlsource.Config) { c.Capture, c.Summary = sqlsource.CaptureAuto, false }, "needs Config.Summary"},
		"a slot for the change table": {func(c *sqlsource.Config) { c.Slot = "mine" }, "set Config.Capture"},
		"a bad slot name": {func(c *sqlsource.Config) {
			c.Capture, c.Dialect, c.Slot = sqlsource.CaptureLogical, sqlsource.Postgres, "My-Slot"
		}, "replication slot name"},
		"a bad publication name": {func(c *sqlsource.Config) {
			c.Capture, c.Dialect, c.Publication = sqlsource.CaptureAuto, sqlsource.Postgres, "pub;"
		}, "publication name"},
	} {
		t.Run(name, func(t *testing.T) {
			cfg := base
			tc.change(&cfg)
			if _, err := sqlsource.New(db, cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("New = %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

// TestCaptureAuto: CaptureAuto is the change table where only it works
// (SQLite, MariaDB), and logical decoding on a PostgreSQL server that
// decodes, for a role that may replicate; the choice is logged and in
// WatchStats, and the installation has triggers only for the change
// table.
func TestCaptureAuto(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		want := sqlsource.CaptureChangeTable
		if d.name == "postgres" {
			sqlsource.LogicalDSN(t)
			want = sqlsource.CaptureLogical
		}
		c := d.createCatalogue(t, products(ids(1, 20)...))
		logs := &testkit.SyncBuffer{}
		cfg := c.config(10)
		cfg.Summary, cfg.Capture, cfg.Logger = true, sqlsource.CaptureAuto, slog.New(slog.NewTextHandler(logs, nil))
		src := newSource(t, d.db, cfg)
		installSummary(t, src)
		st, err := src.WatchStats(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if st.Capture != want {
			t.Errorf("WatchStats().Capture = %v, want %v", st.Capture, want)
		}
		if want == sqlsource.CaptureLogical && !strings.Contains(logs.String(), `capture="logical decoding"`) {
			t.Errorf("the choice is not logged:\n%s", logs)
		}
		// A write reaches the change table only when it is the capture.
		c.insert(t, products(25)...)
		var n int
		if err := d.db.QueryRow("SELECT COUNT(*) FROM " + c.products + "_sitemap_changes").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if got := n > 0; got != (want == sqlsource.CaptureChangeTable) {
			t.Errorf("%d rows in the change table after an insert with %v", n, want)
		}
		if st, err = src.WatchStats(context.Background()); err != nil || st.Pending != int64(n) || (n > 0) != (st.Lag > 0) {
			t.Errorf("WatchStats = %+v, %v; want %d changes pending, and a lag with them", st, err, n)
		}
	})
}

// TestCaptureSwitch: InstallSummary brings an installation from the
// change table to logical decoding and back: the triggers dropped (a
// write then adds no change-table row) or made again, what the change
// table held counted into the pages and the table emptied.
func TestCaptureSwitch(t *testing.T) {
	sqlsource.LogicalDSN(t)
	d := openDB(t, "postgres")
	c := d.createCatalogue(t, products(ids(1, 20)...))
	cfg := c.config(10)
	cfg.Summary = true
	table := newSource(t, d.db, cfg)
	installSummary(t, table)
	cfg.Capture = sqlsource.CaptureLogical
	logical := newSource(t, d.db, cfg)
	changes := func() (n int) {
		if err := d.db.QueryRow("SELECT COUNT(*) FROM " + c.products + "_sitemap_changes").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	ctx := context.Background()
	c.insert(t, products(25)...)
	if n := changes(); n != 1 {
		t.Fatalf("%d changes recorded by the change table's triggers, want 1", n)
	}
	if err := logical.InstallSummary(ctx); err != nil {
		t.Fatal(err)
	}
	c.insert(t, products(26)...)
	if n := changes(); n != 0 {
		t.Errorf("%d changes in the change table after installing for logical decoding and a write, want 0", n)
	}
	if infos, err := readPages(ctx, logical); err != nil || len(infos) != 3 || infos[2].Number != 3 {
		t.Errorf("Pages after the switch = %+v, %v; want pages 1 to 3 (row 25, recorded by the change table, counted)", infos, err)
	}
	installSummary(t, table)
	c.insert(t, products(27)...)
	if n := changes(); n != 1 {
		t.Errorf("%d changes recorded after installing for the change table again, want 1", n)
	}
}
