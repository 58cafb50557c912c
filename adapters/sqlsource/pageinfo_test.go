package sqlsource_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/sqlsource"
)

var _ sitemap.PageReporter = (*sqlsource.Source)(nil)

// TestPageInfo: Source.PageInfo reports a page as Pages does, from the
// summary; a page with a change waiting in the change table shows
// another Version and no Changed (not settled: the change time Watch
// gives it is not yet fixed); once applied, Changed is back, a second
// past the one before at least. Without the summary it is unsupported.
// The time of one call is logged.
func TestPageInfo(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		ctx := context.Background()
		c := d.createCatalogue(t, products(ids(1, 35)...))
		cfg := c.config(10)
		if _, err := newSource(t, d.db, cfg).PageInfo(ctx, 1); !errors.Is(err, errors.ErrUnsupported) {
			t.Errorf("PageInfo without the summary: %v, want errors.ErrUnsupported", err)
		}
		cfg.Summary, cfg.WatchInterval = true, 50*time.Millisecond
		src := newSource(t, d.db, cfg)
		installSummary(t, src)
		same := func(step string) map[int64]sitemap.PageInfo {
			t.Helper()
			pages, err := readPages(ctx, src)
			if err != nil {
				t.Fatal(err)
			}
			byNumber := map[int64]sitemap.PageInfo{}
			for _, p := range pages {
				byNumber[p.Number] = p
			}
			for n := int64(1); n <= freshPages+1; n++ {
				got, err := src.PageInfo(ctx, n)
				if err != nil {
					t.Fatalf("%s: PageInfo(%d): %v", step, n, err)
				}
				if want := byNumber[n]; got != want {
					t.Errorf("%s: PageInfo(%d) = %+v, want %+v as Pages reports it", step, n, got, want)
				}
			}
			return byNumber
		}
		before := same("installed")[2]
		if before.Changed.IsZero() {
			t.Fatal("page 2 has no change time once installed")
		}

		d.exec(t, "UPDATE "+c.products+" SET slug = 'renamed-12' WHERE id = 12")
		waiting, err := src.PageInfo(ctx, 2)
		if err != nil {
			t.Fatal(err)
		}
		if waiting.Version == before.Version || !waiting.Changed.IsZero() {
			t.Errorf("a change waiting: PageInfo(2) = %+v; want another Version than %q and no Changed", waiting, before.Version)
		}
		pages, err := readPages(ctx, src)
		if err != nil {
			t.Fatal(err)
		}
		if pages[1].Version != waiting.Version {
			t.Errorf("a change waiting: Version %q, Pages reports %q", waiting.Version, pages[1].Version)
		}

		watch(t, src, &recorder{})
		poll(t, "the change applied", func() bool {
			st, err := src.WatchStats(ctx)
			return err == nil && st.Pending == 0
		})
		after := same("applied")[2]
		if after.Version == before.Version || after.Changed.Before(before.Changed.Add(time.Second)) {
			t.Errorf("applied: PageInfo(2) = %+v; want another Version than %q and a change time a second past %v at least",
				after, before.Version, before.Changed)
		}

		const calls = 200
		start := time.Now()
		for range calls {
			if _, err := src.PageInfo(ctx, 2); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("figures: PageInfo %v a call (%d calls, %s)", time.Since(start)/calls, calls, d.name)
	})
}
