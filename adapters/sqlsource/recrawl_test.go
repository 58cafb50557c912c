package sqlsource_test

import (
	"bytes"
	"testing"
	"time"
)

// TestRecrawl is the crawl that says the content clock is done: a crawler
// fetches the index and every file and keeps their validators; after the
// TTL, a re-crawl of unchanged data is all 304s, with either validator;
// then one row changes at a time (its updated_at bumped, deleted, or
// appended in the last page's range), and each time exactly the page that
// holds it gets new bytes, a new ETag and a later clock, and the index
// changes with it, listing that clock; every other file answers 304.
func TestRecrawl(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		f := newFreshSite(t, d, nil)
		first := f.crawlAll(t)
		if len(first.pages) != freshPages {
			t.Fatalf("the index lists %d pages, want %d", len(first.pages), freshPages)
		}
		for n, p := range first.pages {
			// No history in this process: each clock is the newest lastmod
			// of its page, product 9, 19, 29 or 35.
			newest := min(n*10-1, 35)
			if want := t0.Add(time.Duration(newest) * time.Minute); !p.lastMod.Equal(want) {
				t.Errorf("page %d: first Last-Modified %v, want its newest lastmod %v", n, p.lastMod, want)
			}
		}

		// Unchanged: 304s for the stale copies, then (once the background
		// refreshes, which find each page's Version unchanged, are done)
		// for the renewed ones, with the same validators as before.
		builds := f.sm.Stats().Builds
		f.clock.expire()
		f.checkNotModified(t, first)
		poll(t, "every page to be revalidated", func() bool { return f.sm.Stats().Revalidated >= freshPages })
		if n := f.sm.Stats().Builds - builds; n > 1 {
			t.Errorf("%d documents built after the TTL with nothing changed; want only the index (each page revalidated by its Version)", n)
		}
		f.checkNotModified(t, first)
		if again := f.crawlAll(t); !sameCrawl(first, again) {
			t.Errorf("an unchanged re-crawl differs from the first")
		}

		before := first
		for _, step := range []struct {
			name   string
			page   int64
			change func()
			check  func(doc []byte) bool // holds for page's new bytes
		}{
			{"updated_at bumped", 3, func() {
				f.exec(t, "UPDATE products SET updated_at = ? WHERE id = 25", f.c.timeArg(t0.Add(100*time.Hour)))
			}, func(doc []byte) bool { return bytes.Contains(doc, []byte("2024-03-05")) }},
			{"deleted", 1, func() {
				f.exec(t, "DELETE FROM products WHERE id = 5")
			}, func(doc []byte) bool { return !hasLoc(doc, productLoc(5)) && hasLoc(doc, productLoc(4)) }},
			{"appended, with no lastmod", 4, func() {
				f.c.insert(t, product{ID: 36, Slug: "item-36", Published: true})
			}, func(doc []byte) bool { return hasLoc(doc, productLoc(36)) }},
		} {
			step.change()
			f.clock.expire()
			after := f.pollChange(t, step.page, before)
			if !step.check(after.pages[step.page].body) {
				t.Errorf("%s: page %d does not show the change:\n%s", step.name, step.page, after.pages[step.page].body)
			}
			f.checkOnlyChanged(t, step.page, before, after)
			if t.Failed() {
				t.Fatalf("after the row was %s", step.name)
			}
			before = after
		}
	})
}

// sameCrawl reports whether two crawls saw the same files, validators and
// lastmods.
func sameCrawl(a, b crawl) bool {
	if a.index.etag != b.index.etag || !a.index.lastMod.Equal(b.index.lastMod) || len(a.pages) != len(b.pages) {
		return false
	}
	for n, p := range a.pages {
		q := b.pages[n]
		if p.etag != q.etag || !p.lastMod.Equal(q.lastMod) || !bytes.Equal(p.body, q.body) || !a.lastMods[n].Equal(b.lastMods[n]) {
			return false
		}
	}
	return true
}
