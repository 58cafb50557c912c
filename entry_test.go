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

// TestNewEntryHeaders: an entry's ETags and Content-Length are made in one
// string and one backing array, yet read as before, and appending to one
// header's values (as Header.Add would) leaves the others as they were.
func TestNewEntryHeaders(t *testing.T) {
	for _, tc := range []struct {
		hash  uint64
		level int
	}{{0, 6}, {0xfedcba9876543210, 9}, {0x1f, -2}, {1 << 63, 1}} {
		gz := make([]byte, 123)
		e := newEntry(gz, tc.hash, tc.level, time.Time{}, time.Time{})
		tag, lv := strconv.FormatUint(tc.hash, 16), strconv.Itoa(tc.level)
		want := [][]string{{`"` + tag + `"`}, {`"` + tag + `-gzip` + lv + `"`}, {`"` + tag + `-gzfile` + lv + `"`}, {"123"}}
		got := [][]string{e.etagPlain, e.etagGzip, e.etagFile, e.gzLen}
		for i := range want {
			if len(got[i]) != 1 || got[i][0] != want[i][0] {
				t.Errorf("hash %x level %d: header %d = %q, want %q", tc.hash, tc.level, i, got[i], want[i])
			}
		}
		_ = append(e.etagPlain, "x")
		if e.etagGzip[0] != want[1][0] {
			t.Errorf("appending to the plain ETag changed the gzip one: %q", e.etagGzip)
		}
	}
	if n := testing.AllocsPerRun(100, func() { newEntry(nil, 0xfedcba9876543210, 6, time.Time{}, time.Time{}) }); n > 3 {
		t.Errorf("newEntry: %v allocations, want at most 3", n)
	}
}
