package sitemap

import (
	"fmt"
	"net/http"
	"testing"
)

func TestCacheBudget(t *testing.T) {
	src := newFake(2000, 100)
	sm := newTestSitemap(t, Config{CacheBytes: 3000}, Section{Source: src, PageSize: 100})
	for p := 1; p <= 20; p++ {
		get(sm, fmt.Sprintf("/sitemap-%d.xml.gz", p))
		if _, b := sm.docs.cache.Usage(); b > 3000 {
			t.Fatalf("cache holds %d bytes, budget 3000", b)
		}
	}
	n, _ := sm.docs.cache.Usage()
	if n == 0 || n >= 20 {
		t.Errorf("%d entries cached", n)
	}
	// The most recent page is a hit, the first was evicted.
	calls := src.urlsCalls.Load()
	get(sm, "/sitemap-20.xml.gz")
	if src.urlsCalls.Load() != calls {
		t.Error("most recent page was evicted")
	}
	get(sm, "/sitemap-1.xml.gz")
	if src.urlsCalls.Load() != calls+1 {
		t.Error("oldest page was not evicted")
	}

	off := newTestSitemap(t, Config{CacheBytes: -1}, Section{Source: src, PageSize: 100})
	calls = src.urlsCalls.Load()
	get(off, "/sitemap-1.xml.gz")
	get(off, "/sitemap-1.xml.gz")
	if src.urlsCalls.Load() != calls+2 {
		t.Error("a disabled cache cached")
	}
}

func TestCachedHitAllocs(t *testing.T) {
	sm := newTestSitemap(t, Config{}, Section{Source: newFake(100, 100), PageSize: 100})
	get(sm, "/sitemap-1.xml.gz")
	r, _ := http.NewRequest(http.MethodGet, "/sitemap-1.xml.gz", nil)
	w := &recorder{header: http.Header{}}
	allocs := testing.AllocsPerRun(100, func() {
		clear(w.header)
		sm.ServeHTTP(w, r)
	})
	// 3 since issue 20 (serveCached: Last-Modified, the countingWriter);
	// issue 20's budget is the 9 of http.ServeContent before.
	if allocs > 9 {
		t.Errorf("a cache hit allocates %v times, budget 9", allocs)
	}
}
