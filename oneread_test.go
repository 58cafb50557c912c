package sitemap

import (
	"testing"
	"time"
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
