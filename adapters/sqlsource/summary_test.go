package sqlsource_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/sqlsource"
)

// installSummary installs src's page summary, removed when t ends (before
// the table is dropped).
func installSummary(t testing.TB, src *sqlsource.Source) {
	t.Helper()
	if err := src.InstallSummary(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := src.RemoveSummary(context.Background()); err != nil {
			t.Errorf("RemoveSummary: %v", err)
		}
	})
}

// checkSummary compares the pages of the summary Source sum with those of
// the aggregate Source agg: the same Numbers. It returns the summary's
// pages.
func checkSummary(t *testing.T, step string, agg, sum *sqlsource.Source) map[int64]sitemap.PageInfo {
	t.Helper()
	ctx := context.Background()
	want, err := readPages(ctx, agg)
	if err != nil {
		t.Fatalf("%s: aggregate Pages: %v", step, err)
	}
	got, err := readPages(ctx, sum)
	if err != nil {
		t.Fatalf("%s: summary Pages: %v", step, err)
	}
	if len(got) != len(want) {
		t.Fatalf("%s: summary lists %d pages, aggregate %d:\n%v\n%v", step, len(got), len(want), got, want)
	}
	m := map[int64]sitemap.PageInfo{}
	for i, g := range got {
		if w := want[i]; g.Number != w.Number || g.Version == "" {
			t.Errorf("%s: page %d: summary %+v, aggregate %+v", step, i, g, w)
		}
		m[g.Number] = g
	}
	return m
}

// TestSummary installs a page summary over a catalogue with gaps and
// unlisted rows, then writes to it: the summary lists the pages the
// aggregate lists, with the same counts, and the Version of every page
// written to changes.
func TestSummary(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		ps := products(append(ids(1, 12), 15, 27, 28, 29, 41, 55)...)
		ps[3].Published = false // 4
		ps[5].Noindex = true    // 6
		ps[13].Published = false
		c := d.createCatalogue(t, ps)
		agg := newSource(t, d.db, c.config(10))
		cfg := c.config(10)
		cfg.Summary = true
		sum := newSource(t, d.db, cfg)
		installSummary(t, sum)

		if err := sum.Check(context.Background()); err != nil {
			t.Errorf("Check: %v", err)
		}
		pages := checkSummary(t, "installed", agg, sum)
		want, lastMods := model(ps, 10, 0, false)
		for n := range want {
			if got := pages[n].LastMod; !got.Equal(lastMods[n]) {
				t.Errorf("installed: page %d LastMod %v, want the newest lastmod %v", n, got, lastMods[n])
			}
		}
		before := time.Now().Add(-time.Minute)

		for _, step := range []struct {
			name, query string
			args        []any
			pages       []int64 // whose Version must change
		}{
			{"insert on a new page", "INSERT INTO products (id, slug, updated_at, published, noindex) VALUES (?, ?, ?, ?, ?)",
				[]any{33, "item-33", c.timeArg(t0), true, false}, []int64{4}},
			{"insert unlisted", "INSERT INTO products (id, slug, updated_at, published, noindex) VALUES (?, ?, ?, ?, ?)",
				[]any{71, "item-71", c.timeArg(t0), false, false}, nil},
			{"update out of the filter", "UPDATE products SET published = ? WHERE id = ?", []any{false, 2}, []int64{1}},
			{"update into the filter", "UPDATE products SET published = ? WHERE id = ?", []any{true, 71}, []int64{8}},
			{"update across pages", "UPDATE products SET id = ? WHERE id = ?", []any{44, 15}, []int64{2, 5}},
			{"update in a page", "UPDATE products SET slug = ? WHERE id = ?", []any{"x", 12}, []int64{2}},
			{"delete", "DELETE FROM products WHERE id = ?", []any{27}, []int64{3}},
			{"delete a page", "DELETE FROM products WHERE id >= ? AND id <= ?", []any{28, 29}, nil}, // page 3 goes
			{"key below KeyStart", "INSERT INTO products (id, slug, updated_at, published, noindex) VALUES (?, ?, ?, ?, ?)",
				[]any{-5, "item-minus-5", c.timeArg(t0), true, false}, nil},
		} {
			d.exec(t, strings.ReplaceAll(step.query, "products", c.products), step.args...)
			after := checkSummary(t, step.name, agg, sum)
			for _, n := range step.pages {
				if after[n].Version == pages[n].Version {
					t.Errorf("%s: page %d Version %q did not change", step.name, n, after[n].Version)
				}
				if !after[n].LastMod.After(before) {
					t.Errorf("%s: page %d LastMod %v, want the time of the write", step.name, n, after[n].LastMod)
				}
			}
			if _, ok := after[3]; step.name == "delete a page" && ok {
				t.Errorf("%s: page 3 is still listed", step.name)
			}
			pages = after
		}

		// Removed, the summary Source fails and the aggregate is untouched.
		if err := sum.RemoveSummary(context.Background()); err != nil {
			t.Fatal(err)
		}
		if _, err := readPages(context.Background(), sum); err == nil || !strings.HasPrefix(err.Error(), "sqlsource: pages: summary") {
			t.Errorf("Pages after RemoveSummary: %v, want an error", err)
		}
		if err := sum.Check(context.Background()); err == nil || !strings.HasPrefix(err.Error(), "sqlsource: check") {
			t.Errorf("Check after RemoveSummary: %v, want an error", err)
		}
		d.exec(t, "DELETE FROM "+c.products+" WHERE id = 1") // no trigger left to fail
		if _, err := readPages(context.Background(), agg); err != nil {
			t.Errorf("aggregate Pages after RemoveSummary: %v", err)
		}
	})
}

// TestSummaryErrors: installing twice is no error and leaves the first
// summary working; a summary needs a plain table and key.
func TestSummaryErrors(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		c := d.createCatalogue(t, products(1, 2, 3))
		cfg := c.config(10)
		cfg.Summary = true
		sum := newSource(t, d.db, cfg)
		installSummary(t, sum)
		if err := sum.InstallSummary(context.Background()); err != nil {
			t.Errorf("second InstallSummary: %v", err)
		}
		agg := newSource(t, d.db, c.config(10))
		d.exec(t, "DELETE FROM "+c.products+" WHERE id = 2")
		checkSummary(t, "after a second install", agg, sum)
	})
	db := openDB(t, "sqlite").db
	for _, cfg := range []sqlsource.Config{
		{Table: "SELECT * FROM products", Key: "id", Loc: "url", Summary: true},
		{Table: "products p", Key: "id", Loc: "url", Summary: true},
		{Table: "products", Key: "p.id", Loc: "url", Summary: true},
	} {
		if src, err := sqlsource.New(db, cfg); err == nil || src != nil || !strings.Contains(err.Error(), "plain table name") {
			t.Errorf("New(%q, %q): %v, want an error", cfg.Table, cfg.Key, err)
		}
		cfg.Summary = false
		src := newSource(t, db, cfg)
		if err := src.InstallSummary(context.Background()); err == nil || !strings.Contains(err.Error(), "plain table name") {
			t.Errorf("InstallSummary(%q, %q): %v, want an error", cfg.Table, cfg.Key, err)
		}
	}
}

// TestSummaryConcurrentWriters inserts and deletes rows of one page from
// several connections at once: the summary must end with the aggregate's
// count.
func TestSummaryConcurrentWriters(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		c := d.createCatalogue(t, products(ids(1, 20)...))
		cfg := c.config(1000)
		cfg.KeyStart = 1
		cfg.Summary = true
		sum := newSource(t, d.db, cfg)
		installSummary(t, sum)
		ins := d.dialect.Rebind("INSERT INTO " + c.products + " (id, slug, updated_at, published, noindex) VALUES (?, ?, ?, ?, ?)")
		del := d.dialect.Rebind("DELETE FROM " + c.products + " WHERE id = ?")
		const writers, each = 4, 40
		errs := make(chan error, writers)
		for w := range writers {
			go func() {
				var err error
				for i := range each {
					id := int64(100 + w*each + i)
					if _, err = d.db.Exec(ins, id, "x", c.timeArg(t0), i%3 != 0, false); err != nil {
						break
					}
					if i%4 == 0 {
						if _, err = d.db.Exec(del, id); err != nil {
							break
						}
					}
				}
				errs <- err
			}()
		}
		for range writers {
			if err := <-errs; err != nil {
				t.Errorf("write: %v", err)
			}
		}
		agg := newSource(t, d.db, func() sqlsource.Config { cfg.Summary = false; return cfg }())
		checkSummary(t, "after concurrent writes", agg, sum)
	})
}
