package sqlsource_test

import (
	"context"
	"testing"
	"time"

	"github.com/freshmap/sitemap/adapters/sqlsource"
)

// TestSignificant installs a summary that counts changes to the slug and
// the filter's columns only: an update of updated_at alone leaves every
// page's Version as it was (so the Sitemap rebuilds nothing and Watch
// tells nothing), and an update of the slug changes its page's.
func TestSignificant(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		c := d.createCatalogue(t, products(ids(1, 35)...))
		cfg := c.config(10)
		cfg.Summary = true
		cfg.Significant = []string{"slug", "published", "noindex"}
		src := newSource(t, d.db, cfg)
		installSummary(t, src)
		versions := func() map[int64]string {
			infos, err := readPages(context.Background(), src)
			if err != nil {
				t.Fatal(err)
			}
			m := map[int64]string{}
			for _, p := range infos {
				m[p.Number] = p.Version
			}
			return m
		}
		before := versions()
		d.exec(t, "UPDATE "+c.products+" SET updated_at = ? WHERE id >= 5 AND id <= 25", c.timeArg(t0.AddDate(0, 1, 0)))
		d.exec(t, "UPDATE "+c.products+" SET slug = slug, noindex = noindex WHERE id = 12")
		after := versions()
		for n, v := range before {
			if after[n] != v {
				t.Errorf("page %d: Version %s → %s after writes to no significant column", n, v, after[n])
			}
		}
		d.exec(t, "UPDATE "+c.products+" SET slug = 'renamed-12' WHERE id = 12")
		d.exec(t, "UPDATE "+c.products+" SET published = ? WHERE id = 25", false)
		last := versions()
		for n, v := range after {
			if changed := last[n] != v; changed != (n == 2 || n == 3) {
				t.Errorf("page %d: Version %s → %s; want a change on pages 2 and 3 only", n, v, last[n])
			}
		}
	})
}

// TestWatchSignificant runs Watch over a summary with significant
// columns: an update of updated_at alone on page 2, then of a slug on
// page 3. Once page 3's change is served (the watcher read the counters
// after both commits, or heard both), page 2 has its old bytes, clock and
// lastmod in the index, and was never told.
func TestWatchSignificant(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		f := newFreshSite(t, d, nil, true)
		// The same summary table, installed again with triggers that
		// count the slug and the filter's columns only.
		cfg := f.c.config(10)
		cfg.Summary, cfg.Significant = true, []string{"slug", "published", "noindex"}
		sig := newSource(t, d.db, cfg)
		if err := sig.RemoveSummary(context.Background()); err != nil {
			t.Fatal(err)
		}
		installSummary(t, sig)
		rec := &recorder{inv: f.sm, tick: f.realTime()}
		before := f.crawlAll(t)
		watch(t, f.watchSource(t, d.db, 100*time.Millisecond, nil), rec)

		f.exec(t, "UPDATE products SET updated_at = ? WHERE id >= 10 AND id <= 19", f.c.timeArg(t0.AddDate(0, 1, 0)))
		f.exec(t, "UPDATE products SET slug = 'renamed-25' WHERE id = 25")
		after := f.pollChange(t, 3, before)
		f.checkOnlyChanged(t, 3, before, after)
		if rec.told(2) {
			t.Error("page 2 was told, but no significant column of it changed")
		}
	})
}

// TestSignificantConfig checks what New refuses in Config.Significant.
func TestSignificantConfig(t *testing.T) {
	d := openDB(t, "sqlite")
	c := d.createCatalogue(t, nil)
	for name, cfg := range map[string]func(*sqlsource.Config){
		"without Summary": func(cfg *sqlsource.Config) { cfg.Significant = []string{"slug"} },
		"an expression":   func(cfg *sqlsource.Config) { cfg.Summary, cfg.Significant = true, []string{"lower(slug)"} },
		"an empty name":   func(cfg *sqlsource.Config) { cfg.Summary, cfg.Significant = true, []string{" "} },
		"a LastMod expression": func(cfg *sqlsource.Config) {
			cfg.Summary, cfg.Significant, cfg.LastMod = true, []string{"slug"}, "COALESCE(updated_at, '2024-01-01')"
		},
	} {
		conf := c.config(10)
		cfg(&conf)
		if _, err := sqlsource.New(d.db, conf); err == nil {
			t.Errorf("New with Significant %s: no error", name)
		}
	}
}
