package sitemap

import (
	"net/http"
	"testing"
	"time"
)

// A page copy served without Last-Modified because its build could not
// agree on a clock with the other replicas (the Store was down) gets one
// once the Store answers again, by a build under the Store's lock: it is
// not renewed as it is by a revalidation that finds its Version unchanged,
// which would serve it undated for a whole TTL, and again after
// (TestSpliceCrawlInvariant's missing Last-Modified at the end).
func TestUndatedCopyGetsClock(t *testing.T) {
	src := newFake(250, 50)
	src.version = "v1" // an index that shows the Version unchanged revalidates a current copy
	st := newMemStore()
	sm := replicas(t, st, 1, src, Config{TTL: time.Hour})[0]
	const page = "/sitemap-1.xml.gz"
	get(sm, "/sitemap_index.xml")
	if get(sm, page); !dated(sm, 1) {
		t.Fatalf("the first build gave no clock: %s", undated(sm, 1))
	}

	st.setDown(true)
	if err := sm.Invalidate("", 1); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { // the rebuild, alone: no clock agreed
		return get(sm, page).Code == http.StatusOK && !dated(sm, 1) && idle(sm)
	})
	reads := src.urlsCalls.Load()

	st.setDown(false)
	waitFor(t, func() bool { return !sm.Stats().StoreDown })
	waitFor(t, func() bool { get(sm, page); return dated(sm, 1) })
	if got := src.urlsCalls.Load() - reads; got != 1 {
		t.Errorf("the undated copy was read %d times to get its clock, want once", got)
	}
	if get(sm, page); !dated(sm, 1) {
		t.Error("the copy lost its clock again")
	}
}

// dated reports whether sm's cached copy of page p (of its one section)
// has a clock, its Last-Modified once Date reaches it (serveEntry).
func dated(sm *Sitemap, p int64) bool {
	sl, ok := sm.docs.cache.Peek(pageKey(0, p))
	return ok && !sl.e.lastMod.IsZero()
}

// idle reports whether sm has no rebuild waiting or running.
func idle(sm *Sitemap) bool {
	waiting, building := sm.docs.rebuilds.waiting()
	return waiting+building == 0
}
