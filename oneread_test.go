package sitemap

import (
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

// TestOneChangeOneRead: a change that moves a page's Version, told by
// Invalidate, is read once: the index built after the rebuild sees the
// new Version and takes it as the change Invalidate told of, not as
// another (which read the page a second time).
func TestOneChangeOneRead(t *testing.T) {
	src := newFake(20, 10)
	src.version = "v1"
	sm := newTestSitemap(t, Config{TTL: time.Hour}, Section{Source: src})
	get(sm, "/sitemap_index.xml")
	get(sm, "/sitemap-1.xml.gz")
	reads := src.urlsCalls.Load()

	src.version, src.edited = "v2", 1 // the application's write, then its Invalidate
	if err := sm.Invalidate("", 1); err != nil {
		t.Fatal(err)
	}
	builds := sm.Stats().Builds
	waitFor(t, func() bool { return sm.Stats().Builds >= builds+2 }) // the page, then the index
	for range 3 {
		get(sm, "/sitemap_index.xml")
		get(sm, "/sitemap-1.xml.gz")
		time.Sleep(20 * time.Millisecond)
	}
	if got := src.urlsCalls.Load() - reads; got != 1 {
		t.Errorf("%d reads of the page for one change, want 1", got)
	}
}

// TestFleetOneChangeOneRead: the same across three replicas sharing a
// Store: one change told by one replica's Invalidate is read once in the
// whole fleet, whichever replicas then serve the page and the index.
func TestFleetOneChangeOneRead(t *testing.T) {
	src := newFake(20, 10)
	src.version = "v1"
	st := newMemStore()
	var sms []*Sitemap
	for range 3 {
		sms = append(sms, newTestSitemap(t, Config{TTL: time.Hour, Store: st}, Section{Source: src}))
	}
	for _, sm := range sms {
		get(sm, "/sitemap_index.xml")
		get(sm, "/sitemap-1.xml.gz")
	}
	if got := src.urlsCalls.Load(); got != 1 {
		t.Fatalf("%d reads of the page to serve it from three replicas, want 1", got)
	}
	reads := src.urlsCalls.Load()

	src.version, src.edited = "v2", 1
	if err := sms[0].Invalidate("", 1); err != nil {
		t.Fatal(err)
	}
	builds := sms[0].Stats().Builds
	waitFor(t, func() bool { return sms[0].Stats().Builds >= builds+2 })
	for range 3 {
		for _, sm := range sms {
			get(sm, "/sitemap_index.xml")
			get(sm, "/sitemap-1.xml.gz")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := src.urlsCalls.Load() - reads; got != 1 {
		t.Errorf("%d reads of the page in the fleet for one change, want 1", got)
	}
	for i, sm := range sms {
		if w := get(sm, "/sitemap-1.xml.gz"); !strings.Contains(string(testkit.Gunzip(t, w.Body.Bytes())), "edited") {
			t.Errorf("replica %d does not serve the changed page", i)
		}
	}
}
