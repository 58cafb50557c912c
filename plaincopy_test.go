package sitemap

import (
	"bytes"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"

	"github.com/freshmap/sitemap/internal/lrucache"
)

// makeCopy asks for path as plain XML until e, its entry, has its plain
// copy, failing t if it takes more than plainHot+1 full GETs.
func makeCopy(t testing.TB, sm *Sitemap, path string, e *entry) *plainCopy {
	t.Helper()
	for range plainHot + 1 {
		if w := get(sm, path); w.Code != 200 {
			t.Fatalf("GET %s: %d", path, w.Code)
		}
	}
	p := e.plain.Load()
	if p == nil {
		t.Fatalf("%s has no plain copy after %d GETs", path, plainHot+1)
	}
	return p
}

// TestPlainCopy: a page asked for as plain XML more than plainHot times
// gets a plain copy, made in one decompression and counted in the cache;
// from then on a plain response decompresses nothing and is the same
// response, header for header. HEAD, 304 and ranges do not count. A new
// build of other bytes drops the copy with its entry: the new bytes are
// served, under their own ETag, never the copy of the old.
func TestPlainCopy(t *testing.T) {
	src := newFake(20_000, 20_000)
	clk := testkit.NewClock(time.Now()) // one Date for every response compared
	sm := newTestSitemap(t, Config{TTL: time.Hour, Now: clk.Now}, Section{Source: src, PageSize: 20_000})
	clk.Add(floorAhead) // the first clock is the Date: served as Last-Modified
	if w := get(sm, "/sitemap-1.xml.gz"); w.Code != 200 {
		t.Fatalf("warm-up: %d", w.Code)
	}
	e, _ := cachedEntry(sm, pageKey(0, 1))
	xml := testkit.Gunzip(t, e.gz)
	for _, hdr := range [][]string{{"If-None-Match", e.etagPlain[0]}, {"Range", "bytes=0-99"}, {"If-Match", `"other"`}} {
		get(sm, "/sitemap-1.xml", hdr...)
		do(sm, http.MethodHead, "/sitemap-1.xml")
	}
	first := get(sm, "/sitemap-1.xml")
	_, cached := sm.docs.cache.Usage()
	for i := 2; i <= plainHot+3; i++ {
		before := inflationNow()
		w := get(sm, "/sitemap-1.xml")
		if w.Code != 200 || !bytes.Equal(w.Body.Bytes(), xml) {
			t.Fatalf("GET %d: status %d, %d bytes, want the %d bytes of XML", i, w.Code, w.Body.Len(), len(xml))
		}
		if !maps.EqualFunc(w.Header(), first.Header(), slices.Equal) {
			t.Errorf("GET %d: headers\n%v\nwant\n%v", i, w.Header(), first.Header())
		}
		want := inflation{1, e.size} // streamed, or the copy made
		if i > plainHot+1 {
			want = inflation{}
		}
		if d := before.since(); d != want {
			t.Errorf("GET %d: decompression %+v, want %+v", i, d, want)
		}
		if got := e.plain.Load() != nil; got != (i > plainHot) {
			t.Errorf("GET %d: plain copy %v", i, got)
		}
	}
	if _, b := sm.docs.cache.Usage(); b != cached+e.size {
		t.Errorf("cache holds %d bytes, want %d + the copy's %d", b, cached, e.size)
	}
	for _, tc := range [][]string{{"Range", "bytes=100-199"}, {"If-None-Match", e.etagPlain[0]}} {
		before := inflationNow()
		w := get(sm, "/sitemap-1.xml", tc...)
		if want := doFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("ETag", e.etagPlain[0])
			http.ServeContent(w, r, "", e.lastMod, bytes.NewReader(xml))
		}, http.MethodGet, "/sitemap-1.xml", tc...); w.Code != want.Code || !bytes.Equal(w.Body.Bytes(), want.Body.Bytes()) {
			t.Errorf("%v: status %d, %d bytes; want %d, %d bytes", tc, w.Code, w.Body.Len(), want.Code, want.Body.Len())
		}
		if d := before.since(); d != (inflation{}) {
			t.Errorf("%v: decompressed %+v", tc, d)
		}
	}

	src.edited = 1
	if err := sm.Invalidate("", 1); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		get(sm, "/sitemap-1.xml") // the old bytes, while the new are built
		if n, ok := cachedEntry(sm, pageKey(0, 1)); ok && n != e {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the page was not rebuilt")
		}
		time.Sleep(time.Millisecond)
	}
	n, _ := cachedEntry(sm, pageKey(0, 1))
	w := get(sm, "/sitemap-1.xml")
	if got := w.Header().Get("Etag"); got != n.etagPlain[0] || got == e.etagPlain[0] ||
		!bytes.Equal(w.Body.Bytes(), testkit.Gunzip(t, n.gz)) || !strings.Contains(w.Body.String(), "&amp;edited") {
		t.Fatalf("after the rebuild: ETag %s (old %s), %d bytes", got, e.etagPlain[0], w.Body.Len())
	}
	if n.plain.Load() != nil {
		t.Error("the new entry has a plain copy after one GET")
	}
}

// TestPlainCopyBudget: plain copies take at most their share of the byte
// budget, and the budget holds with them; the cache's count of their
// bytes stays the sum over the cached entries through copies made,
// declined and evicted. A budget whose share is smaller than a page makes
// no copy: each response decompresses, as without copies.
func TestPlainCopyBudget(t *testing.T) {
	const pages, size = 6, 2000
	probe := newTestSitemap(t, Config{}, Section{Source: newFake(size, size), PageSize: size})
	get(probe, "/sitemap-1.xml.gz")
	pe, _ := cachedEntry(probe, pageKey(0, 1))
	budget := lrucache.CopyShare * (pe.size*5/2 + 10<<10) // two copies fit its share, not three
	sm := newTestSitemap(t, Config{CacheBytes: budget}, Section{Source: newFake(pages*size, size), PageSize: size})
	c := sm.docs.cache
	check := func(when string) (copies int) {
		t.Helper()
		var sum int64
		for _, k := range c.Keys() {
			sl, _ := c.Peek(k)
			sum += sl.e.copyCost()
			if sl.e.plain.Load() != nil {
				copies++
			}
		}
		bytes, budget, held, copyBudget := c.Budget()
		if bytes > budget || held > copyBudget || held != sum {
			t.Fatalf("%s: %d bytes of %d, copies %d bytes of %d, cached entries' copies %d bytes",
				when, bytes, budget, held, copyBudget, sum)
		}
		return copies
	}
	for p := 1; p <= pages; p++ {
		for i := range plainHot + 2 {
			path := fmt.Sprintf("/sitemap-%d.xml", p)
			if w := get(sm, path); w.Code != 200 || !strings.HasSuffix(w.Body.String(), "</urlset>\n") {
				t.Fatalf("%s: status %d, %d bytes", path, w.Code, w.Body.Len())
			}
			check(fmt.Sprintf("page %d, GET %d", p, i+1))
		}
	}
	if n := check("all pages"); n != 2 {
		t.Errorf("%d plain copies, want 2", n)
	}
	// Evicting a page with a copy makes room for another's.
	c.Remove(pageKey(0, 1))
	check("page 1 removed")
	get(sm, "/sitemap-6.xml")
	if n := check("page 6 again"); n != 2 {
		t.Errorf("%d plain copies after an eviction, want 2", n)
	}
	if e, _ := cachedEntry(sm, pageKey(0, 6)); e.plain.Load() == nil {
		t.Error("page 6 got no copy once there was room")
	}

	small := newTestSitemap(t, Config{CacheBytes: lrucache.CopyShare * pe.size / 2}, Section{Source: newFake(size, size), PageSize: size})
	get(small, "/sitemap-1.xml.gz")
	e, _ := cachedEntry(small, pageKey(0, 1))
	for i := range plainHot + 3 {
		before := inflationNow()
		if w := get(small, "/sitemap-1.xml"); w.Code != 200 || int64(w.Body.Len()) != pe.size {
			t.Fatalf("small budget, GET %d: status %d", i+1, w.Code)
		}
		if d := before.since(); d != (inflation{1, pe.size}) {
			t.Errorf("small budget, GET %d: decompression %+v, want one stream", i+1, d)
		}
	}
	if e.plain.Load() != nil {
		t.Error("a copy larger than its share of the budget was made")
	}
}

// TestPlainCopyCorrupt: a cached page that fails to decompress gets no
// plain copy; its response fails as TestPlainCorrupt says.
func TestPlainCopyCorrupt(t *testing.T) {
	sm, e, _ := plainPage(t, 20_000, 60)
	plainCopies(sm, true)
	crc := bytes.Clone(e.gz)
	crc[len(crc)-8] ^= 0xff
	for name, gz := range map[string][]byte{"bad header": []byte("not gzip at all, not at all"), "truncated": e.gz[:len(e.gz)/2], "checksum": crc} {
		t.Run(name, func(t *testing.T) {
			b := e.renewed(e.built)
			b.gz = gz
			b.plainGets.Store(plainHot) // the next full GET makes the copy
			sm.docs.cache.Add(pageKey(0, 1), newSlot(b, 0))
			_, cached := sm.docs.cache.Usage()
			w, p := serveRecover(sm, mustRequest("/sitemap-1.xml"))
			if p == nil && w.Code != http.StatusInternalServerError || p != nil && p != http.ErrAbortHandler {
				t.Errorf("status %d, panic %v; want 500 or http.ErrAbortHandler", w.Code, p)
			}
			if b.plain.Load() != nil {
				t.Error("a plain copy was made of bytes that do not decompress")
			}
			if _, now := sm.docs.cache.Usage(); now != cached {
				t.Errorf("cache holds %d bytes, %d before", now, cached)
			}
		})
	}
}
