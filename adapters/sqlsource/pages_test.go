package sqlsource_test

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/sqlsource"
)

// checkSnapshot compares what a Source served with the model.
func checkSnapshot(t *testing.T, got snapshot, want map[int64][]sitemap.URL, wantLastMod map[int64]time.Time) {
	t.Helper()
	var gotNums, wantNums []int64
	for _, p := range got.infos {
		gotNums = append(gotNums, p.Number)
	}
	for n := range want {
		wantNums = append(wantNums, n)
	}
	slices.Sort(wantNums)
	if !slices.Equal(gotNums, wantNums) {
		t.Fatalf("Pages = %v, want %v", gotNums, wantNums)
	}
	for _, p := range got.infos {
		if !p.LastMod.Equal(wantLastMod[p.Number]) {
			t.Errorf("page %d: LastMod = %v, want %v (the newest row's)", p.Number, p.LastMod, wantLastMod[p.Number])
		}
		if p.Version == "" {
			t.Errorf("page %d: no Version", p.Number)
		}
		if !reflect.DeepEqual(got.urls[p.Number], want[p.Number]) {
			t.Errorf("page %d:\n got %v\nwant %v", p.Number, got.urls[p.Number], want[p.Number])
		}
	}
}

// checkEmpty checks that the pages yield nothing and no error.
func checkEmpty(t *testing.T, src sitemap.Source, pages ...int64) {
	t.Helper()
	for _, n := range pages {
		urls, err := readPage(context.Background(), src, n)
		if err != nil || len(urls) != 0 {
			t.Errorf("URLs(%d) = %d URLs, %v; want none", n, len(urls), err)
		}
	}
}

func TestPageBoundaries(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		// Keys at both ends of pages, and at exactly the page size.
		ps := products(0, 1, 9, 10, 11, 19, 20, 29, 55, 1000, 1001)
		c := d.createCatalogue(t, ps)
		for _, start := range []int64{0, 1, -5, 11} {
			t.Run(fmt.Sprintf("KeyStart=%d", start), func(t *testing.T) {
				cfg := c.config(10)
				cfg.KeyStart = start
				src := newSource(t, d.db, cfg)
				want, wantLM := model(ps, 10, start, false)
				checkSnapshot(t, takeSnapshot(t, src), want, wantLM)
				for _, n := range []int64{0, -1, math.MinInt64, 4, 5, 98, 100, 101, 102, 200, math.MaxInt64} {
					if _, ok := want[n]; !ok {
						checkEmpty(t, src, n)
					}
				}
			})
		}
		// The exact layout for KeyStart 0, as a reader would work it out.
		src := newSource(t, d.db, c.config(10))
		for n, keys := range map[int64][]int64{1: {0, 1, 9}, 2: {10, 11, 19}, 3: {20, 29}, 6: {55}, 101: {1000, 1001}} {
			urls, err := readPage(context.Background(), src, n)
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for _, u := range urls {
				var k int64
				fmt.Sscanf(strings.TrimPrefix(u.Loc, base+"item-"), "%d", &k)
				got = append(got, k)
			}
			if !slices.Equal(got, keys) {
				t.Errorf("page %d holds keys %v, want %v", n, got, keys)
			}
		}
	})
}

func TestLargestKeys(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		ps := products(math.MaxInt64, math.MaxInt64-1, math.MaxInt64-10)
		c := d.createCatalogue(t, ps)
		cfg := c.config(10)
		cfg.KeyStart = math.MaxInt64 - 14 // pages: MaxInt64-14..-5, MaxInt64-4..MaxInt64
		src := newSource(t, d.db, cfg)
		want, wantLM := model(ps, 10, cfg.KeyStart, false)
		checkSnapshot(t, takeSnapshot(t, src), want, wantLM)
		checkEmpty(t, src, 3, math.MaxInt64)
	})
}

// TestInt32Key reads a 32-bit key whose last page ends past its range.
func TestInt32Key(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		tab := d.createTable(t, "int32",
			col("id", "INTEGER PRIMARY KEY", "INTEGER PRIMARY KEY", "INT PRIMARY KEY"),
			col("url", "TEXT", "TEXT", "VARCHAR(255)"))
		d.exec(t, "INSERT INTO "+tab+" VALUES (1, 'https://e.com/1'), (2147483647, 'https://e.com/max')")
		src := newSource(t, d.db, sqlsource.Config{Table: tab, Key: "id", Loc: "url", Dialect: d.dialect, Loaders: []sqlsource.Loader{
			sqlsource.Alternates("SELECT id, 'en', url FROM " + tab + " WHERE id BETWEEN ? AND ?"),
		}})
		infos, err := readPages(context.Background(), src)
		if err != nil || len(infos) != 2 || infos[1].Number != 2147483647/50000+1 {
			t.Fatalf("Pages = %+v, %v", infos, err)
		}
		urls, err := readPage(context.Background(), src, infos[1].Number)
		if err != nil || len(urls) != 1 || urls[0].Loc != "https://e.com/max" || len(urls[0].Alternates) != 1 {
			t.Errorf("last page: %v, %v", urls, err)
		}
		checkEmpty(t, src, infos[1].Number+1)
	})
}

// changedPages returns the numbers of the pages that differ between a and b
// in their PageInfo or their URLs, or that only one of them has.
func changedPages(a, b snapshot) []int64 {
	info := func(s snapshot) map[int64]sitemap.PageInfo {
		m := map[int64]sitemap.PageInfo{}
		for _, p := range s.infos {
			m[p.Number] = p
		}
		return m
	}
	ai, bi := info(a), info(b)
	var changed []int64
	for n, p := range ai {
		q, ok := bi[n]
		if !ok || p != q || !reflect.DeepEqual(a.urls[n], b.urls[n]) {
			changed = append(changed, n)
		}
	}
	for n := range bi {
		if _, ok := ai[n]; !ok {
			changed = append(changed, n)
		}
	}
	slices.Sort(changed)
	return changed
}

func TestStablePages(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		ps := products(ids(1, 45)...) // pages 1 (keys 1-9) to 5 (keys 40-45)
		c := d.createCatalogue(t, ps)
		src := newSource(t, d.db, c.config(10))
		before := takeSnapshot(t, src)
		if len(before.infos) != 5 {
			t.Fatalf("%d pages, want 5", len(before.infos))
		}
		later := t0.Add(1000 * time.Hour)
		for _, step := range []struct {
			name        string
			change      func()
			wantChanged []int64
			wantVersion bool // the changed page's Version must change too
		}{
			{"insert of an older row", func() {
				c.insert(t, product{ID: 47, Slug: "new-47", Updated: t0, Published: true}) // older than the page's newest
			}, []int64{5}, true},
			{"insert on a new page", func() { c.insert(t, products(100)...) }, []int64{11}, true},
			{"update with lastmod", func() {
				d.exec(t, "UPDATE "+c.products+" SET slug = ?, updated_at = ? WHERE id = ?", "renamed-23", c.timeArg(later), 23)
			}, []int64{3}, true},
			{"update of lastmod only", func() {
				d.exec(t, "UPDATE "+c.products+" SET updated_at = ? WHERE id = ?", c.timeArg(later.Add(time.Hour)), 31)
			}, []int64{4}, true},
			{"update of lastmod to an older time", func() { // not seen by Version, as documented
				d.exec(t, "UPDATE "+c.products+" SET updated_at = ? WHERE id = ?", c.timeArg(t0), 12)
			}, []int64{2}, false},
			{"delete", func() { d.exec(t, "DELETE FROM "+c.products+" WHERE id = ?", 12) }, []int64{2}, true},
			{"unpublish", func() { d.exec(t, "UPDATE "+c.products+" SET published = ? WHERE id = ?", false, 41) }, []int64{5}, true},
			{"empty a page", func() { d.exec(t, "DELETE FROM "+c.products+" WHERE id >= ? AND id <= ?", 20, 29) }, []int64{3}, true},
		} {
			step.change()
			after := takeSnapshot(t, src)
			if got := changedPages(before, after); !slices.Equal(got, step.wantChanged) {
				t.Errorf("%s: pages %v changed, want only %v", step.name, got, step.wantChanged)
			}
			for _, p := range after.infos {
				for _, q := range before.infos {
					if p.Number == q.Number && slices.Contains(step.wantChanged, p.Number) && step.wantVersion && p.Version == q.Version {
						t.Errorf("%s: page %d changed but kept Version %q", step.name, p.Number, p.Version)
					}
				}
			}
			before = after
		}
		// Page 3 is gone; the pages after it kept their numbers.
		var nums []int64
		for _, p := range before.infos {
			nums = append(nums, p.Number)
		}
		if want := []int64{1, 2, 4, 5, 11}; !slices.Equal(nums, want) {
			t.Errorf("pages %v, want %v", nums, want)
		}
		checkEmpty(t, src, 3)
	})
}

func TestFilter(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		ps := products(ids(1, 30)...)
		for i := range ps {
			ps[i].Published = ps[i].ID%3 != 0
			ps[i].Noindex = ps[i].ID%5 == 0
			if ps[i].ID >= 10 && ps[i].ID < 20 { // page 2 has no listed row
				ps[i].Published = false
			}
		}
		c := d.createCatalogue(t, ps)
		src := newSource(t, d.db, c.config(10))
		want, wantLM := model(ps, 10, 0, false)
		if _, ok := want[2]; ok {
			t.Fatal("model lists page 2")
		}
		checkSnapshot(t, takeSnapshot(t, src), want, wantLM)
		checkEmpty(t, src, 2)

		// Without a filter every row is listed.
		cfg := c.config(10)
		cfg.Filter = ""
		all := slices.Clone(ps)
		for i := range all {
			all[i].Published, all[i].Noindex = true, false
		}
		want, wantLM = model(all, 10, 0, false)
		checkSnapshot(t, takeSnapshot(t, newSource(t, d.db, cfg)), want, wantLM)
	})
}

func TestLastModPerPage(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		ps := products(ids(1, 25)...)
		for i := range ps {
			switch id := ps[i].ID; {
			case id == 5: // the newest of page 1 sits in the middle
				ps[i].Updated = t0.Add(100 * 24 * time.Hour)
			case id%2 == 0 && id < 10:
				ps[i].Updated = time.Time{} // NULL among dates
			case id >= 10 && id < 20:
				ps[i].Updated = time.Time{} // page 2: no date at all
			}
		}
		c := d.createCatalogue(t, ps)
		src := newSource(t, d.db, c.config(10))
		want, wantLM := model(ps, 10, 0, false)
		got := takeSnapshot(t, src)
		checkSnapshot(t, got, want, wantLM)
		if lm := got.infos[0].LastMod; !lm.Equal(t0.Add(100 * 24 * time.Hour)) {
			t.Errorf("page 1 LastMod = %v", lm)
		}
		if lm := got.infos[1].LastMod; !lm.IsZero() {
			t.Errorf("page 2 (all NULL) LastMod = %v, want zero", lm)
		}
		for _, p := range got.infos {
			if p.LastMod.Location() != time.UTC {
				t.Errorf("page %d: LastMod in %v, want UTC", p.Number, p.LastMod.Location())
			}
		}

		// Without a lastmod column there is no date, but still a Version.
		cfg := c.config(10)
		cfg.LastMod = ""
		for p, err := range newSource(t, d.db, cfg).Pages(context.Background()) {
			if err != nil || !p.LastMod.IsZero() || p.Version == "" {
				t.Errorf("without LastMod: %+v, %v", p, err)
			}
		}
	})
}
