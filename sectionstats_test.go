package sitemap

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/secstats"
)

// sectionStatsOf returns the snapshot of the section named name.
func sectionStatsOf(t *testing.T, sm *Sitemap, name string) SectionStats {
	t.Helper()
	for _, st := range sm.SectionStats() {
		if st.Section == name {
			return st
		}
	}
	t.Fatalf("no section %q in SectionStats", name)
	return SectionStats{}
}

func TestSectionStats(t *testing.T) {
	good := newFake(10, 10)
	bad := newFake(10, 10)
	bad.onURL = func(context.Context, int64, int64) error { return errors.New("db down") }
	urls := append(numbered(3), URL{Loc: "https://elsewhere.example/x"}, URL{Loc: "https://example.com/old", LastMod: time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)})
	sm := newTestSitemap(t, Config{FeedEntries: 10},
		Section{Name: "a", Source: FromSlice(urls, 10)},
		Section{Name: "b", Source: bad},
		Section{Name: "c", Source: newRecent(recentURLs(2)...)},
		Section{Name: "d", Source: good})

	for path, want := range map[string]int{ // each request once, in no particular order
		"/sitemap_index.xml":    http.StatusOK,
		"/sitemap-a-9.xml.gz":   http.StatusNotFound, // a page the index does not list
		"/sitemap-zzz-1.xml.gz": http.StatusNotFound, // no such section
		"/sitemap-a-01.xml.gz":  http.StatusNotFound, // not canonical
		"/sitemap-b-1.xml.gz":   http.StatusServiceUnavailable,
		"/sitemap-c.atom":       http.StatusOK,
	} {
		if w := get(sm, path); w.Code != want {
			t.Fatalf("%s: status %d, want %d", path, w.Code, want)
		}
	}
	first := get(sm, "/sitemap-a-1.xml.gz")
	n := int64(first.Body.Len())
	if w := get(sm, "/sitemap-a-1.xml.gz"); w.Code != http.StatusOK {
		t.Fatalf("status %d", w.Code)
	}
	if w := get(sm, "/sitemap-a-1.xml.gz", "If-None-Match", first.Header().Get("Etag")); w.Code != http.StatusNotModified {
		t.Fatalf("status %d, want 304", w.Code)
	}

	a := sectionStatsOf(t, sm, "a")
	if a.CacheMisses != 2 || a.CacheHits != 2 || a.Builds != 1 || a.NotModified != 1 || a.NotFound != 1 || a.BytesServed != 2*n {
		t.Errorf("section a: %+v", a)
	}
	if want := map[string]int64{"loc": 1}; !mapsEqual(a.RejectedURLs, want) {
		t.Errorf("section a rejected %v, want %v", a.RejectedURLs, want)
	}
	if want := map[string]int64{"lastmod": 1}; !mapsEqual(a.DroppedElements, want) { // the URL is written without it
		t.Errorf("section a dropped %v, want %v", a.DroppedElements, want)
	}
	if h := a.BuildSeconds; h.Count != 1 || h.Sum <= 0 || len(h.Buckets) != len(BuildBuckets()) || h.Buckets[len(h.Buckets)-1] != 1 {
		t.Errorf("section a build histogram %+v", h)
	}
	if b := sectionStatsOf(t, sm, "b"); b.Unavailable != 1 || b.BuildErrors != 1 || b.Builds != 0 || b.BuildSeconds.Count != 1 {
		t.Errorf("section b: %+v", b)
	}
	if c := sectionStatsOf(t, sm, "c"); c.CacheMisses != 0 || c.Builds != 0 {
		t.Errorf("section c counts its feed: %+v", c)
	}
	if f := sectionStatsOf(t, sm, "_feed:c"); f.CacheMisses != 1 || f.Builds != 1 || f.CachedDocuments != 1 {
		t.Errorf("feed of c: %+v", f)
	}
	if idx := sectionStatsOf(t, sm, "_index"); idx.Builds != 1 || idx.CacheHits+idx.CacheMisses != 1 || idx.CachedDocuments != 1 {
		t.Errorf("index: %+v", idx)
	}
	if o := sectionStatsOf(t, sm, "_other"); o.NotFound != 2 || o.CacheMisses != 0 {
		t.Errorf("_other: %+v", o)
	}

	// The sections add up to Stats.
	var names []string
	var sum SectionStats
	for _, st := range sm.SectionStats() {
		names = append(names, st.Section)
		sum.CacheHits += st.CacheHits
		sum.CacheMisses += st.CacheMisses
		sum.Builds += st.Builds
		sum.BuildErrors += st.BuildErrors
		sum.NotFound += st.NotFound
		sum.NotModified += st.NotModified
		sum.Unavailable += st.Unavailable
		sum.BytesServed += st.BytesServed
		sum.CachedDocuments += st.CachedDocuments
		sum.CachedBytes += st.CachedBytes
		for _, n := range st.RejectedURLs {
			sum.RejectedURLs = map[string]int64{"": sum.RejectedURLs[""] + n}
		}
	}
	if want := []string{"a", "b", "c", "d", "_feed:a", "_feed:c", "_index", "_other"}; !slices.Equal(names, want) {
		t.Errorf("sections %q, want %q", names, want)
	}
	all := sm.Stats()
	if sum.CacheHits != all.CacheHits || sum.CacheMisses != all.CacheMisses || sum.Builds != all.Builds ||
		sum.BuildErrors != all.BuildErrors || sum.NotFound != all.NotFound || sum.NotModified != all.NotModified ||
		sum.Unavailable != all.Unavailable || sum.BytesServed != all.BytesServed || sum.RejectedURLs[""] != all.RejectedURLs ||
		sum.CachedDocuments != all.CachedDocuments || sum.CachedBytes != all.CachedBytes {
		t.Errorf("sections add up to %+v; Stats is %+v", sum, all)
	}
}

func mapsEqual(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestSectionStatsPageFull(t *testing.T) {
	// A page whose fourth URL does not fit the byte limit (lowered here).
	sm := newTestSitemap(t, Config{}, Section{Source: FromSlice(numbered(4), 4)})
	spec := &sm.site.sections[0].spec
	spec.maxBytes = encodeSpec(t, listSource(numbered(3)...), *spec).st.bytes
	get(sm, "/sitemap-1.xml.gz")
	if got := sectionStatsOf(t, sm, "").RejectedURLs; !mapsEqual(got, map[string]int64{"page_full": 1}) {
		t.Errorf("rejected %v, want one page_full", got)
	}
}

func TestBuildHistogramBuckets(t *testing.T) {
	var c secstats.Counters
	for _, d := range []time.Duration{0, time.Millisecond, 3 * time.Millisecond, time.Second, time.Hour} {
		c.Observe(d)
	}
	h := snapshotOf(&c).BuildSeconds
	bounds := BuildBuckets()
	if bounds[0] != 0.001 || bounds[len(bounds)-1] != 120 || !slices.IsSorted(bounds) {
		t.Errorf("bounds %v", bounds)
	}
	// ≤1ms: 2; ≤5ms: 3; ≤1s: 4; the hour is past every bound.
	at := func(sec float64) uint64 { return h.Buckets[slices.Index(bounds, sec)] }
	if h.Count != 5 || at(0.001) != 2 || at(0.0025) != 2 || at(0.005) != 3 || at(1) != 4 || at(120) != 4 {
		t.Errorf("histogram %+v", h)
	}
	if want := (time.Hour + time.Second + 4*time.Millisecond).Seconds(); h.Sum != want {
		t.Errorf("sum %v, want %v", h.Sum, want)
	}
}

func TestStatsNoAlloc(t *testing.T) {
	sm := newTestSitemap(t, Config{}, Section{Source: newFake(10, 10)})
	if n := testing.AllocsPerRun(10, func() { sm.Stats() }); n != 0 {
		t.Errorf("Stats allocates %v times", n)
	}
}
