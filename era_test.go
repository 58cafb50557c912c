package sitemap

import (
	"net/http"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

// eraFleet is three replicas of the crawl catalogue on one faultStore,
// their copies fresh for an hour, on a clock the test moves.
func eraFleet(t *testing.T) (*faultStore, *crawlSource, *testkit.Clock, []*Sitemap) {
	t.Helper()
	st := &faultStore{memStore: newMemStore()}
	src := &crawlSource{}
	clk := testkit.NewClock(time.Now().Truncate(time.Second))
	var sms []*Sitemap
	for range 3 {
		sms = append(sms, newTestSitemap(t, Config{Store: st, TTL: time.Hour, Now: clk.Now}, Section{Source: src}))
	}
	return st, src, clk, sms
}

// lastModOf GETs path from sm and returns its Last-Modified ("" if none).
// settleEra makes the replicas agree on the Store's first era (a GET of
// the index), then moves the clock past its floor, so that the files
// built from then on are served under their Last-Modified at once.
func settleEra(t *testing.T, clk *testkit.Clock, sm *Sitemap) {
	t.Helper()
	if w := testkit.Fetch(sm, "/sitemap_index.xml"); w.Code != http.StatusOK {
		t.Fatalf("GET /sitemap_index.xml: %d", w.Code)
	}
	clk.Add(floorAhead)
}

func lastModOf(t *testing.T, sm *Sitemap, path string) string {
	t.Helper()
	w := testkit.Fetch(sm, path)
	if w.Code != http.StatusOK {
		t.Fatalf("GET %s: %d", path, w.Code)
	}
	return w.Header().Get("Last-Modified")
}

// TestEraAfterFlush: the Store flushed while every replica holds a copy
// of a page under one Last-Modified. Once one replica finds the Store
// empty, every replica serves that page without its old Last-Modified
// (it may already be served under the new era's floor elsewhere), and
// after the rebuilds every replica serves it under one new
// Last-Modified, later than the old one, which every index lists. The
// replicas agree on the new era: one born record, written once.
func TestEraAfterFlush(t *testing.T) {
	st, _, clk, sms := eraFleet(t)
	settleEra(t, clk, sms[0])
	const path = "/sitemap-1.xml.gz"
	old := lastModOf(t, sms[0], path)
	for _, sm := range sms[1:] {
		if got := lastModOf(t, sm, path); got != old {
			t.Fatalf("before the flush, the replicas serve %s under %q and %q", path, old, got)
		}
	}
	f0 := sms[0].docs.tier.(*fleet)
	era0 := f0.era()

	st.flush()
	clk.Add(10 * time.Second)
	// Replica 2 finds the Store empty: a page it has not cached yet.
	if w := testkit.Fetch(sms[2], "/sitemap-2.xml.gz"); w.Code != http.StatusOK {
		t.Fatalf("GET /sitemap-2.xml.gz: %d", w.Code)
	}
	era := sms[2].docs.tier.(*fleet).era()
	if !era.After(era0) {
		t.Fatalf("replica 2's era after the flush is %v, want one after %v", era, era0)
	}
	// The others are told (msgLost), and look before serving what they
	// cached.
	for i, sm := range sms {
		if sl, ok := sm.docs.cache.Peek(pageKey(0, 1)); ok && i < 2 {
			waitFor(t, func() bool { return sm.docs.tier.unsynced(sl) })
		}
		if got := lastModOf(t, sm, path); got == old {
			t.Fatalf("replica %d serves %s under its Last-Modified from before the flush, %s", i, path, old)
		}
		if e := sm.docs.tier.(*fleet).era(); !e.Equal(era) {
			t.Fatalf("replica %d is in era %v, replica 2 in %v: not agreed", i, e, era)
		}
	}
	// Once rebuilt, one new Last-Modified everywhere, listed by every index
	// (once the Date reaches the new era's floor).
	clk.Add(floorAhead)
	testkit.Converged(t, []http.Handler{sms[0], sms[1], sms[2]}, []string{path}, func(string) int64 { return 0 })
	now := lastModOf(t, sms[0], path)
	oldT, _ := http.ParseTime(old)
	if nowT, _ := http.ParseTime(now); !nowT.After(oldT) {
		t.Errorf("after the flush %s is served under %s, not after %s", path, now, old)
	}
	if b, err := sms[0].docs.tier.(*fleet).sh.getBorn(t.Context()); err != nil || !b.Equal(era) {
		t.Errorf("the store's born is %v (%v), want the era every replica took, %v", b, err, era)
	}
}

// TestEraGenerationBack: a Store whose generation went far back while its
// born record stayed (restored from an older copy of itself) lost the
// clocks given since: the replica that finds it writes a new era, and
// the others take it.
func TestEraGenerationBack(t *testing.T) {
	st, src, _, sms := eraFleet(t)
	ns := sms[0].docs.tier.(*fleet).sh.ns
	st.mu.Lock()
	st.counters[ns+"gen"] = 100_000
	st.mu.Unlock()
	lastModOf(t, sms[0], "/sitemap-1.xml.gz")
	lastModOf(t, sms[1], "/sitemap-1.xml.gz")
	era0 := sms[0].docs.tier.(*fleet).era()
	st.mu.Lock()
	st.counters[ns+"gen"] = 3 // restored: far below what the replicas were given
	st.mu.Unlock()

	src.rev[1].Add(1)
	if err := sms[0].Invalidate("", 1); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return sms[0].docs.tier.(*fleet).era().After(era0) })
	era := sms[0].docs.tier.(*fleet).era()
	if b, err := sms[0].docs.tier.(*fleet).sh.getBorn(t.Context()); err != nil || !b.Equal(era) {
		t.Fatalf("the store's born is %v (%v), want replica 0's new era %v", b, err, era)
	}
	sl, _ := sms[1].docs.cache.Peek(pageKey(0, 1))
	waitFor(t, func() bool { return sms[1].docs.tier.unsynced(sl) }) // told by msgLost
	lastModOf(t, sms[1], "/sitemap-1.xml.gz")                        // so it looks first
	if e := sms[1].docs.tier.(*fleet).era(); !e.Equal(era) {
		t.Errorf("replica 1 is in era %v, want %v", e, era)
	}
}

// TestEraStoredCopyOfAnotherEra: a copy stored in an era that is over is
// as if missing: its clock is from before the loss.
func TestEraStoredCopyOfAnotherEra(t *testing.T) {
	_, _, clk, sms := eraFleet(t)
	lastModOf(t, sms[0], "/sitemap-1.xml.gz")
	f := sms[1].docs.tier.(*fleet)
	k := pageKey(0, 1)
	if got, _, ok := f.look(t.Context(), k, nil); !ok || got == nil {
		t.Fatalf("replica 1 does not find replica 0's copy: %v %v", got != nil, ok)
	}
	clk.Add(time.Minute)
	if err := f.sh.setBorn(t.Context(), clk.Now()); err != nil { // another era begins
		t.Fatal(err)
	}
	got, stale, ok := f.look(t.Context(), k, nil)
	if !ok || got != nil || stale != nil {
		t.Errorf("look of a copy of an era that is over = (%v, %v, %v), want (false, false, true)", got != nil, stale != nil, ok)
	}
	if !f.era().Equal(clk.Now().UTC()) {
		t.Errorf("replica 1's era is %v, want the new one, %v", f.era(), clk.Now().UTC())
	}
	if cs, err := f.sh.getClocks(t.Context(), f.era(), []string{f.site.storeName(k)}); err != nil || !cs[0].at.IsZero() {
		t.Errorf("the page's clock of the era that is over is read as %v (%v), want none", cs[0].at, err)
	}
}

// TestEraUnclocksDerivedForms: after a Store loss, a page's plain-text
// form, made under its old Last-Modified, is not served with it either.
func TestEraUnclocksDerivedForms(t *testing.T) {
	st, _, clk, sms := eraFleet(t)
	settleEra(t, clk, sms[0])
	old := testkit.Fetch(sms[0], "/sitemap-1.txt").Header().Get("Last-Modified")
	if old == "" {
		t.Fatal("the text form has no Last-Modified before the flush")
	}
	st.flush()
	clk.Add(10 * time.Second)
	testkit.Fetch(sms[0], "/sitemap-2.xml.gz") // finds the Store empty: a new era
	if got := testkit.Fetch(sms[0], "/sitemap-1.txt").Header().Get("Last-Modified"); got == old {
		t.Errorf("after the Store lost its state the text form is served under its old Last-Modified %s", got)
	}
}

// TestEraFlushWithinASecond: the flush lie of TestCrawlInvariant/flush,
// made deterministic. Replica 1 lists page 1 in its index (its clock at
// the floor, no bytes given it yet); replica 0 builds page 1 under that
// floor. The Store is flushed within the same second as the era began,
// the page changes, and replica 1, which never read replica 0's clock,
// builds it again in the new era. The new era's floor must be past every
// clock given in the old one, the old floor included: else replica 1
// gives the new bytes the old floor, the Last-Modified replica 0 gave the
// old bytes, and a crawler that holds those is told 304.
func TestEraFlushWithinASecond(t *testing.T) {
	st, src, clk, sms := eraFleet(t)
	if w := testkit.Fetch(sms[1], "/sitemap_index.xml"); w.Code != http.StatusOK {
		t.Fatalf("GET /sitemap_index.xml: %d", w.Code)
	}
	k := pageKey(0, 1)
	if w := testkit.Fetch(sms[0], "/sitemap-1.xml.gz"); w.Code != http.StatusOK {
		t.Fatalf("GET /sitemap-1.xml.gz: %d", w.Code)
	}
	sl0, ok := sms[0].docs.cache.Peek(k)
	if !ok || sl0.e.lastMod.IsZero() {
		t.Fatal("replica 0 holds no copy of page 1 with a clock")
	}
	era0 := sms[0].docs.tier.(*fleet).era()

	st.flush()
	clk.Add(500 * time.Millisecond) // the same second as the era began
	src.rev[1].Add(1)
	if w := testkit.Fetch(sms[1], "/sitemap-1.xml.gz"); w.Code != http.StatusOK {
		t.Fatalf("GET /sitemap-1.xml.gz from replica 1: %d", w.Code)
	}
	if era := sms[1].docs.tier.(*fleet).era(); !era.After(era0) {
		t.Fatalf("replica 1's era after the flush is %v, want one after %v", era, era0)
	}
	sl1, ok := sms[1].docs.cache.Peek(k)
	if !ok {
		t.Fatal("replica 1 holds no copy of page 1")
	}
	if sl1.e.hash == sl0.e.hash {
		t.Fatal("replica 1 built the same bytes: the test changed nothing")
	}
	if lm := sl1.e.lastMod; !lm.IsZero() && !lm.After(sl0.e.lastMod) {
		t.Errorf("after the flush, new bytes got the clock %v, not after %v, the clock of the old bytes", lm, sl0.e.lastMod)
	}
}
