package sitemap

import (
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

func TestFreshIndexAnswers404(t *testing.T) {
	src := newFake(20, 10)
	sm := newTestSitemap(t, Config{}, Section{Source: src, PageSize: 10})
	get(sm, "/sitemap_index.xml")
	for _, p := range []string{"/sitemap-3.xml.gz", "/sitemap-4.xml.gz", "/sitemap-999999.xml.gz"} {
		if w := get(sm, p); w.Code != 404 {
			t.Errorf("%s = %d", p, w.Code)
		}
	}
	if src.urlsCalls.Load() != 0 {
		t.Errorf("pages missing from a fresh index were read %d times", src.urlsCalls.Load())
	}
}

func TestPageVanishes(t *testing.T) {
	clk := testkit.NewClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	src := newFake(20, 10)
	sm := newTestSitemap(t, Config{TTL: time.Minute, Now: clk.Now}, Section{Source: src, PageSize: 10})
	if w := get(sm, "/sitemap-2.xml.gz"); w.Code != 200 {
		t.Fatal(w.Code)
	}
	src.n = 10 // page 2's rows are deleted
	clk.Add(2 * time.Minute)
	get(sm, "/sitemap-2.xml.gz") // stale copy, while the refresh finds it empty
	sm.docs.wg.Wait()
	if w := get(sm, "/sitemap-2.xml.gz"); w.Code != 404 {
		t.Errorf("a page that became empty = %d, want 404", w.Code)
	}
}

// TestJunkPagesStaleIndex: page numbers the index does not list are
// answered 404 from the index, even when it is stale: the requests share
// one index refresh and read no page.
func TestJunkPagesStaleIndex(t *testing.T) {
	clk := testkit.NewClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	src := newFake(20, 10)
	sm := newTestSitemap(t, Config{TTL: time.Minute, Now: clk.Now}, Section{Source: src})
	get(sm, "/sitemap_index.xml")
	clk.Add(2 * time.Minute)
	pagesBefore := src.pageCalls.Load()
	var wg sync.WaitGroup
	var notFound atomic.Int64
	for g := range 20 {
		wg.Go(func() {
			for i := range 100 {
				if w := get(sm, fmt.Sprintf("/sitemap-%d.xml.gz", 3+g*100+i)); w.Code == http.StatusNotFound {
					notFound.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if notFound.Load() != 2000 {
		t.Errorf("%d of 2,000 junk pages answered 404", notFound.Load())
	}
	if got := src.urlsCalls.Load(); got != 0 {
		t.Errorf("junk page numbers read %d pages, want 0", got)
	}
	if got := src.pageCalls.Load() - pagesBefore; got > 1 {
		t.Errorf("junk page numbers read the index %d times, want at most 1", got)
	}
	// A page the refreshed index lists is still served.
	if w := get(sm, "/sitemap-2.xml.gz"); w.Code != 200 {
		t.Errorf("a listed page = %d", w.Code)
	}
}

// TestJunkPagesIndexDown: with the index failing and no copy of it, a page
// cannot be told to exist: 503, never a page read.
func TestJunkPagesIndexDown(t *testing.T) {
	src := newFake(20, 10)
	src.pagesErr = errors.New("down")
	sm := newTestSitemap(t, Config{}, Section{Source: src})
	for _, p := range []string{"/sitemap-1.xml.gz", "/sitemap-77.xml.gz"} {
		if w := get(sm, p); w.Code != http.StatusServiceUnavailable {
			t.Errorf("%s with no index = %d, want 503", p, w.Code)
		}
	}
	if got := src.urlsCalls.Load(); got != 0 {
		t.Errorf("%d page reads without an index", got)
	}
	if got := src.pageCalls.Load(); got != 1 {
		t.Errorf("the failing index was read %d times, want 1 (then not before RetryAfter)", got)
	}
}
