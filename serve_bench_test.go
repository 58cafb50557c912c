package sitemap

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/respond"
	"github.com/freshmap/sitemap/internal/testkit"
)

// benchSource yields n product URLs on page 1.
func benchSource(n int) Source {
	lastmod := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	return SourceFunc{
		PagesFunc: func(context.Context) iter.Seq2[PageInfo, error] {
			return func(yield func(PageInfo, error) bool) { yield(PageInfo{Number: 1, LastMod: lastmod}, nil) }
		},
		URLsFunc: func(_ context.Context, page int64) iter.Seq2[URL, error] {
			return func(yield func(URL, error) bool) {
				if page != 1 {
					return
				}
				for i := range n {
					u := URL{Loc: fmt.Sprintf("https://shop.example.com/products/blue-widget-%d", i), LastMod: lastmod}
					if !yield(u, nil) {
						return
					}
				}
			}
		},
	}
}

// discard is a ResponseWriter that keeps only the status; reset before use.
type discard struct {
	h    http.Header
	code int
}

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(p []byte) (int, error) { return len(p), nil }
func (d *discard) WriteHeader(code int)        { d.code = code }

// serveLoop is the loop of a serving benchmark: h serves r into w, b.N
// times, with n bytes a response (none counted if 0); it fails b unless
// the last answer's status was want.
func serveLoop(b *testing.B, h http.Handler, r *http.Request, w *discard, n int64, want int) {
	b.ReportAllocs()
	if n > 0 {
		b.SetBytes(n)
	}
	for b.Loop() {
		clear(w.h)
		w.code = 0
		h.ServeHTTP(w, r)
	}
	if got := cmp.Or(w.code, http.StatusOK); got != want {
		b.Fatalf("status %d, want %d", got, want)
	}
}

func cachedBench(b *testing.B, urls int) (*Sitemap, *entry) {
	return cachedSitemap(b, Config{BaseURL: "https://shop.example.com", TTL: time.Hour}, Section{Source: benchSource(urls)})
}

// cachedSitemap returns a Sitemap of cfg and sec whose page 1 is cached,
// and that page's entry; it is closed when b ends.
func cachedSitemap(b *testing.B, cfg Config, sec Section) (*Sitemap, *entry) {
	sm, err := New(cfg, sec)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { sm.Close() })
	w := &discard{h: http.Header{}}
	sm.ServeHTTP(w, mustRequest("/sitemap-1.xml.gz"))
	e, ok := cachedEntry(sm, pageKey(0, 1))
	if !ok || w.code != 0 && w.code != 200 {
		b.Fatalf("page not cached: %d", w.code)
	}
	return sm, e
}

func mustRequest(path string, hdr ...string) *http.Request {
	r, err := http.NewRequest(http.MethodGet, "http://shop.example.com"+path, nil)
	if err != nil {
		panic(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	return r
}

// BenchmarkServeCached serves a cached 50,000-URL page (.xml.gz).
// Compare with BenchmarkServeContentBaseline: the same bytes through
// http.ServeContent alone.
func BenchmarkServeCached(b *testing.B) {
	sm, e := cachedBench(b, MaxURLs)
	r := mustRequest("/sitemap-1.xml.gz")
	serveLoop(b, sm, r, &discard{h: http.Header{}}, int64(len(e.gz)), http.StatusOK)
}

// BenchmarkServePlainXML serves the same cached page as
// BenchmarkServeCached as plain XML (/sitemap-1.xml, no Accept-Encoding):
// decompressed as it is written (streamed), or from its plain copy
// (copy). B/op is the bytes allocated per request.
func BenchmarkServePlainXML(b *testing.B) {
	for _, copies := range []bool{false, true} {
		b.Run(map[bool]string{false: "streamed", true: "copy"}[copies], func(b *testing.B) {
			sm, e := cachedBench(b, MaxURLs)
			plainCopies(sm, copies)
			r := mustRequest("/sitemap-1.xml")
			w := &discard{h: http.Header{}}
			if copies {
				makeCopy(b, sm, "/sitemap-1.xml", e)
			}
			serveLoop(b, sm, r, w, e.size, http.StatusOK)
			if w.h.Get("Content-Encoding") != "" || (e.plain.Load() != nil) != copies {
				b.Fatal(w.h)
			}
		})
	}
}

func BenchmarkServeContentBaseline(b *testing.B) {
	_, e := cachedBench(b, MaxURLs)
	r := mustRequest("/sitemap-1.xml.gz")
	w := &discard{h: http.Header{}}
	body, mod := e.gz, e.lastMod
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		clear(w.h)
		w.h.Set("Content-Type", "application/gzip")
		w.h.Set("Etag", e.etagFile[0])
		http.ServeContent(w, r, "", mod, bytes.NewReader(body))
	}
}

// BenchmarkNotModified answers a conditional request on a cached page.
func BenchmarkNotModified(b *testing.B) {
	sm, e := cachedBench(b, MaxURLs)
	r := mustRequest("/sitemap-1.xml.gz", "If-None-Match", e.etagFile[0])
	serveLoop(b, sm, r, &discard{h: http.Header{}}, 0, http.StatusNotModified)
}

// BenchmarkPassThrough sends a request the middleware does not serve
// through it; BenchmarkPassThroughBaseline calls the bare handler.
func BenchmarkPassThrough(b *testing.B) {
	sm, err := New(Config{BaseURL: "https://shop.example.com"}, Section{Source: benchSource(1)})
	if err != nil {
		b.Fatal(err)
	}
	defer sm.Close()
	benchHandler(b, sm.Handler(appHandler))
}

func BenchmarkPassThroughBaseline(b *testing.B) {
	benchHandler(b, appHandler)
}

var appBody = []byte("<!doctype html><title>product</title><p>a product page</p>")

var appHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header()["Content-Type"] = []string{"text/html; charset=utf-8"}
	w.Write(appBody)
})

func benchHandler(b *testing.B, h http.Handler) {
	r := mustRequest("/products/blue-widget-42")
	w := &discard{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		h.ServeHTTP(w, r)
	}
}

// BenchmarkServeBuild measures a cold page served end to end: the Source
// yields prepared URLs (the same as BenchmarkGzipBaseline's, so the same
// bytes), which are checked, written as XML, compressed, hashed and
// served as the .xml.gz file. The index stays cached, as it would be; only
// the page is dropped from the cache before each request. SetBytes is the
// XML's length, so MB/s compares with BenchmarkGzipBaseline's directly.
func BenchmarkServeBuild(b *testing.B) {
	for _, n := range benchSizes {
		b.Run("urls="+strconv.Itoa(n), func(b *testing.B) { serveBuild(b, n) })
	}
}

// serveBuild is BenchmarkServeBuild at n URLs.
func serveBuild(b *testing.B, n int) {
	_, _, doc := benchDoc(b, n)
	sm, err := New(Config{BaseURL: benchBase}, Section{Source: FromSlice(benchURLs(n), 0)})
	if err != nil {
		b.Fatal(err)
	}
	defer sm.Close()
	r := mustRequest("/sitemap-1.xml.gz")
	w := &discard{h: http.Header{}}
	sm.ServeHTTP(w, r) // the index, and the page once
	page := pageKey(0, 1)
	b.ReportAllocs()
	b.SetBytes(int64(len(doc)))
	cpu := testkit.StartCPU(b)
	for b.Loop() {
		sm.docs.cache.Remove(page)
		clear(w.h)
		w.code = 0
		sm.ServeHTTP(w, r)
		if w.code != 0 && w.code != http.StatusOK {
			b.Fatalf("status %d", w.code)
		}
	}
	cpu.Report()
}

// loopbackBench serves h on a real loopback server and fetches path with
// a keep-alive client, reading each body to its end.
func loopbackBench(b *testing.B, h http.Handler, path string, size int64, hdr ...string) {
	srv := httptest.NewServer(h)
	defer srv.Close()
	tr := &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 1}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	buf := make([]byte, 256<<10)
	b.ReportAllocs()
	b.SetBytes(size)
	for b.Loop() {
		res, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.CopyBuffer(io.Discard, res.Body, buf)
		res.Body.Close()
		if err != nil || n != size || res.StatusCode != http.StatusOK {
			b.Fatalf("status %d, %d bytes of %d: %v", res.StatusCode, n, size, err)
		}
	}
}

// BenchmarkServePlainWrites serves the plain XML of a cached 50,000-URL
// page on loopback, decompressed as it is written with writes of each
// size, and from its plain copy (copy), beside
// BenchmarkServePlainWritesBaseline, which writes the same XML from memory
// in one write.
func BenchmarkServePlainWrites(b *testing.B) {
	defer func(n int) { respond.PlainWriteSize = n }(respond.PlainWriteSize)
	for _, kib := range []int{16, 32, 64, 128, 256, 512} {
		b.Run("KiB="+strconv.Itoa(kib), func(b *testing.B) {
			respond.PlainWriteSize = kib << 10
			sm, e := cachedBench(b, MaxURLs)
			plainCopies(sm, false)
			loopbackBench(b, sm, "/sitemap-1.xml", e.size)
		})
	}
	b.Run("copy", func(b *testing.B) {
		sm, e := cachedBench(b, MaxURLs)
		makeCopy(b, sm, "/sitemap-1.xml", e)
		loopbackBench(b, sm, "/sitemap-1.xml", e.size)
	})
}

func BenchmarkServePlainWritesBaseline(b *testing.B) {
	_, e := cachedBench(b, MaxURLs)
	xml := testkit.Gunzip(b, e.gz)
	loopbackBench(b, writeBytes(xml, e.etagPlain[0], "application/xml; charset=utf-8"), "/sitemap-1.xml", e.size)
}

// BenchmarkServeCachedLoopback serves a cached 50,000-URL page (.xml.gz)
// on a real loopback server, beside BenchmarkServeCachedLoopbackBaseline,
// a handler that writes the same bytes with one w.Write: the ceiling.
func BenchmarkServeCachedLoopback(b *testing.B) {
	sm, e := cachedBench(b, MaxURLs)
	loopbackBench(b, sm, "/sitemap-1.xml.gz", int64(len(e.gz)))
}

func BenchmarkServeCachedLoopbackBaseline(b *testing.B) {
	_, e := cachedBench(b, MaxURLs)
	loopbackBench(b, writeBytes(e.gz, e.etagFile[0], "application/gzip"), "/sitemap-1.xml.gz", int64(len(e.gz)))
}

// writeBytes is the ceiling: a handler that sets fixed headers and writes
// body in one w.Write.
func writeBytes(body []byte, etag, ct string) http.Handler {
	length := strconv.Itoa(len(body))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["Content-Type"] = []string{ct}
		h["Etag"] = []string{etag}
		h["Content-Length"] = []string{length}
		w.Write(body)
	})
}

// BenchmarkServeIndex serves the cached index, gzip-encoded as crawlers
// ask for it, and robots.txt, to a writer that keeps nothing: what a
// small response costs beyond its bytes.
func BenchmarkServeIndex(b *testing.B) {
	sm, _ := cachedBench(b, 1000)
	for _, path := range []string{"/sitemap_index.xml", "/robots.txt"} {
		b.Run(strings.TrimPrefix(path, "/"), func(b *testing.B) {
			serveLoop(b, sm, mustRequest(path, "Accept-Encoding", "gzip"), &discard{h: http.Header{}}, 0, http.StatusOK)
		})
	}
}

// benchSegSource is a SegmentSource of one page of benchURLs, keys 0 to
// n-1, cut into segments of 2,500 keys, as sqlsource cuts a page by key
// sub-ranges; read counts the URLs it yields.
type benchSegSource struct {
	urls []URL
	read int
	keys int // a segment's keys: benchSegKeys unless set
}

const benchSegKeys = 2500

func (s *benchSegSource) width() int { return cmp.Or(s.keys, benchSegKeys) }

func (s *benchSegSource) Pages(context.Context) iter.Seq2[PageInfo, error] {
	return func(yield func(PageInfo, error) bool) { yield(PageInfo{Number: 1}, nil) }
}

func (s *benchSegSource) yieldRange(lo, hi int) iter.Seq2[URL, error] {
	return func(yield func(URL, error) bool) {
		for i := lo; i < min(hi, len(s.urls)); i++ {
			s.read++
			if !yield(s.urls[i], nil) {
				return
			}
		}
	}
}

func (s *benchSegSource) URLs(_ context.Context, page int64) iter.Seq2[URL, error] {
	if page != 1 {
		return s.yieldRange(0, 0)
	}
	return s.yieldRange(0, len(s.urls))
}

func (s *benchSegSource) Segments() int { return (len(s.urls) + s.width() - 1) / s.width() }

func (s *benchSegSource) SegmentURLs(_ context.Context, page int64, seg int) iter.Seq2[URL, error] {
	if page != 1 {
		return s.yieldRange(0, 0)
	}
	return s.yieldRange(seg*s.width(), (seg+1)*s.width())
}

func (s *benchSegSource) SegmentOf(key int64) (int64, int) {
	if key < 0 || key >= int64(len(s.urls)) {
		return 0, 0
	}
	return 1, int(key) / s.width()
}

// builtSegPage returns a Sitemap of src, closed when b ends, its one
// page's copy, built, and its page builder, for a benchmark to rebuild
// the page through.
func builtSegPage(b *testing.B, src *benchSegSource) (*Sitemap, *entry, pageBuilder) {
	b.Helper()
	sm, err := New(Config{BaseURL: benchBase, TTL: 24 * time.Hour}, Section{Source: src})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { sm.Close() })
	e, err := sm.docs.load(pageKey(0, 1), nil)
	if err != nil {
		b.Fatal(err)
	}
	return sm, e, sm.docs.builders[docPage].(pageBuilder)
}

// BenchmarkSplice rebuilds a 50,000-URL page of a SegmentSource after a
// change, through the page builder as a background rebuild runs it:
// cold, with no previous copy (every segment compressed: the cost of
// BenchmarkServeBuild's build); rebuild, the page read and encoded whole
// with the previous copy's segments reused where their bytes did not
// change (any Source's rebuild; one URL changed); one, one URL changed
// and told with its key (InvalidateKeys: one segment read, encoded and
// compressed again, the others kept); ten, ten URLs in ten segments; and
// ten with segments of 1,000 keys (ten-1000: 50 segments a page, not 20).
// rows/op is the Source's URLs read a build.
func BenchmarkSplice(b *testing.B) {
	const n = 50_000
	for _, mode := range []string{"cold", "rebuild", "one", "ten", "ten-1000"} {
		b.Run("urls="+strconv.Itoa(n)+"/"+mode, func(b *testing.B) {
			_, _, doc := benchDoc(b, n)
			src := &benchSegSource{urls: benchURLs(n)}
			if mode == "ten-1000" {
				src.keys = 1000
			}
			sm, old, pb := builtSegPage(b, src)
			k := pageKey(0, 1)
			keys := []int64{12_345}
			if mode == "ten" || mode == "ten-1000" {
				keys = keys[:0]
				for i := range 10 {
					keys = append(keys, int64(i*2*benchSegKeys+7*i))
				}
			}
			src.read = 0
			round := 0
			b.ReportAllocs()
			b.SetBytes(int64(len(doc)))
			cpu := testkit.StartCPU(b)
			for b.Loop() {
				round++
				for _, key := range keys {
					src.urls[key].LastMod = src.urls[key].LastMod.Add(time.Second)
				}
				j := job{key: k, old: old, current: true, prev: old}
				switch mode {
				case "cold":
					j.old, j.prev = nil, nil
				case "one", "ten", "ten-1000":
					segs := make(map[docKey][]int)
					for _, key := range keys {
						p, seg := src.SegmentOf(key)
						segs[pageKey(0, p)] = append(segs[pageKey(0, p)], seg)
					}
					for k, ss := range segs {
						pb.marks.Mark(k, ss)
					}
				}
				e, _, err := pb.build(b.Context(), j)
				if err != nil {
					b.Fatal(err)
				}
				old = e
			}
			cpu.Report()
			b.ReportMetric(float64(src.read)/float64(round), "rows/op")
			b.ReportMetric(float64(len(old.gz)), "gz-bytes")
			if mode != "cold" && mode != "rebuild" {
				if st := sm.Stats(); st.Splices < int64(round) || st.SpliceFallbacks > 0 {
					b.Fatalf("%d splices, %d fallbacks in %d builds", st.Splices, st.SpliceFallbacks, round)
				}
			}
		})
	}
}
