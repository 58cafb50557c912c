package sitemap

import (
	"bytes"
	"context"
	"errors"
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
	"github.com/freshmap/sitemap/internal/xsdcheck"
)

func TestRepresentations(t *testing.T) {
	start := time.Now().Truncate(time.Second)
	clk := testkit.NewClock(time.Now())
	sm := newTestSitemap(t, Config{Now: clk.Now}, Section{Name: "p", Source: newFake(20, 10), PageSize: 10})
	clk.Add(floorAhead)
	file := get(sm, "/sitemap-p-1.xml.gz", "Accept-Encoding", "gzip")
	enc := get(sm, "/sitemap-p-1.xml", "Accept-Encoding", "br, gzip;q=0.5")
	plain := get(sm, "/sitemap-p-1.xml")
	refused := get(sm, "/sitemap-p-1.xml", "Accept-Encoding", "gzip;q=0, identity")

	if file.Header().Get("Content-Encoding") != "" || file.Header().Get("Vary") != "" {
		t.Errorf(".xml.gz must be a plain gzip file: %v", file.Header())
	}
	if enc.Header().Get("Content-Encoding") != "gzip" || enc.Header().Get("Vary") != "Accept-Encoding" {
		t.Errorf("negotiated gzip: %v", enc.Header())
	}
	for _, w := range []*httptest.ResponseRecorder{plain, refused} {
		if w.Header().Get("Content-Encoding") != "" || w.Header().Get("Vary") != "Accept-Encoding" {
			t.Errorf("identity: %v", w.Header())
		}
	}
	xml := plain.Body.Bytes()
	if !bytes.Equal(testkit.Gunzip(t, file.Body.Bytes()), xml) || !bytes.Equal(testkit.Gunzip(t, enc.Body.Bytes()), xml) || !bytes.Equal(refused.Body.Bytes(), xml) {
		t.Error("representations differ in content")
	}
	xsdcheck.URLSet(t, xml)
	tags := map[string]bool{}
	for _, w := range []*httptest.ResponseRecorder{file, enc, plain} {
		tag := w.Header().Get("Etag")
		if !strings.HasPrefix(tag, `"`) || !strings.HasSuffix(tag, `"`) || strings.HasPrefix(tag, "W/") {
			t.Errorf("ETag %q is not strong and quoted", tag)
		}
		tags[tag] = true
	}
	if len(tags) != 3 {
		t.Errorf("representations must have distinct ETags: %v", tags)
	}
	if refused.Header().Get("Etag") != plain.Header().Get("Etag") {
		t.Error("the identity representation has two ETags")
	}
	// Nothing kept from before the start: the first Last-Modified is
	// after it, whatever the lastmods (clock.go, rule 3).
	if got, _ := http.ParseTime(file.Header().Get("Last-Modified")); got.Before(start) {
		t.Errorf("Last-Modified = %q, want one after the start %v", file.Header().Get("Last-Modified"), start)
	}
}

func TestAcceptsGzip(t *testing.T) {
	for h, want := range map[string]bool{
		"": false, "gzip": true, "GZIP": true, "x-gzip": true, "*": true, "deflate, gzip": true,
		"gzip;q=0": false, "gzip; q=0.000": false, "gzip;q=0.001": true, "gzip;q=1": true,
		"br": false, "identity": false, "gzipper": false, "deflate,br ;q=1": false, " gzip ; q=0.5 ": true,
		// An entry for gzip (or x-gzip) beats "*", in either order.
		"*, gzip;q=0": false, "gzip;q=0, *": false, "*;q=0, gzip": true, "gzip, *;q=0": true,
		"x-gzip;q=0, *": false, "*, x-gzip;q=0.5": true, "br;q=1, *;q=0.1": true,
		"*;q=0": false, "*;q=0.5": true, "identity, *;q=0": false,
		// qvalues: "0" or "1", then "." and up to three digits.
		"gzip;q=0.0": false, "gzip;q=0.": false, "gzip;Q=0": false, "gzip;q=1.": true,
		"gzip;q=1.000": true, "gzip;q=0.5": true, "gzip ;q=0.010": true,
		// A malformed q refuses gzip, and still beats "*".
		"gzip;q=abc": false, "gzip;q=": false, "gzip;q": false, "gzip;q=-1": false, "gzip;q=2": false,
		"gzip;q=1.001": false, "gzip;q=1.5": false, "gzip;q=0.0001": false, "gzip;q=.5": false,
		"gzip;q=00": false, "*, gzip;q=abc": false, "*;q=x": false,
		// Several entries for gzip must all allow it.
		"gzip;q=0, x-gzip": false, "x-gzip, gzip;q=0": false, "gzip, gzip;q=0.5": true, "gzip;q=1;q=0": false,
		// Other parameters (not in the grammar) are ignored; empty entries too.
		"gzip;level=9": true, "gzip;": true, ",,gzip,": true, "br,,": false,
	} {
		if got := respond.AcceptsGzip([]string{h}); got != want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", h, got, want)
		}
	}
	// Several header lines are one list.
	for _, tc := range []struct {
		values []string
		want   bool
	}{
		{[]string{"br", "gzip"}, true},
		{[]string{"*", "gzip;q=0"}, false},
		{[]string{"gzip;q=0", "*"}, false},
		{nil, false},
	} {
		if got := respond.AcceptsGzip(tc.values); got != tc.want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", tc.values, got, tc.want)
		}
	}
}

// TestContentLengthWire: every full response carries its Content-Length,
// the same on GET and HEAD, over a real server: the gzip file, the
// gzip-encoded XML (which http.ServeContent would leave without one), the
// plain XML (streamed) and the index in both encodings. The documents are
// big enough that net/http could not count them itself.
func TestContentLengthWire(t *testing.T) {
	sm := newTestSitemap(t, Config{},
		Section{Name: "p", Source: newFake(20_000, 10_000), PageSize: 10_000},
		Section{Name: "q", Source: newFake(3_000, 1), PageSize: 1}) // 3,000 index entries
	srv := httptest.NewServer(sm)
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	fetch := func(method, p, ae string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+p, nil)
		if ae != "" {
			req.Header.Set("Accept-Encoding", ae)
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		return res, b
	}
	for _, tc := range []struct{ path, ae, ce string }{
		{"/sitemap-p-2.xml.gz", "gzip", ""},
		{"/sitemap-p-2.xml", "gzip", "gzip"},
		{"/sitemap-p-2.xml", "", ""},
		{"/sitemap-p-2.xml", "*, gzip;q=0", ""},
		{"/sitemap_index.xml", "gzip", "gzip"},
		{"/sitemap_index.xml", "", ""},
	} {
		res, body := fetch(http.MethodGet, tc.path, tc.ae)
		if res.StatusCode != 200 || res.Header.Get("Content-Encoding") != tc.ce || len(body) < 4<<10 {
			t.Fatalf("GET %s (%q): %d, Content-Encoding %q, %d bytes", tc.path, tc.ae, res.StatusCode, res.Header.Get("Content-Encoding"), len(body))
		}
		if got := res.Header.Get("Content-Length"); got != strconv.Itoa(len(body)) || len(res.TransferEncoding) != 0 {
			t.Errorf("GET %s (%q): Content-Length %q, Transfer-Encoding %v, for %d bytes", tc.path, tc.ae, got, res.TransferEncoding, len(body))
		}
		head, _ := fetch(http.MethodHead, tc.path, tc.ae)
		if got := head.Header.Get("Content-Length"); head.StatusCode != 200 || got != strconv.Itoa(len(body)) {
			t.Errorf("HEAD %s (%q): %d, Content-Length %q, want %d", tc.path, tc.ae, head.StatusCode, got, len(body))
		}
		// A 304 has none, and a 206 the range's.
		req, _ := http.NewRequest(http.MethodGet, srv.URL+tc.path, nil)
		req.Header.Set("Accept-Encoding", tc.ae)
		req.Header.Set("If-None-Match", res.Header.Get("Etag"))
		nm, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		nm.Body.Close()
		if nm.StatusCode != 304 || nm.Header.Get("Content-Length") != "" {
			t.Errorf("GET %s (%q) If-None-Match: %d, Content-Length %q", tc.path, tc.ae, nm.StatusCode, nm.Header.Get("Content-Length"))
		}
		req.Header.Del("If-None-Match")
		req.Header.Set("Range", "bytes=100-199")
		rng, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		part, _ := io.ReadAll(rng.Body)
		rng.Body.Close()
		if rng.StatusCode != 206 || rng.Header.Get("Content-Length") != "100" || !bytes.Equal(part, body[100:200]) {
			t.Errorf("GET %s (%q) Range: %d, Content-Length %q, %d bytes", tc.path, tc.ae, rng.StatusCode, rng.Header.Get("Content-Length"), len(part))
		}
	}
}

func TestETagDeterministic(t *testing.T) {
	// Two processes (two Sitemaps) serving the same content send the same
	// ETags, so replicas behind a load balancer agree.
	a := newTestSitemap(t, Config{}, Section{Name: "p", Source: newFake(30, 10), PageSize: 10})
	b := newTestSitemap(t, Config{}, Section{Name: "p", Source: newFake(30, 10), PageSize: 10})
	c := newTestSitemap(t, Config{GzipLevel: 9}, Section{Name: "p", Source: newFake(30, 10), PageSize: 10})
	for _, p := range []string{"/sitemap_index.xml", "/sitemap-p-2.xml", "/sitemap-p-2.xml.gz"} {
		if ea, eb := get(a, p).Header().Get("Etag"), get(b, p).Header().Get("Etag"); ea != eb || ea == "" {
			t.Errorf("%s: ETags %q and %q", p, ea, eb)
		}
	}
	// The XML's ETag is the same at any gzip level; the gzip bytes differ
	// by level, and so do their ETags.
	if ea, ec := get(a, "/sitemap-p-2.xml").Header().Get("Etag"), get(c, "/sitemap-p-2.xml").Header().Get("Etag"); ea != ec {
		t.Errorf("plain XML ETags differ by gzip level: %q, %q", ea, ec)
	}
	if ea, ec := get(a, "/sitemap-p-2.xml.gz").Header().Get("Etag"), get(c, "/sitemap-p-2.xml.gz").Header().Get("Etag"); ea == ec {
		t.Errorf("gzip files of levels 6 and 9 share the ETag %q", ea)
	}
	if get(a, "/sitemap-p-1.xml").Header().Get("Etag") == get(a, "/sitemap-p-2.xml").Header().Get("Etag") {
		t.Error("different pages share an ETag")
	}
}

// TestClockWithoutLastMod: files whose URLs carry no lastmod still have a
// Last-Modified, after the process started (nothing kept says when they
// changed), but no <lastmod> in the index: a build time is not a time
// the page changed. A URL's own <lastmod> is never invented.
func TestClockWithoutLastMod(t *testing.T) {
	clk := testkit.NewClock(time.Date(2025, 3, 4, 5, 6, 7, 800, time.UTC))
	sm := newTestSitemap(t, Config{Now: clk.Now}, Section{Source: FromSlice([]URL{{Loc: "https://example.com/a"}}, 0)})
	idx := get(sm, "/sitemap_index.xml")
	if !strings.Contains(idx.Body.String(), "<sitemap><loc>https://example.com/sitemap-1.xml.gz</loc></sitemap>") {
		t.Errorf("index:\n%s", idx.Body)
	}
	clk.Add(time.Hour) // the page is built later: it keeps the clock of the start
	for _, p := range []string{"/sitemap_index.xml", "/sitemap-1.xml.gz"} {
		w := get(sm, p)
		if w.Code != 200 || w.Header().Get("Last-Modified") != "Tue, 04 Mar 2025 05:06:09 GMT" {
			t.Errorf("%s: %d Last-Modified=%q", p, w.Code, w.Header().Get("Last-Modified"))
		}
		if w := get(sm, p, "If-Modified-Since", "Tue, 04 Mar 2025 05:06:09 GMT"); w.Code != http.StatusNotModified {
			t.Errorf("%s: If-Modified-Since the clock = %d, want 304", p, w.Code)
		}
	}
	if page := testkit.Gunzip(t, get(sm, "/sitemap-1.xml.gz").Body.Bytes()); strings.Contains(string(page), "lastmod") {
		t.Errorf("the page invents a URL lastmod:\n%s", page)
	}
}

func TestNotModified(t *testing.T) {
	src := newFake(20, 10)
	clk := testkit.NewClock(time.Now())
	sm := newTestSitemap(t, Config{Now: clk.Now}, Section{Name: "p", Source: src, PageSize: 10})
	clk.Add(floorAhead)
	first := get(sm, "/sitemap-p-1.xml.gz")
	etag, lm := first.Header().Get("Etag"), first.Header().Get("Last-Modified")
	src.onURL = func(context.Context, int64, int64) error { t.Fatal("source called for a cached page"); return nil }
	calls := src.urlsCalls.Load()
	for _, tc := range []struct {
		name string
		hdr  []string
		want int
	}{
		{"matching etag", []string{"If-None-Match", etag}, 304},
		{"etag in list", []string{"If-None-Match", `"x", ` + etag}, 304},
		{"star", []string{"If-None-Match", "*"}, 304},
		{"other etag", []string{"If-None-Match", `"nope"`}, 200},
		{"weak match", []string{"If-None-Match", "W/" + etag}, 304},
		{"malformed", []string{"If-None-Match", ","}, 200},
		{"since last-modified", []string{"If-Modified-Since", lm}, 304},
		{"since earlier", []string{"If-Modified-Since", "Mon, 06 May 2024 08:08:08 GMT"}, 200},
		{"etag takes precedence", []string{"If-None-Match", `"nope"`, "If-Modified-Since", lm}, 200},
		{"gzip-encoded etag on the file", []string{"If-None-Match", strings.TrimSuffix(etag, `-gzfile6"`) + `-gzip6"`}, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := get(sm, "/sitemap-p-1.xml.gz", tc.hdr...)
			if w.Code != tc.want {
				t.Fatalf("status = %d, want %d", w.Code, tc.want)
			}
			if tc.want == 304 && w.Body.Len() != 0 {
				t.Errorf("304 with a body")
			}
		})
	}
	if got := src.urlsCalls.Load(); got != calls {
		t.Errorf("source read %d times for cached pages", got-calls)
	}
	if sm.Stats().NotModified != 5 {
		t.Errorf("NotModified = %d, want 5", sm.Stats().NotModified)
	}
}

func TestHeadAndRange(t *testing.T) {
	sm := newTestSitemap(t, Config{}, Section{Name: "p", Source: newFake(20, 10), PageSize: 10})
	full := get(sm, "/sitemap-p-1.xml.gz")
	head := do(sm, http.MethodHead, "/sitemap-p-1.xml.gz")
	if head.Code != 200 || head.Body.Len() != 0 {
		t.Errorf("HEAD: %d with %d body bytes", head.Code, head.Body.Len())
	}
	if head.Header().Get("Content-Length") != fmt.Sprint(full.Body.Len()) || head.Header().Get("Etag") != full.Header().Get("Etag") {
		t.Errorf("HEAD headers differ from GET: %v vs %v", head.Header(), full.Header())
	}
	rng := get(sm, "/sitemap-p-1.xml.gz", "Range", "bytes=10-19")
	if rng.Code != http.StatusPartialContent || !bytes.Equal(rng.Body.Bytes(), full.Body.Bytes()[10:20]) {
		t.Errorf("Range: %d %q", rng.Code, rng.Body.Bytes())
	}
	if w := get(sm, "/sitemap-p-1.xml.gz", "Range", "bytes=99999-"); w.Code != http.StatusRequestedRangeNotSatisfiable {
		t.Errorf("unsatisfiable Range = %d", w.Code)
	}
}

func TestCacheControlConfig(t *testing.T) {
	for cc, want := range map[string]string{"": defaultCacheControl, "no-cache": "no-cache", "-": ""} {
		sm := newTestSitemap(t, Config{CacheControl: cc}, Section{Source: newFake(1, 10)})
		if got := get(sm, "/sitemap_index.xml").Header().Get("Cache-Control"); got != want {
			t.Errorf("CacheControl %q: header %q, want %q", cc, got, want)
		}
	}
}

func TestHostHeaderPoisoning(t *testing.T) {
	sm := newTestSitemap(t, Config{BaseURL: "https://shop.example.com"}, Section{Source: SourceFunc{
		PagesFunc: func(context.Context) iter.Seq2[PageInfo, error] {
			return func(yield func(PageInfo, error) bool) { yield(PageInfo{Number: 1}, nil) }
		},
		URLsFunc: func(context.Context, int64) iter.Seq2[URL, error] {
			return func(yield func(URL, error) bool) { yield(URL{Loc: "https://shop.example.com/a"}, nil) }
		},
	}})
	h := sm.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }))
	srv := httptest.NewServer(h)
	defer srv.Close()
	for _, p := range []string{"/sitemap_index.xml", "/sitemap-1.xml", "/robots.txt", "/sitemap_index.xml", "/sitemap-1.xml"} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+p, nil)
		req.Host = "evil.example"
		req.Header.Set("X-Forwarded-Host", "evil.example")
		req.Header.Set("X-Forwarded-Proto", "http")
		req.Header.Set("Forwarded", "host=evil.example;proto=http")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("%s: %d", p, res.StatusCode)
		}
		for k, v := range res.Header {
			if strings.Contains(strings.Join(v, " "), "evil") {
				t.Errorf("%s: header %s = %v", p, k, v)
			}
		}
		if bytes.Contains(body, []byte("evil")) || !bytes.Contains(body, []byte("https://shop.example.com/")) {
			t.Errorf("%s: body\n%s", p, body)
		}
	}
	// Nothing cached holds the attacker's host either.
	for _, k := range []docKey{indexKey, pageKey(0, 1)} {
		e, ok := cachedEntry(sm, k)
		if !ok || bytes.Contains(testkit.Gunzip(t, e.gz), []byte("evil")) {
			t.Errorf("cache entry %v: ok=%v", k, ok)
		}
	}
}

func TestWire(t *testing.T) {
	sm := newTestSitemap(t, Config{}, Section{Name: "p", Source: newFake(25, 10), PageSize: 10})
	srv := httptest.NewServer(sm)
	defer srv.Close()
	// Go's client asks for gzip and decodes it transparently: disable that
	// to see the bytes on the wire.
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	fetch := func(method, p string, hdr ...string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+p, nil)
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		return res, b
	}
	res, idx := fetch(http.MethodGet, "/sitemap_index.xml", "Accept-Encoding", "gzip")
	if res.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("index not gzip-encoded: %v", res.Header)
	}
	xsdcheck.Index(t, testkit.Gunzip(t, idx))
	for p := 1; p <= 3; p++ {
		res, b := fetch(http.MethodGet, fmt.Sprintf("/sitemap-p-%d.xml.gz", p))
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/gzip" {
			t.Fatalf("page %d: %d %v", p, res.StatusCode, res.Header)
		}
		if res.Header.Get("Content-Length") != fmt.Sprint(len(b)) {
			t.Errorf("page %d: Content-Length %s for %d bytes", p, res.Header.Get("Content-Length"), len(b))
		}
		xsdcheck.URLSet(t, testkit.Gunzip(t, b))
		etag := res.Header.Get("Etag")
		if res, b := fetch(http.MethodGet, fmt.Sprintf("/sitemap-p-%d.xml.gz", p), "If-None-Match", etag); res.StatusCode != 304 || len(b) != 0 {
			t.Errorf("page %d: conditional GET = %d with %d bytes", p, res.StatusCode, len(b))
		}
		body := b
		if res, b := fetch(http.MethodHead, fmt.Sprintf("/sitemap-p-%d.xml.gz", p)); res.StatusCode != 200 || len(b) != 0 || res.ContentLength != int64(len(body)) {
			t.Errorf("page %d: HEAD = %d with %d bytes, length %d", p, res.StatusCode, len(b), res.ContentLength)
		}
		res, part := fetch(http.MethodGet, fmt.Sprintf("/sitemap-p-%d.xml.gz", p), "Range", "bytes=0-9")
		if res.StatusCode != 206 || len(part) != 10 || !bytes.Equal(part, b[:10]) {
			t.Errorf("page %d: Range = %d %d bytes", p, res.StatusCode, len(part))
		}
	}
}

// TestErrorClearsValidators: an error answer carries no validator or
// cache directive, even when it comes after they were set (here a cached
// page that does not decompress, and a 503 behind a handler that set an
// ETag of its own).
func TestErrorClearsValidators(t *testing.T) {
	sm := newTestSitemap(t, Config{}, Section{Source: newFake(10, 10)})
	if w := get(sm, "/sitemap-1.xml.gz"); w.Code != 200 {
		t.Fatalf("warm-up = %d", w.Code)
	}
	k := pageKey(0, 1)
	e, ok := cachedEntry(sm, k)
	if !ok {
		t.Fatal("page not cached")
	}
	broken := e.renewed(e.built)
	broken.gz = []byte("not gzip")
	sm.docs.cache.Add(k, newSlot(broken, 0))
	w := get(sm, "/sitemap-1.xml")
	if w.Code != http.StatusInternalServerError {
		t.Fatalf("status %d, want 500", w.Code)
	}
	for _, h := range []string{"Etag", "Last-Modified", "Cache-Control", "Content-Encoding", "Vary"} {
		if v := w.Header().Get(h); v != "" {
			t.Errorf("500 carries %s: %q", h, v)
		}
	}

	failing := newFake(10, 10)
	failing.pagesErr = errors.New("down")
	sm = newTestSitemap(t, Config{}, Section{Source: failing})
	set := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"app"`)
		w.Header().Set("Cache-Control", "max-age=86400")
		sm.ServeHTTP(w, r)
	})
	w = get(set, "/sitemap_index.xml")
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Etag") != "" || w.Header().Get("Cache-Control") != "" {
		t.Errorf("503: status %d, ETag %q, Cache-Control %q", w.Code, w.Header().Get("Etag"), w.Header().Get("Cache-Control"))
	}
}

// TestMultiRange: a Range of several ranges, overlapping or not, is
// answered with the whole file (200), in every representation: served as
// asked, a few hundred one-byte ranges cost many times the file in part
// headers. One range is still a 206.
func TestMultiRange(t *testing.T) {
	sm := newTestSitemap(t, Config{FeedEntries: 10}, Section{Name: "p", Source: newRecent(recentURLs(30)...)})
	var many strings.Builder
	for i := range 300 {
		fmt.Fprintf(&many, ",%d-%d", i%40, i%40)
	}
	for _, path := range []string{"/sitemap-p-1.xml.gz", "/sitemap-p-1.xml", "/sitemap-p-1.txt", "/sitemap_index.xml", "/sitemap-p.atom"} {
		for _, ae := range []string{"gzip", "identity"} {
			full := get(sm, path, "Accept-Encoding", ae)
			if full.Code != 200 {
				t.Fatalf("%s: %d", path, full.Code)
			}
			for _, rng := range []string{"bytes=0-10,5-20", "bytes=0-0,0-0", "bytes=0-5,10-15", "bytes=0-0" + many.String()} {
				w := get(sm, path, "Accept-Encoding", ae, "Range", rng)
				if w.Code != 200 || !bytes.Equal(w.Body.Bytes(), full.Body.Bytes()) {
					t.Errorf("%s (%s) Range %.30s: %d with %d bytes, want 200 with the file's %d", path, ae, rng, w.Code, w.Body.Len(), full.Body.Len())
				}
			}
			if w := get(sm, path, "Accept-Encoding", ae, "Range", "bytes=2-5"); w.Code != http.StatusPartialContent || !bytes.Equal(w.Body.Bytes(), full.Body.Bytes()[2:6]) {
				t.Errorf("%s (%s) one range: %d %q", path, ae, w.Code, w.Body)
			}
		}
	}
}
