package sitemap

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

// TestOutdatedBuildKept: a page told again while its rebuild runs, and
// again while the next one runs, as a change stream faster than a build
// tells it. The first rebuild, outdated when it ends, is not shared and
// has no clock, but it is what requests get until the next one ends: the
// page's first change is served, without Last-Modified, and no validator
// of the copy before answers 304. Before, the outdated build was dropped
// and the copy from before every change was served until a build ended
// with no tell during it.
func TestOutdatedBuildKept(t *testing.T) {
	clk := testkit.NewClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	src := newFake(20, 10)
	sm := newTestSitemap(t, Config{Now: clk.Now}, Section{Name: "p", Source: src})
	clk.Add(floorAhead)
	get(sm, "/sitemap_index.xml")
	old := get(sm, "/sitemap-p-1.xml")
	if old.Header().Get("Last-Modified") == "" || old.Header().Get("Etag") == "" {
		t.Fatal("the first copy has no validators")
	}

	started, release := make(chan struct{}, 8), make(chan struct{})
	src.onURL = func(ctx context.Context, page, i int64) error {
		if page == 1 && i == 0 {
			started <- struct{}{}
			select {
			case <-release:
			case <-ctx.Done():
			}
		}
		return nil
	}
	defer close(release)
	src.edited = 1
	clk.Add(2 * time.Second)
	if err := sm.Invalidate("p", 1); err != nil {
		t.Fatal(err)
	}
	<-started                                     // the first rebuild reads the edited page
	if err := sm.Invalidate("p", 1); err != nil { // told again while it runs
		t.Fatal(err)
	}
	release <- struct{}{} // the first rebuild ends, outdated
	deadline := time.Now().Add(5 * time.Second)
	for {
		w := get(sm, "/sitemap-p-1.xml")
		if strings.Contains(w.Body.String(), "&amp;edited") {
			if lm := w.Header().Get("Last-Modified"); lm != "" {
				t.Errorf("the outdated build is served with Last-Modified %s", lm)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the outdated build is never served: the copy from before the change is, until a build ends untold")
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, v := range [][2]string{{"If-None-Match", old.Header().Get("Etag")}, {"If-Modified-Since", old.Header().Get("Last-Modified")}} {
		if w := get(sm, "/sitemap-p-1.xml", v[0], v[1]); w.Code != 200 {
			t.Errorf("%s of the copy before the change: %d, want 200", v[0], w.Code)
		}
	}
}
