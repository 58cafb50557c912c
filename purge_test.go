package sitemap

import (
	"context"
	"iter"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

// purges records the calls of OnPurge.
type purges struct {
	mu    sync.Mutex
	calls []Purge
	err   error // what each call returns
}

func (p *purges) on(_ context.Context, x Purge) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, x)
	return p.err
}

func (p *purges) got() []Purge {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.calls)
}

// wantPurge fails t unless calls is one call naming the files keys (in
// any order), with their URLs.
func wantPurge(t *testing.T, calls []Purge, urls []string, keys ...string) {
	t.Helper()
	if len(calls) != 1 {
		t.Fatalf("%d OnPurge calls, want 1: %+v", len(calls), calls)
	}
	got := calls[0]
	slices.Sort(got.Keys)
	slices.Sort(keys)
	slices.Sort(got.URLs)
	slices.Sort(urls)
	if !slices.Equal(got.Keys, keys) || !slices.Equal(got.URLs, urls) {
		t.Errorf("OnPurge told\n keys %q\n URLs %q\nwant\n keys %q\n URLs %q", got.Keys, got.URLs, keys, urls)
	}
}

// pageURLs are the purge URLs of a page's file whose stem is stem.
func pageURLs(stem string) []string {
	return []string{stem + ".xml.gz", stem + ".xml", stem + ".txt"}
}

// purgePaths are the files of purgeFixture's Sitemap.
var purgePaths = []string{"/sitemap_index.xml", "/sitemap-p-1.xml.gz", "/sitemap-p-2.xml.gz"}

// purgeFixture serves 20 URLs in pages of 10 with OnPurge recorded, on a
// clock of its own, and fetches every file once.
func purgeFixture(t *testing.T, cfg Config) (*Sitemap, *fakeSource, *testkit.Clock, *purges) {
	t.Helper()
	clk := testkit.NewClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	src := newFake(20, 10)
	p := &purges{}
	cfg.Now, cfg.OnPurge = clk.Now, p.on
	sm := newTestSitemap(t, cfg, Section{Name: "p", Source: src})
	holdPurges(sm)
	for _, path := range purgePaths {
		get(sm, path)
	}
	return sm, src, clk, p
}

// holdPurges makes sm's purger hold what it gathers until Close, so that
// a test counting OnPurge calls does not depend on how long a slow
// machine (-race, two cores) takes between a page's rebuild and its
// index's: rule 3's batching is purge.Delay, and here it is Close. Call it
// before the first request; the builds that push start after it.
func holdPurges(sm *Sitemap) { sm.rep.purger.Delay = time.Hour }

// TestPurgeOneChange (purge.go, rules 1 and 3): a page edited and
// invalidated is one call naming exactly that page and the index, which
// lists its new clock; the other page is not named.
func TestPurgeOneChange(t *testing.T) {
	sm, src, clk, p := purgeFixture(t, Config{})
	src.edited = 1
	clk.Add(2 * time.Second)
	if err := sm.Invalidate("p", 1); err != nil {
		t.Fatal(err)
	}
	sm.docs.wg.Wait() // the page, then the index, rebuilt
	sm.Close()        // tells what is queued
	wantPurge(t, p.got(), append(pageURLs("https://example.com/sitemap-p-1"), "https://example.com/sitemap_index.xml", "https://example.com/sitemap.xml"),
		"example.com/sitemap-p-1", "example.com/sitemap_index")
}

// TestPurgeNoChangeNoCall (rule 1): first builds, a rebuild that makes
// the same bytes (Invalidate with nothing edited, and a TTL expiry) and
// the same index purge nothing.
func TestPurgeNoChangeNoCall(t *testing.T) {
	sm, src, clk, p := purgeFixture(t, Config{TTL: time.Minute})
	clk.Add(2 * time.Second)
	if err := sm.Invalidate("p"); err != nil {
		t.Fatal(err)
	}
	sm.docs.wg.Wait()
	clk.Add(2 * time.Minute) // every copy expired
	for _, path := range purgePaths {
		get(sm, path) // stale: a refresh starts
	}
	sm.docs.wg.Wait()
	reads := src.urlsCalls.Load()
	sm.Close()
	if reads < 6 {
		t.Fatalf("%d page reads: the rebuilds did not happen", reads)
	}
	if calls := p.got(); len(calls) != 0 {
		t.Errorf("OnPurge told %+v, want no call", calls)
	}
}

// TestPurgeGone (rule 1): a page that empties is gone (404): it is named,
// with the index that no longer lists it.
func TestPurgeGone(t *testing.T) {
	sm, src, clk, p := purgeFixture(t, Config{})
	src.n = 10 // page 2's rows deleted
	clk.Add(2 * time.Second)
	if err := sm.Invalidate("p", 2); err != nil {
		t.Fatal(err)
	}
	sm.docs.wg.Wait()
	if w := get(sm, "/sitemap-p-2.xml.gz"); w.Code != http.StatusNotFound {
		t.Fatalf("page 2: %d, want 404", w.Code)
	}
	sm.Close()
	wantPurge(t, p.got(), append(pageURLs("https://example.com/sitemap-p-2"), "https://example.com/sitemap_index.xml", "https://example.com/sitemap.xml"),
		"example.com/sitemap-p-2", "example.com/sitemap_index")
}

// TestPurgeFleetOnce (rule 2): three replicas on one store, one page
// changed through one of them: one call, naming the page and the index,
// however many of them serve the new bytes.
func TestPurgeFleetOnce(t *testing.T) {
	src := &revSource{fakeSource: newFake(250, 50)}
	var p purges
	clk := testkit.NewClock(time.Now())
	sms := replicas(t, newMemStore(), 3, src, Config{OnPurge: p.on, Now: clk.Now})
	for _, sm := range sms {
		holdPurges(sm)
	}
	get(sms[0], "/sitemap_index.xml") // the Store's first era
	clk.Add(floorAhead)               // past its floor: the files are served under their Last-Modified
	before := map[int]http.Header{}
	for i, sm := range sms {
		get(sm, "/sitemap_index.xml")
		before[i] = get(sm, "/sitemap-2.xml.gz").Header()
	}
	clk.Add(time.Second) // a later second: the clock may move
	src.rev.Add(1)
	if err := sms[0].Invalidate("", 2); err != nil {
		t.Fatal(err)
	}
	old := before[0].Get("Etag")
	for _, sm := range sms {
		waitFor(t, func() bool { return get(sm, "/sitemap-2.xml.gz").Header().Get("Etag") != old })
		get(sm, "/sitemap_index.xml")
	}
	for _, sm := range sms {
		sm.docs.wg.Wait()
		sm.Close()
	}
	// Every page's bytes changed with the revision, but only page 2 was
	// said to have changed and rebuilt. Each file is purged once for the
	// fleet, by the replica that rebuilt it: page 2's and the index's
	// purges come in one call, or in two when another replica rebuilt
	// the index (which replica does is the fleet's business, not the
	// rule's).
	var all Purge
	for _, c := range p.got() {
		all.URLs, all.Keys = append(all.URLs, c.URLs...), append(all.Keys, c.Keys...)
	}
	wantPurge(t, []Purge{all}, append(pageURLs("https://example.com/sitemap-2"), "https://example.com/sitemap_index.xml", "https://example.com/sitemap.xml"),
		"example.com/sitemap-2", "example.com/sitemap_index")
}

// TestPurgeHeaders (rule 5): every form of a file names its key in
// Surrogate-Key and Cache-Tag, 304s too; the index and a feed have
// their own; without OnPurge there is none.
func TestPurgeHeaders(t *testing.T) {
	var p purges
	urls := []URL{{Loc: "https://example.com/shop/a", LastMod: feedT0}, {Loc: "https://example.com/shop/b", LastMod: feedT0}}
	src := sliceRecent{Source: FromSlice(urls, 0), urls: urls}
	sm := newTestSitemap(t, Config{BaseURL: "https://example.com/shop", OnPurge: p.on, FeedEntries: 10, HTML: true},
		Section{Name: "products", Source: src})
	for path, want := range map[string]string{
		"/shop/sitemap-products-1.xml.gz": "example.com/shop/sitemap-products-1",
		"/shop/sitemap-products-1.xml":    "example.com/shop/sitemap-products-1",
		"/shop/sitemap-products-1.txt":    "example.com/shop/sitemap-products-1",
		"/shop/sitemap-products-1.html":   "example.com/shop/sitemap-products-1",
		"/shop/sitemap_index.xml":         "example.com/shop/sitemap_index",
		"/shop/sitemap_index.html":        "example.com/shop/sitemap_index",
		"/shop/sitemap-products.atom":     "example.com/shop/sitemap-products.atom",
	} {
		w := get(sm, path)
		if w.Code != http.StatusOK || w.Header().Get("Surrogate-Key") != want || w.Header().Get("Cache-Tag") != want {
			t.Errorf("%s: %d, Surrogate-Key %q, Cache-Tag %q, want %q", path, w.Code, w.Header().Get("Surrogate-Key"), w.Header().Get("Cache-Tag"), want)
		}
		nm := get(sm, path, "If-None-Match", w.Header().Get("Etag"))
		if nm.Code != http.StatusNotModified || nm.Header().Get("Surrogate-Key") != want {
			t.Errorf("%s, If-None-Match: %d, Surrogate-Key %q", path, nm.Code, nm.Header().Get("Surrogate-Key"))
		}
	}
	if w := get(sm, "/shop/sitemap-products-9.xml.gz"); w.Code != http.StatusNotFound || w.Header().Get("Surrogate-Key") != "" {
		t.Errorf("a missing file: %d, Surrogate-Key %q", w.Code, w.Header().Get("Surrogate-Key"))
	}
	off := newTestSitemap(t, Config{BaseURL: "https://example.com/shop"}, Section{Name: "products", Source: src})
	if w := get(off, "/shop/sitemap-products-1.xml.gz"); w.Code != http.StatusOK || w.Header().Get("Surrogate-Key") != "" || w.Header().Get("Cache-Tag") != "" {
		t.Errorf("without OnPurge: Surrogate-Key %q, Cache-Tag %q", w.Header().Get("Surrogate-Key"), w.Header().Get("Cache-Tag"))
	}
	// The cache-hit path allocates nothing for the header.
	w := &recorder{header: http.Header{}}
	r, _ := http.NewRequest(http.MethodGet, "https://example.com/shop/sitemap-products-1.xml.gz", nil)
	with := testing.AllocsPerRun(100, func() { clear(w.header); sm.ServeHTTP(w, r) })
	without := testing.AllocsPerRun(100, func() { clear(w.header); off.ServeHTTP(w, r) })
	if with > without {
		t.Errorf("a cache hit allocates %v with OnPurge, %v without", with, without)
	}
}

// sliceRecent is a Source over urls that lists them as recent too.
type sliceRecent struct {
	Source
	urls []URL
}

func (s sliceRecent) Recent(_ context.Context, n int) iter.Seq2[URL, error] {
	return func(yield func(URL, error) bool) {
		for _, u := range s.urls[:min(n, len(s.urls))] {
			if !yield(u, nil) {
				return
			}
		}
	}
}

// BenchmarkNotModifiedPurgeKeys is BenchmarkNotModified with OnPurge set,
// so that each response also names its file in Surrogate-Key and
// Cache-Tag (made once per cached copy): the cheapest response, where
// the two headers cost the most by share.
func BenchmarkNotModifiedPurgeKeys(b *testing.B) {
	sm, err := New(Config{BaseURL: "https://shop.example.com", TTL: time.Hour, OnPurge: func(context.Context, Purge) error { return nil }},
		Section{Source: benchSource(MaxURLs)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { sm.Close() })
	sm.ServeHTTP(&discard{h: http.Header{}}, mustRequest("/sitemap-1.xml.gz"))
	e, ok := cachedEntry(sm, pageKey(0, 1))
	if !ok {
		b.Fatal("page not cached")
	}
	w := &discard{h: http.Header{}}
	serveLoop(b, sm, mustRequest("/sitemap-1.xml.gz", "If-None-Match", e.etagFile[0]), w, 0, http.StatusNotModified)
	if w.h.Get("Surrogate-Key") != "shop.example.com/sitemap-1" {
		b.Fatalf("Surrogate-Key %q", w.h.Get("Surrogate-Key"))
	}
}
