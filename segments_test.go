package sitemap

import (
	"bytes"
	"context"
	"fmt"
	"iter"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
	"github.com/freshmap/sitemap/internal/xsdcheck"
)

// keyedSource is a SegmentSource over rows by key, as sqlsource cuts
// them: page n holds keys [(n-1)·perPage, n·perPage), cut into segs
// sub-ranges of equal width, each read with its own "query".
type keyedSource struct {
	mu      sync.Mutex
	rows    map[int64]URL
	perPage int64
	pages   int64
	segs    int
	read    atomic.Int64 // rows read by URLs and SegmentURLs
}

func newKeyedSource(pages, perPage int64, segs int) *keyedSource {
	return &keyedSource{rows: make(map[int64]URL), perPage: perPage, pages: pages, segs: segs}
}

func (s *keyedSource) set(key int64, u URL) {
	s.mu.Lock()
	s.rows[key] = u
	s.mu.Unlock()
}

func (s *keyedSource) del(key int64) {
	s.mu.Lock()
	delete(s.rows, key)
	s.mu.Unlock()
}

func (s *keyedSource) has(key int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.rows[key]
	return ok
}

func (s *keyedSource) Pages(context.Context) iter.Seq2[PageInfo, error] {
	return func(yield func(PageInfo, error) bool) {
		for n := int64(1); n <= s.pages; n++ {
			if !yield(PageInfo{Number: n}, nil) {
				return
			}
		}
	}
}

// keys returns the keys present in [lo, hi), in order.
func (s *keyedSource) keys(lo, hi int64) ([]int64, []URL) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ks []int64
	for k := range s.rows {
		if k >= lo && k < hi {
			ks = append(ks, k)
		}
	}
	slices.Sort(ks)
	us := make([]URL, len(ks))
	for i, k := range ks {
		us[i] = s.rows[k]
	}
	return ks, us
}

func (s *keyedSource) bounds(page int64, seg int) (lo, hi int64) {
	w := s.perPage / int64(s.segs)
	lo = (page-1)*s.perPage + int64(seg)*w
	hi = lo + w
	if seg == s.segs-1 {
		hi = page * s.perPage
	}
	return lo, hi
}

func (s *keyedSource) yieldRange(lo, hi int64) iter.Seq2[URL, error] {
	return func(yield func(URL, error) bool) {
		_, us := s.keys(lo, hi)
		for _, u := range us {
			s.read.Add(1)
			if !yield(u, nil) {
				return
			}
		}
	}
}

func (s *keyedSource) URLs(_ context.Context, page int64) iter.Seq2[URL, error] {
	return s.yieldRange((page-1)*s.perPage, page*s.perPage)
}

func (s *keyedSource) Segments() int { return s.segs }

func (s *keyedSource) SegmentURLs(_ context.Context, page int64, seg int) iter.Seq2[URL, error] {
	return s.yieldRange(s.bounds(page, seg))
}

func (s *keyedSource) SegmentOf(key int64) (int64, int) {
	if key < 0 || key >= s.pages*s.perPage {
		return 0, 0
	}
	page := key/s.perPage + 1
	seg := int((key % s.perPage) / (s.perPage / int64(s.segs)))
	return page, min(seg, s.segs-1)
}

var keyedLastmod = time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)

func keyedURL(key int64, v int) URL {
	return URL{Loc: fmt.Sprintf("https://example.com/item/%d?v=%d&x=1", key, v), LastMod: keyedLastmod.Add(time.Duration(v) * time.Minute)}
}

// fullBytes is page n of src built whole by a new Sitemap: what a
// spliced page must equal.
func fullBytes(t *testing.T, src Source, n int64) []byte {
	t.Helper()
	sm := newTestSitemap(t, Config{}, Section{Name: "p", Source: src})
	get(sm, "/sitemap_index.xml")
	w := get(sm, fmt.Sprintf("/sitemap-p-%d.xml.gz", n))
	if w.Code != http.StatusOK {
		t.Fatalf("a full build of page %d: %d %s", n, w.Code, w.Body)
	}
	sm.Close()
	return w.Body.Bytes()
}

// TestSpliceProperty: random inserts, updates and deletes (at segment
// edges too, emptying a segment, growing one past the others), each told
// with InvalidateKeys. After each, the page rebuilt from the segments
// named equals, byte for byte, the page a Sitemap built whole from the
// same rows; it reads no row outside those segments, decompresses to a
// valid <urlset>, and is never a 304 for its old ETag.
func TestSpliceProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(28, 1))
	const pages, perPage, segs = 6, 400, 8
	src := newKeyedSource(pages, perPage, segs)
	for k := int64(0); k < pages*perPage; k++ {
		if r.IntN(3) > 0 {
			src.set(k, keyedURL(k, 0))
		}
	}
	var changes []Change
	var chMu sync.Mutex
	sm := newTestSitemap(t, Config{TTL: time.Hour, OnChange: func(c Change) {
		chMu.Lock()
		changes = append(changes, c)
		chMu.Unlock()
	}}, Section{Name: "p", Source: src})
	get(sm, "/sitemap_index.xml")
	for n := int64(1); n <= pages; n++ {
		get(sm, fmt.Sprintf("/sitemap-p-%d.xml.gz", n))
	}
	steps := 60
	if testing.Short() {
		steps = 20
	}
	width := int64(perPage / segs)
	validated := 0
	for step := range steps {
		page := int64(1 + step%pages)
		path := fmt.Sprintf("/sitemap-p-%d.xml.gz", page)
		k := pageKey(0, page)
		settle(t, sm, k, path) // past a refresh the index's rebuild asked for
		old := get(sm, path)
		before, _ := cachedEntry(sm, k)
		seg := r.IntN(segs)
		lo := (page-1)*perPage + int64(seg)*width
		var keys []int64
		pick := func() int64 {
			switch r.IntN(4) {
			case 0:
				return lo // a segment's first key
			case 1:
				return lo + width - 1 // its last
			}
			return lo + r.Int64N(width)
		}
		var touched []int64 // keys whose URL is now different
		switch op := r.IntN(10); {
		case op < 3: // inserts
			for range 1 + r.IntN(3) {
				k := pick()
				if !src.has(k) {
					src.set(k, keyedURL(k, step+1))
					keys, touched = append(keys, k), append(touched, k)
				}
			}
		case op < 6: // updates
			for range 1 + r.IntN(3) {
				if k := pick(); src.has(k) {
					src.set(k, keyedURL(k, step+1))
					keys, touched = append(keys, k), append(touched, k)
				}
			}
		case op < 8: // deletes
			for range 1 + r.IntN(3) {
				if k := pick(); src.has(k) {
					src.del(k)
					keys = append(keys, k)
				}
			}
		case op == 8: // a segment emptied
			for k := lo; k < lo+width; k++ {
				if src.has(k) {
					src.del(k)
					keys = append(keys, k)
				}
			}
		default: // a segment filled: past the others' mean
			for k := lo; k < lo+width; k++ {
				src.set(k, keyedURL(k, step+1))
				keys = append(keys, k)
			}
		}
		if len(keys) == 0 {
			continue
		}
		spliced, read, t0 := sm.Stats().Splices, src.read.Load(), time.Now()
		if err := sm.InvalidateKeys("p", keys...); err != nil {
			t.Fatal(err)
		}
		for e, _ := cachedEntry(sm, k); e == before || sm.Stats().Splices == spliced; e, _ = cachedEntry(sm, k) {
			if time.Since(t0) > 10*time.Second {
				t.Fatalf("step %d: no new copy after 10 s (Stats %+v)", step, sm.Stats())
			}
			time.Sleep(time.Millisecond)
		}
		w := get(sm, path, "If-None-Match", old.Header().Get("Etag"))
		if sm.Stats().Splices != spliced+1 {
			t.Fatalf("step %d: the page was not spliced (Stats %+v)", step, sm.Stats())
		}
		if got := src.read.Load() - read; got > width {
			t.Errorf("step %d: %d rows read for one segment of %d keys", step, got, width)
		}
		want := fullBytes(t, src, page)
		sameOld := bytes.Equal(old.Body.Bytes(), want)
		switch {
		case w.Code == http.StatusNotModified && !sameOld:
			t.Fatalf("step %d: a 304 for bytes that changed", step)
		case w.Code == http.StatusOK && !bytes.Equal(w.Body.Bytes(), want):
			t.Fatalf("step %d: the spliced page differs from a full build (%d and %d bytes)", step, w.Body.Len(), len(want))
		case w.Code != http.StatusOK && w.Code != http.StatusNotModified:
			t.Fatalf("step %d: %d", step, w.Code)
		}
		xml := testkit.GunzipMember(t, want)
		if n := strings.Count(string(xml), "<url>"); n != len(mustKeys(src, page)) {
			t.Fatalf("step %d: %d <url> entries, want %d", step, n, len(mustKeys(src, page)))
		}
		if xsdcheck.Available() && (step%10 == 0 || len(mustKeys(src, page)) == 0) {
			xsdcheck.URLSet(t, xml)
			validated++
		}
		chMu.Lock()
		last := changes
		changes = nil
		chMu.Unlock()
		for _, k := range touched {
			loc := keyedURL(k, step+1).Loc
			if !changeNames(last, loc) {
				t.Errorf("step %d: OnChange was not told of %s (%+v)", step, loc, last)
			}
		}
	}
	if st := sm.Stats(); st.SpliceFallbacks != 0 {
		t.Errorf("%d pages built whole", st.SpliceFallbacks)
	}
	t.Logf("%d steps, %d spliced, %d validated", steps, sm.Stats().Splices, validated)
}

func mustKeys(s *keyedSource, page int64) []int64 {
	ks, _ := s.keys((page-1)*s.perPage, page*s.perPage)
	return ks
}

func changeNames(cs []Change, loc string) bool {
	for _, c := range cs {
		if slices.Contains(c.Added, loc) || slices.Contains(c.Changed, loc) {
			return true
		}
	}
	return false
}

// settle waits until the cached copy of k (at path) is fresh and current.
func settle(t *testing.T, sm *Sitemap, k docKey, path string) {
	t.Helper()
	for start := time.Now(); ; time.Sleep(time.Millisecond) {
		if sl, ok := sm.docs.cache.Peek(k); ok && sm.docs.fresh(k, sl, sm.docs.now()) && !sl.refreshing.Load() {
			return
		}
		if time.Since(start) > 10*time.Second {
			t.Fatalf("%s is not fresh after 10 s", path)
		}
		get(sm, path)
	}
}

// TestSplicedReaders: a page spliced by InvalidateKeys (one segment of
// four read and compressed again) is decoded to its bytes by the readers
// crawlers and tools use (testkit.Readers: Python, Node, curl, xmllint,
// Chromium).
func TestSplicedReaders(t *testing.T) {
	// Segments of 3,000 URLs: each compressed as units with dictionaries
	// (internal/gzsplice chain.go), some of them kept by the splice.
	src := newKeyedSource(1, 16000, 4)
	for k := range int64(16000) {
		if k%4 != 3 {
			src.set(k, keyedURL(k, 0))
		}
	}
	sm := newTestSitemap(t, Config{TTL: time.Hour}, Section{Name: "p", Source: src})
	get(sm, "/sitemap_index.xml")
	k := pageKey(0, 1)
	settle(t, sm, k, "/sitemap-p-1.xml.gz")
	before, _ := cachedEntry(sm, k)
	src.set(1500, keyedURL(1500, 9))
	src.del(1501)
	src.set(1503, keyedURL(1503, 9))
	if err := sm.InvalidateKeys("p", 1500, 1501, 1503); err != nil {
		t.Fatal(err)
	}
	for e, _ := cachedEntry(sm, k); e == before; e, _ = cachedEntry(sm, k) {
		time.Sleep(time.Millisecond)
	}
	if sm.Stats().Splices != 1 {
		t.Fatalf("not spliced: %+v", sm.Stats())
	}
	e, _ := cachedEntry(sm, k)
	if units := len(e.segs.Segs[1].Z.Units()); units < 2 {
		t.Fatalf("the spliced segment has %d units; the readers are to decode units with dictionaries", units)
	}
	gz := get(sm, "/sitemap-p-1.xml.gz").Body.Bytes()
	if !bytes.Equal(gz, fullBytes(t, src, 1)) {
		t.Fatal("the spliced page differs from a full build")
	}
	esc := strings.NewReplacer("&", "&amp;") // as the DOM shows them
	testkit.Readers(t, gz, testkit.GunzipMember(t, gz), len(mustKeys(src, 1)), esc.Replace(keyedURL(1503, 9).Loc), esc.Replace(keyedURL(15998, 0).Loc))
}

// TestSpliceFallback: a page spliced again and again is read whole
// again once its last whole read is older than TTL (a change nobody told
// is then seen as it would be without InvalidateKeys), counted in
// Stats.SpliceFallbacks; then it is spliced again. InvalidateKeys of a
// Source that cuts no segments is an error.
func TestSpliceFallback(t *testing.T) {
	clk := testkit.NewClock(time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC))
	src := newKeyedSource(1, 400, 4)
	for k := range int64(400) {
		src.set(k, keyedURL(k, 0))
	}
	sm := newTestSitemap(t, Config{TTL: time.Hour, Now: clk.Now}, Section{Name: "p", Source: src}, Section{Name: "s", Source: FromSlice(numbered(3), 0)})
	get(sm, "/sitemap_index.xml")
	k := pageKey(0, 1)
	settle(t, sm, k, "/sitemap-p-1.xml.gz")
	step := func(key int64, v int, splices, fallbacks int64) {
		t.Helper()
		before, _ := cachedEntry(sm, k)
		src.set(key, keyedURL(key, v))
		if err := sm.InvalidateKeys("p", key); err != nil {
			t.Fatal(err)
		}
		for start := time.Now(); ; time.Sleep(time.Millisecond) {
			if e, _ := cachedEntry(sm, k); e != before {
				break
			}
			if time.Since(start) > 10*time.Second {
				t.Fatal("no new copy after 10 s")
			}
		}
		settle(t, sm, k, "/sitemap-p-1.xml.gz")
		if st := sm.Stats(); st.Splices != splices || st.SpliceFallbacks != fallbacks {
			t.Fatalf("key %d: %d splices, %d fallbacks; want %d, %d", key, st.Splices, st.SpliceFallbacks, splices, fallbacks)
		}
		if got := get(sm, "/sitemap-p-1.xml.gz").Body.Bytes(); !bytes.Equal(got, fullBytes(t, src, 1)) {
			t.Fatalf("key %d: the page differs from a full build", key)
		}
	}
	step(5, 1, 1, 0)
	clk.Add(50 * time.Minute)
	step(300, 2, 2, 0) // spliced: the whole read 50 minutes ago is within TTL
	clk.Add(20 * time.Minute)
	step(100, 3, 2, 1) // 70 minutes: read whole
	step(101, 4, 3, 1)
	if err := sm.InvalidateKeys("s", 1); err == nil {
		t.Error("InvalidateKeys of a Source that is no SegmentSource: no error")
	}
	if err := sm.InvalidateKeys("nope", 1); err == nil {
		t.Error("InvalidateKeys of no section: no error")
	}
}
