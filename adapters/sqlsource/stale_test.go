package sqlsource_test

import (
	"bytes"
	"net/http"
	"testing"
)

// TestRemovedRowMovesClockForward is the bug that was reported: a row
// leaves page 2 (unpublished, or deleted, the newest of its page), and
// once the TTL has passed and the page was rebuilt, a crawler that asks
// If-Modified-Since the old Last-Modified must get the new bytes, under a
// Last-Modified later than the old one, and the index must list the page
// with that later lastmod. The old clock was the page's newest lastmod,
// so it stayed put for the unpublished row (304 for other bytes) and
// moved back for the deleted one.
//
// With a page summary, the same holds: the summary's change counter makes
// the index rebuild the page.
func TestRemovedRowMovesClockForward(t *testing.T) {
	for _, summary := range []bool{false, true} {
		t.Run(map[bool]string{false: "aggregate", true: "summary"}[summary], func(t *testing.T) {
			testRemovedRowMovesClockForward(t, summary)
		})
	}
}

func testRemovedRowMovesClockForward(t *testing.T, summary bool) {
	for _, tc := range []struct {
		name, change string
		gone         int64 // the product no longer listed
	}{
		{"unpublished", "UPDATE products SET published = false WHERE id = 15", 15},
		{"deleted the newest", "DELETE FROM products WHERE id = 19", 19}, // updated_at t0+19m, page 2's newest
	} {
		t.Run(tc.name, func(t *testing.T) {
			forEachDB(t, func(t *testing.T, d *testDB) {
				f := newFreshSite(t, d, nil, summary)
				before := f.crawlAll(t)
				old := before.pages[2]
				if !hasLoc(old.body, productLoc(tc.gone)) {
					t.Fatalf("page 2 does not list product %d before the change:\n%s", tc.gone, old.body)
				}
				if r := f.ifModifiedSince(t, pagePath(2), old); r.status != http.StatusNotModified {
					t.Fatalf("before the change, If-Modified-Since its Last-Modified: %d, want 304", r.status)
				}

				f.exec(t, tc.change)
				f.clock.expire()
				// The first request after the TTL gets the stale copy and
				// starts one background rebuild.
				if r := f.get(t, pagePath(2)); r.status != http.StatusOK || r.etag != old.etag || !bytes.Equal(r.body, old.body) {
					t.Errorf("first request after the TTL: %d, ETag %s; want 200 with the stale copy, ETag %s", r.status, r.etag, old.etag)
				}
				// Once it is rebuilt, the old date no longer matches.
				var r reply
				poll(t, "If-Modified-Since the old Last-Modified to answer 200", func() bool {
					r = f.ifModifiedSince(t, pagePath(2), old)
					return r.status == http.StatusOK
				})
				switch {
				case hasLoc(r.body, productLoc(tc.gone)):
					t.Errorf("the rebuilt page 2 still lists product %d", tc.gone)
				case !hasLoc(r.body, productLoc(14)):
					t.Errorf("the rebuilt page 2 lost product 14:\n%s", r.body)
				case r.etag == old.etag:
					t.Errorf("new bytes under the old ETag %s", r.etag)
				}
				if !r.lastMod.After(old.lastMod) {
					t.Errorf("Last-Modified %v after the change; want later than the old %v", r.lastMod, old.lastMod)
				}
				if r2 := f.ifModifiedSince(t, pagePath(2), r); r2.status != http.StatusNotModified {
					t.Errorf("If-Modified-Since the new Last-Modified: %d, want 304", r2.status)
				}
				if r2 := f.ifNoneMatch(t, pagePath(2), old); r2.status != http.StatusOK {
					t.Errorf("If-None-Match the old ETag: %d, want 200", r2.status)
				}

				// The index refreshes (it was outdated by the page's new
				// clock): page 2's lastmod moves forward, to the page's
				// Last-Modified; no other page's moves.
				index, lastMods := f.pollIndex(t, 2, before)
				after := crawl{index: index, lastMods: lastMods, pages: map[int64]reply{}}
				for n := range before.pages {
					after.pages[n] = f.get(t, pagePath(n))
				}
				f.checkOnlyChanged(t, 2, before, after)
			})
		})
	}
}

// TestStaleRefreshKeepsItsRebuild follows a crawler that fetches a page
// once after the TTL (the stale copy, which starts the one background
// rebuild) and comes back when the index lists the page with a new
// lastmod: by then the rebuild has ended, and the page must be the new
// bytes under that lastmod. It fails: the rebuild's own revalidation
// (build calls freshIndex after taking its epoch) builds an index that
// sees the page's Version changed and outdates the page, so keep drops
// the rebuilt page, though its clock has moved and the index lists it;
// the old bytes are served under the old Last-Modified until another
// request of the page starts a second rebuild.
func TestStaleRefreshKeepsItsRebuild(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		f := newFreshSite(t, d, nil)
		before := f.crawlAll(t)
		old := before.pages[2]
		f.exec(t, "UPDATE products SET published = false WHERE id = 15")
		f.clock.expire()
		if r := f.get(t, pagePath(2)); r.etag != old.etag {
			t.Fatalf("first request after the TTL: ETag %s, want the stale copy's %s", r.etag, old.etag)
		}
		// Only the index is requested from now on, never page 2.
		_, lastMods := f.pollIndex(t, 2, before)
		r := f.get(t, pagePath(2))
		if r.etag == old.etag || hasLoc(r.body, productLoc(15)) {
			t.Errorf("the index lists page 2 at %v, but page 2 is still the old bytes under Last-Modified %v", lastMods[2], r.lastMod)
		}
		if !r.lastMod.Equal(lastMods[2]) {
			t.Errorf("page 2: Last-Modified %v, but the index says %v", r.lastMod, lastMods[2])
		}
	})
}
