package sitemap

import (
	"strconv"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

// TestEntrySize: an entry knows its XML's length and its gzip length
// without decompressing, for pages and for the index, and keeps them when
// renewed.
func TestEntrySize(t *testing.T) {
	sm := newTestSitemap(t, Config{}, Section{Name: "p", Source: newFake(25, 10), PageSize: 10})
	get(sm, "/sitemap_index.xml")
	get(sm, "/sitemap-p-3.xml.gz")
	for _, k := range []docKey{indexKey, pageKey(0, 3)} {
		e, ok := cachedEntry(sm, k)
		if !ok {
			t.Fatalf("%v not cached", k)
		}
		for _, e := range []*entry{e, e.renewed(time.Now())} {
			if xml := testkit.Gunzip(t, e.gz); e.size != int64(len(xml)) || e.size == 0 {
				t.Errorf("%v: size %d, XML of %d bytes", k, e.size, len(xml))
			}
			if len(e.gzLen) != 1 || e.gzLen[0] != strconv.Itoa(len(e.gz)) {
				t.Errorf("%v: gzLen %q for %d bytes", k, e.gzLen, len(e.gz))
			}
		}
	}
	if n := gzipSize([]byte("short")); n != 0 {
		t.Errorf("gzipSize of 5 bytes = %d", n)
	}
}
