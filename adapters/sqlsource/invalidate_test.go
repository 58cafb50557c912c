package sqlsource_test

import (
	"bytes"
	"context"
	"iter"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/sqlsource"
)

// gate holds a read of the Source until it is opened.
type gate struct {
	entered chan struct{} // gets a value when a read waits at the gate
	release chan struct{} // closed by open
	once    sync.Once
}

func newGate() *gate { return &gate{entered: make(chan struct{}, 1), release: make(chan struct{})} }

// wait is called by the held read.
func (g *gate) wait(ctx context.Context) error {
	select {
	case g.entered <- struct{}{}:
	default:
	}
	select {
	case <-g.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// waitEntered waits until a read waits at the gate.
func (g *gate) waitEntered(t *testing.T, what string) {
	t.Helper()
	select {
	case <-g.entered:
	case <-time.After(pollFor):
		t.Fatalf("no %s reached the gate within %v", what, pollFor)
	}
}

func (g *gate) open() { g.once.Do(func() { close(g.release) }) }

// gatedSource is the catalogue's Source with gates: holdPage holds every
// read of a page's URLs before the first URL, and holdPages holds the
// next call of Pages after its last page (so the index build that made it
// has read every page's clock, and has not finished).
type gatedSource struct {
	*sqlsource.Source // PageSize as it is
	mu                sync.Mutex
	page              int64 // the page held; 0 for none
	urls, pages       *gate
}

func (g *gatedSource) holdPage(n int64) *gate {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.page, g.urls = n, newGate()
	return g.urls
}

func (g *gatedSource) holdPages() *gate {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pages = newGate()
	return g.pages
}

// openAll opens every gate, for the test's end.
func (g *gatedSource) openAll() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, gt := range []*gate{g.urls, g.pages} {
		if gt != nil {
			gt.open()
		}
	}
}

func (g *gatedSource) URLs(ctx context.Context, n int64) iter.Seq2[sitemap.URL, error] {
	return g.held(ctx, n, g.Source.URLs(ctx, n))
}

// SegmentURLs holds a read of one of page n's segments as URLs holds the
// page's: the Source is a SegmentSource, whose pages the Sitemap reads
// segment by segment.
func (g *gatedSource) SegmentURLs(ctx context.Context, n int64, seg int) iter.Seq2[sitemap.URL, error] {
	return g.held(ctx, n, g.Source.SegmentURLs(ctx, n, seg))
}

// held is urls, of page n, waiting first at the gate if n is held.
func (g *gatedSource) held(ctx context.Context, n int64, urls iter.Seq2[sitemap.URL, error]) iter.Seq2[sitemap.URL, error] {
	return func(yield func(sitemap.URL, error) bool) {
		g.mu.Lock()
		gt := g.urls
		if g.page != n {
			gt = nil
		}
		g.mu.Unlock()
		if gt != nil {
			if err := gt.wait(ctx); err != nil {
				yield(sitemap.URL{}, err)
				return
			}
		}
		for u, err := range urls {
			if !yield(u, err) {
				return
			}
		}
	}
}

func (g *gatedSource) Pages(ctx context.Context) iter.Seq2[sitemap.PageInfo, error] {
	pages := g.Source.Pages(ctx)
	return func(yield func(sitemap.PageInfo, error) bool) {
		g.mu.Lock()
		gt := g.pages
		g.pages = nil // only the first call after holdPages waits
		g.mu.Unlock()
		for info, err := range pages {
			if !yield(info, err) {
				return
			}
		}
		if gt != nil {
			if err := gt.wait(ctx); err != nil {
				yield(sitemap.PageInfo{}, err)
			}
		}
	}
}

// newGatedSite is newFreshSite over a gatedSource, whose gates are all
// opened when t ends, before the Sitemap is closed.
func newGatedSite(t *testing.T, d *testDB) (*freshSite, *gatedSource) {
	t.Helper()
	var g *gatedSource
	f := newFreshSite(t, d, func(src *sqlsource.Source) sitemap.Source {
		g = &gatedSource{Source: src}
		return g
	})
	t.Cleanup(g.openAll)
	return f, g
}

// getHit fetches path and reports whether the cache answered with a fresh
// copy (no build, no background refresh).
func (f *freshSite) getHit(t *testing.T, path string) (reply, bool) {
	t.Helper()
	hits := f.sm.Stats().CacheHits
	r := f.get(t, path)
	return r, f.sm.Stats().CacheHits > hits
}

// TestInvalidate changes a column the loc is made of, which no Version
// sees (count, key sum and lastmod stay the same), and says so with
// Invalidate and PageOf, before any TTL passes: while the page is rebuilt
// the old copy is served with its old validators and the index keeps its
// old lastmod; once the rebuild ends every request gets the new bytes
// under a later Last-Modified, the index lists that clock, and no other
// page changes.
func TestInvalidate(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		f, g := newGatedSite(t, d)
		before := f.crawlAll(t)
		old := before.pages[2]

		f.exec(t, "UPDATE products SET slug = 'renamed-12' WHERE id = 12")
		held := g.holdPage(2)
		if err := f.sm.Invalidate("products", f.src.PageOf(12)); err != nil {
			t.Fatalf("Invalidate: %v", err)
		}
		held.waitEntered(t, "rebuild of page 2")

		// The rebuild is held: the old copy is served, as it was.
		for range 3 {
			if r := f.get(t, pagePath(2)); r.etag != old.etag || !r.lastMod.Equal(old.lastMod) || !bytes.Equal(r.body, old.body) {
				t.Errorf("during the rebuild: ETag %s, Last-Modified %v; want the old copy's %s, %v", r.etag, r.lastMod, old.etag, old.lastMod)
			}
		}
		if r := f.ifModifiedSince(t, pagePath(2), old); r.status != http.StatusNotModified {
			t.Errorf("during the rebuild, If-Modified-Since the Last-Modified of the bytes served: %d, want 304", r.status)
		}
		if r := f.ifNoneMatch(t, pagePath(2), old); r.status != http.StatusNotModified {
			t.Errorf("during the rebuild, If-None-Match the ETag of the bytes served: %d, want 304", r.status)
		}
		// The index was outdated too: this request gets the stale one and
		// starts its refresh, which lists page 2 as it is served. Wait
		// for that refresh to be cached (a request that is a cache hit),
		// so that it does not race with the page's rebuild.
		var index reply
		poll(t, "the index's refresh to be cached", func() (hit bool) {
			index, hit = f.getHit(t, indexPath)
			return hit
		})
		if lms := indexLastMods(t, index.body); !lms[2].Equal(old.lastMod) {
			t.Errorf("during the rebuild the index lists page 2 at %v, but its bytes are still those of %v", lms[2], old.lastMod)
		}

		held.open()
		r := f.pollPage(t, 2, old)
		if !hasLoc(r.body, base+"renamed-12") || hasLoc(r.body, productLoc(12)) {
			t.Errorf("the rebuilt page 2 does not show the new slug:\n%s", r.body)
		}
		if !r.lastMod.After(old.lastMod) {
			t.Errorf("Last-Modified %v after the rebuild; want later than the old %v", r.lastMod, old.lastMod)
		}
		for range 5 { // every request after the rebuild: the new copy
			if r2 := f.get(t, pagePath(2)); r2.etag != r.etag || !r2.lastMod.Equal(r.lastMod) {
				t.Errorf("after the rebuild: ETag %s, Last-Modified %v; want %s, %v", r2.etag, r2.lastMod, r.etag, r.lastMod)
			}
		}
		index, lastMods := f.pollIndex(t, 2, before)
		after := crawl{index: index, lastMods: lastMods, pages: map[int64]reply{}}
		for n := range before.pages {
			after.pages[n] = f.get(t, pagePath(n))
		}
		f.checkOnlyChanged(t, 2, before, after)
	})
}

// TestInvalidateNames checks Invalidate's answers to what it is given: an
// unknown section is an error; a key below KeyStart is on page 0, which is
// ignored, as is a page the section does not have, and nothing changes.
func TestInvalidateNames(t *testing.T) {
	f := newFreshSite(t, openDB(t, "sqlite"), nil)
	before := f.crawlAll(t)
	for _, section := range []string{"nope", "Products", "sitemap-products"} {
		if err := f.sm.Invalidate(section, f.src.PageOf(12)); err == nil {
			t.Errorf("Invalidate(%q) = nil; want an error for an unknown section", section)
		}
	}
	if n := f.src.PageOf(-1); n != 0 {
		t.Fatalf("PageOf(-1) = %d, want 0", n)
	}
	if err := f.sm.Invalidate("products", f.src.PageOf(-1), 99); err != nil {
		t.Errorf("Invalidate of page 0 and page 99: %v", err)
	}
	if after := f.crawlAll(t); !sameCrawl(before, after) {
		t.Errorf("Invalidate of no page changed what is served")
	}
}

// TestInvalidateUncachedPage invalidates a page that the index lists but
// no request has built yet, in a site whose clock file holds every clock
// it gave: the page was never served, so no crawler holds a copy of it
// under any Last-Modified, and its first build, which shows the change,
// keeps the clock the index lists (Invalidate moves no clock: only
// changed bytes do). A crawler that held an earlier process's copy is
// the restart tests' case (restart_test.go).
func TestInvalidateUncachedPage(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		f := newFreshSite(t, d, nil)
		index := f.get(t, indexPath) // lists page 3 at product 29's lastmod; no page is built
		before := crawl{index: index, lastMods: indexLastMods(t, index.body)}
		f.exec(t, "UPDATE products SET slug = 'renamed-25' WHERE id = 25")
		if err := f.sm.Invalidate("products", f.src.PageOf(25)); err != nil {
			t.Fatal(err)
		}
		r := f.get(t, pagePath(3))
		if !hasLoc(r.body, base+"renamed-25") {
			t.Errorf("page 3 does not show the new slug:\n%s", r.body)
		}
		if !r.lastMod.Equal(before.lastMods[3]) {
			t.Errorf("page 3: Last-Modified %v; want the listed %v", r.lastMod, before.lastMods[3])
		}
		if lastMods := indexLastMods(t, f.get(t, indexPath).body); !lastMods[3].Equal(r.lastMod) {
			t.Errorf("the index lists page 3 at %v, but its Last-Modified is %v", lastMods[3], r.lastMod)
		}
	})
}

// TestIndexRefreshDoesNotOverwriteNewer holds an index refresh that read
// page 2's clock before page 2's rebuild moved it, lets the index built
// after the move be cached, then lets the held refresh finish: the older
// index must not replace the newer one. It does: keep (invalidate.go)
// deletes the index's mark when the newer index is cached, so the older
// build, finishing later, finds no mark and is cached over it, fresh for
// a whole TTL, listing page 2 at the clock of bytes no longer served.
func TestIndexRefreshDoesNotOverwriteNewer(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		f, g := newGatedSite(t, d)
		before := f.crawlAll(t)
		f.exec(t, "UPDATE products SET slug = 'renamed-12' WHERE id = 12")
		page := g.holdPage(2)
		if err := f.sm.Invalidate("products", f.src.PageOf(12)); err != nil {
			t.Fatal(err)
		}
		page.waitEntered(t, "rebuild of page 2")
		slow := g.holdPages()
		f.get(t, indexPath) // the stale index; its refresh reads every clock, then waits
		slow.waitEntered(t, "index refresh")
		page.open()                          // page 2's clock moves; Invalidate's own index build lists it
		_, want := f.pollIndex(t, 2, before) // that newer index is cached
		builds := f.sm.Stats().Builds
		slow.open()
		// The held refresh counts its build just before it caches it.
		poll(t, "the held index refresh to end", func() bool { return f.sm.Stats().Builds > builds })
		r := f.get(t, pagePath(2))
		index, hit := f.getHit(t, indexPath)
		got := indexLastMods(t, index.body)
		if !got[2].Equal(want[2]) {
			t.Errorf("the index (a cache hit: %v) lists page 2 at %v; the newer index listed %v", hit, got[2], want[2])
		}
		if !r.lastMod.Equal(got[2]) {
			t.Errorf("page 2: Last-Modified %v, but the index says %v", r.lastMod, got[2])
		}
	})
}
