package sitemap

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

// TestInvalidate: the application says page 1 changed. Its rebuild starts
// at once, in the background; the old copy is served until it is ready;
// then the new bytes come under a new Last-Modified, and the index lists
// the new clock. Page 2 is untouched.
func TestInvalidate(t *testing.T) {
	clk := testkit.NewClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	src := newFake(20, 10)
	sm := newTestSitemap(t, Config{Now: clk.Now}, Section{Name: "p", Source: src})
	get(sm, "/sitemap_index.xml")
	old1, old2 := get(sm, "/sitemap-p-1.xml"), get(sm, "/sitemap-p-2.xml")
	reads := src.urlsCalls.Load()

	started, release := make(chan struct{}), make(chan struct{})
	src.onURL = func(_ context.Context, page, i int64) error {
		if page == 1 && i == 0 {
			close(started)
			<-release
		}
		return nil
	}
	src.edited = 1           // the application's change, which Pages does not show
	clk.Add(2 * time.Second) // past the first clock, two seconds after the start (clock.go)
	if err := sm.Invalidate("p", 1); err != nil {
		t.Fatal(err)
	}
	<-started // the rebuild started at once, without a request
	if w := get(sm, "/sitemap-p-1.xml"); w.Body.String() != old1.Body.String() || w.Header().Get("Last-Modified") != old1.Header().Get("Last-Modified") {
		t.Error("the old copy is not served while the new one is built")
	}
	close(release)
	sm.docs.wg.Wait()

	w := get(sm, "/sitemap-p-1.xml", "If-Modified-Since", old1.Header().Get("Last-Modified"))
	if w.Code != 200 || w.Body.String() == old1.Body.String() {
		t.Fatalf("after Invalidate: %d, same bytes %v", w.Code, w.Body.String() == old1.Body.String())
	}
	lm, _ := http.ParseTime(w.Header().Get("Last-Modified"))
	if was, _ := http.ParseTime(old1.Header().Get("Last-Modified")); !lm.After(was) {
		t.Errorf("Last-Modified %v, not after %v", lm, was)
	}
	if w := get(sm, "/sitemap-p-2.xml"); w.Body.String() != old2.Body.String() || w.Header().Get("Etag") != old2.Header().Get("Etag") {
		t.Error("page 2 changed")
	}
	if got := src.urlsCalls.Load() - reads; got != 1 {
		t.Errorf("%d page reads, want 1", got)
	}
	idx := get(sm, "/sitemap_index.xml").Body.String()
	if want := "sitemap-p-1.xml.gz</loc><lastmod>" + lm.Format("2006-01-02T15:04:05Z"); !strings.Contains(idx, want) {
		t.Errorf("the index does not list the new clock %s:\n%s", want, idx)
	}
}

// TestInvalidateAll rebuilds every cached page, then the index.
func TestInvalidateAll(t *testing.T) {
	src := newFake(30, 10)
	sm := newTestSitemap(t, Config{}, Section{Name: "p", Source: src}, Section{Name: "q", Source: newFake(5, 10)})
	for _, p := range []string{"/sitemap_index.xml", "/sitemap-p-1.xml", "/sitemap-p-3.xml", "/sitemap-q-1.xml"} {
		get(sm, p)
	}
	reads, indexReads := src.urlsCalls.Load(), src.pageCalls.Load()
	sm.InvalidateAll()
	sm.docs.wg.Wait()
	if got := src.urlsCalls.Load() - reads; got != 2 {
		t.Errorf("section p: %d page reads, want 2 (the cached pages)", got)
	}
	if got := src.pageCalls.Load() - indexReads; got != 1 {
		t.Errorf("%d index reads, want 1", got)
	}
	if got := sm.Stats().CacheHits; get(sm, "/sitemap-p-1.xml").Code != 200 || sm.Stats().CacheHits != got+1 {
		t.Error("a rebuilt page is not fresh")
	}
}

func TestInvalidateErrors(t *testing.T) {
	sm := newTestSitemap(t, Config{}, Section{Name: "p", Source: newFake(10, 10)})
	if err := sm.Invalidate("nope", 1); err == nil || !strings.Contains(err.Error(), `no section "nope"`) {
		t.Errorf("unknown section: %v", err)
	}
	// Page numbers that do not exist are ignored, and nothing is built
	// for a page that is not cached.
	if err := sm.Invalidate("p", 0, -1, 99); err != nil {
		t.Error(err)
	}
	sm.Close()
	if err := sm.Invalidate("p"); err != nil { // after Close: nothing starts
		t.Error(err)
	}
}
