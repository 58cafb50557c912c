package sitemap

import (
	"bytes"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/respond"
	"github.com/freshmap/sitemap/internal/testkit"
)

// oldServeEntry is serveEntry as it was before serveCached: the same
// headers, then http.ServeContent over a bytes.Reader of the body (the
// plain XML for the plain representation), with the Content-Length of a
// gzip-encoded 200 added as countingWriter added it.
func oldServeEntry(w http.ResponseWriter, r *http.Request, e *entry, xml []byte, path string, cacheControl []string) {
	h := w.Header()
	h["X-Robots-Tag"] = respond.HdrNoindex
	h["Cache-Control"] = cacheControl
	q := respond.ReadReqHeader(r.Header, false)
	r = wholeIfMultiRange(r, &q)
	body := e.gz
	var length []string
	switch {
	case strings.HasSuffix(path, ".gz"):
		h["Content-Type"] = respond.HdrGzipCT
		h["Etag"] = e.etagFile
	case respond.AcceptsGzip(q.Accept):
		h["Content-Type"] = respond.HdrXMLCT
		h["Vary"] = respond.HdrVary
		h["Content-Encoding"] = respond.HdrGzip
		h["Etag"] = e.etagGzip
		length = e.gzLen
	default:
		h["Content-Type"] = respond.HdrXMLCT
		h["Vary"] = respond.HdrVary
		h["Etag"] = e.etagPlain
		body = xml
	}
	http.ServeContent(lengthOn200{w, length}, r, "", e.lastMod, bytes.NewReader(body))
}

type lengthOn200 struct {
	http.ResponseWriter
	length []string
}

func (l lengthOn200) WriteHeader(code int) {
	if code == http.StatusOK && l.length != nil {
		l.Header()["Content-Length"] = l.length
	}
	l.ResponseWriter.WriteHeader(code)
}

// conditionalCases are requests (method, then header name and value
// pairs) of every kind serveCached answers or hands to ServeContent.
func conditionalCases(etag string, mod time.Time) [][]string {
	lm := mod.UTC().Format(http.TimeFormat)
	before := mod.Add(-time.Hour).UTC().Format(http.TimeFormat)
	after := mod.Add(time.Hour).UTC().Format(http.TimeFormat)
	return [][]string{
		{"GET"},
		{"HEAD"},
		{"GET", "If-None-Match", etag},                                // 304
		{"HEAD", "If-None-Match", etag},                               // 304
		{"GET", "If-None-Match", `"other"`},                           // 200
		{"GET", "If-None-Match", `"other", ` + etag},                  // 304
		{"GET", "If-None-Match", "W/" + etag},                         // weak comparison: 304
		{"GET", "If-None-Match", "*"},                                 // 304
		{"GET", "If-None-Match", ""},                                  // empty: ignored
		{"GET", "If-None-Match", ","},                                 // malformed
		{"GET", "If-Modified-Since", lm},                              // 304
		{"GET", "If-Modified-Since", before},                          // 200
		{"GET", "If-Modified-Since", after},                           // 304
		{"GET", "If-Modified-Since", "yesterday"},                     // invalid: 200
		{"GET", "If-None-Match", `"other"`, "If-Modified-Since", lm},  // INM decides: 200
		{"GET", "If-None-Match", etag, "If-Modified-Since", before},   // INM decides: 304
		{"GET", "If-None-Match", etag, "If-Match", `"other"`},         // If-Match first: 412
		{"GET", "If-None-Match", etag, "If-Match", etag},              // 304
		{"GET", "If-None-Match", etag, "If-Unmodified-Since", before}, // 412 (without an ETag's If-Match)
		{"GET", "If-None-Match", " " + etag + " "},                    // spaces: 304
		{"GET", "If-None-Match", etag + "x"},                          // not a tag: 200
		{"HEAD", "If-None-Match", etag, "Range", "bytes=0-99"},        // 304
		{"GET", "If-Match", etag},                                     // 200
		{"GET", "If-Match", `"other"`},                                // 412
		{"GET", "If-Match", "*"},                                      // 200
		{"HEAD", "If-Match", `"other"`},                               // 412
		{"GET", "If-Unmodified-Since", before},                        // 412
		{"GET", "If-Unmodified-Since", lm},                            // 200
		{"GET", "If-Match", etag, "If-Unmodified-Since", before},      // If-Match decides: 200
		{"GET", "Range", "bytes=0-99"},                                // 206
		{"HEAD", "Range", "bytes=0-99"},                               // 206
		{"GET", "Range", "bytes=100-"},                                // 206
		{"GET", "Range", "bytes=-50"},                                 // 206
		{"GET", "Range", "bytes=0-"},                                  // 206, whole
		{"GET", "Range", "bytes=999999999-"},                          // 416
		{"GET", "Range", "bytes=abc"},                                 // 416
		{"GET", "Range", "items=0-5"},                                 // 416
		{"GET", "Range", "bytes=0-9,20-29"},                           // several
		{"GET", "Range", "bytes=0-9,5-14,0-"},                         // several, overlapping
		{"GET", "Range", "bytes=0-99", "If-Range", etag},              // 206
		{"GET", "Range", "bytes=0-99", "If-Range", `"other"`},         // 200
		{"GET", "Range", "bytes=0-99", "If-Range", lm},                // 206
		{"GET", "Range", "bytes=0-99", "If-Range", before},            // 200
		{"GET", "Range", "bytes=0-99", "If-Range", "W/" + etag},       // weak: 200
		{"GET", "If-Range", etag},                                     // no Range: 200
		{"GET", "Range", "bytes=0-99", "If-None-Match", etag},         // 304
		{"GET", "Range", "bytes=0-99", "If-Match", `"other"`},         // 412
	}
}

// TestServeCachedLikeServeContent answers the same requests with serveCached
// (through the handler) and with http.ServeContent as the handler used
// it before, for each representation of a page and of the index, and for
// robots.txt, and compares status, every header and the body; the plain
// XML both decompressed as it is served and from a plain copy.
func TestServeCachedLikeServeContent(t *testing.T) {
	for _, copies := range []bool{false, true} {
		t.Run(map[bool]string{false: "streamed", true: "copy"}[copies], func(t *testing.T) {
			serveCachedLikeServeContent(t, copies)
		})
	}
}

func serveCachedLikeServeContent(t *testing.T, copies bool) {
	sm, e, xml := plainPage(t, 1000, 60)
	if copies {
		plainCopies(sm, true)
		makeCopy(t, sm, "/sitemap-1.xml", e)
		idx, _ := cachedEntry(sm, indexKey)
		makeCopy(t, sm, "/sitemap_index.xml", idx)
	}
	if e.lastMod.IsZero() {
		t.Fatal("the page has no Last-Modified: the date cases would test nothing")
	}
	idx, ok := cachedEntry(sm, indexKey)
	if !ok {
		t.Fatal("index not cached")
	}
	idxXML := testkit.Gunzip(t, idx.gz)
	cc := sm.site.headers.cacheControl
	type target struct {
		path, ae string
		e        *entry
		xml      []byte
	}
	targets := []target{
		{"/sitemap-1.xml.gz", "", e, xml},
		{"/sitemap-1.xml.gz", "gzip", e, xml},
		{"/sitemap-1.xml", "gzip", e, xml},
		{"/sitemap-1.xml", "", e, xml},
		{"/sitemap_index.xml", "gzip", idx, idxXML},
		{"/sitemap_index.xml", "", idx, idxXML},
	}
	rb := sm.robotsNow(t.Context())
	for _, tg := range targets {
		for _, c := range conditionalCases(tg.e.etagFile[0], tg.e.lastMod) {
			// The ETag of the representation served.
			c = slices.Clone(c)
			for i := range c {
				if !strings.HasSuffix(tg.path, ".gz") {
					tag := tg.e.etagPlain[0]
					if tg.ae != "" {
						tag = tg.e.etagGzip[0]
					}
					c[i] = strings.ReplaceAll(c[i], tg.e.etagFile[0], tag)
				}
			}
			hdr := c[1:]
			if tg.ae != "" {
				hdr = append(hdr, "Accept-Encoding", tg.ae)
			}
			t.Run(tg.path+" "+tg.ae+" "+strings.Join(c, " "), func(t *testing.T) {
				got := do(sm, c[0], tg.path, hdr...)
				want := doFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header()["Date"] = got.Header()["Date"] // the Sitemap's clock reading, which ServeContent leaves as it is
					oldServeEntry(w, r, tg.e, tg.xml, tg.path, cc)
				}, c[0], tg.path, hdr...)
				sameResponse(t, got, want)
			})
		}
	}
	minimal, etags, _ := rb.Merger().Minimal()
	etag := etags[0]
	for _, c := range conditionalCases(etag, time.Time{}) {
		t.Run("/robots.txt "+strings.Join(c, " "), func(t *testing.T) {
			got := do(sm, c[0], "/robots.txt", c[1:]...)
			want := doFunc(func(w http.ResponseWriter, r *http.Request) {
				h := w.Header()
				h.Set("Content-Type", "text/plain; charset=utf-8")
				h.Set("ETag", etag)
				http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(minimal))
			}, c[0], "/robots.txt", c[1:]...)
			sameResponse(t, got, want)
		})
	}
}

func doFunc(f http.HandlerFunc, method, path string, hdr ...string) *httptest.ResponseRecorder {
	return do(f, method, path, hdr...)
}

// sameResponse compares status, headers and body, with a multipart
// boundary (random per response) replaced.
func sameResponse(t *testing.T, got, want *httptest.ResponseRecorder) {
	t.Helper()
	gh, wh := got.Result().Header, want.Result().Header
	gb, wb := got.Body.String(), want.Body.String()
	if b := boundary(gh); b != "" {
		gb = strings.ReplaceAll(gb, b, "BOUNDARY")
		gh.Set("Content-Type", strings.ReplaceAll(gh.Get("Content-Type"), b, "BOUNDARY"))
	}
	if b := boundary(wh); b != "" {
		wb = strings.ReplaceAll(wb, b, "BOUNDARY")
		wh.Set("Content-Type", strings.ReplaceAll(wh.Get("Content-Type"), b, "BOUNDARY"))
	}
	if got.Code != want.Code {
		t.Errorf("status %d, want %d", got.Code, want.Code)
	}
	if !maps.EqualFunc(gh, wh, slices.Equal) {
		t.Errorf("headers\n%v\nwant\n%v", gh, wh)
	}
	if gb != wb {
		t.Errorf("body of %d bytes, want %d (equal prefix: %v)", len(gb), len(wb), strings.HasPrefix(wb, gb))
	}
}

func boundary(h http.Header) string {
	_, b, ok := strings.Cut(h.Get("Content-Type"), "boundary=")
	if !ok {
		return ""
	}
	return b
}

// TestServeCachedWrites counts the writes to the connection of a full 200
// of a cached file on a real server: a .xml.gz and a gzip-encoded index
// take one write of headers and body together, or two (the headers and
// the start of the body fill net/http's 4 KiB buffer, the rest goes in
// one), never one per 16 or 32 KiB; a plain .xml of 8 MB takes one per
// respond.PlainWriteSize, give or take the first, and two once it has its plain
// copy.
func TestServeCachedWrites(t *testing.T) {
	sm, e, _ := plainPage(t, MaxURLs, 105)
	var writes atomic.Int64
	srv := httptest.NewUnstartedServer(sm)
	srv.Listener = countWrites{srv.Listener, &writes}
	srv.Start()
	defer srv.Close()
	tr := &http.Transport{DisableCompression: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	for _, c := range []struct {
		path, ae string
		size     int64
		max      int64
		copy     bool // served from its plain copy
	}{
		{"/sitemap-1.xml.gz", "", int64(len(e.gz)), 2, false},
		{"/sitemap-1.xml", "gzip", int64(len(e.gz)), 2, false},
		{"/sitemap-1.xml", "", e.size, e.size/int64(respond.PlainWriteSize) + 2, false},
		{"/sitemap-1.xml", "", e.size, 2, true},
		{"/sitemap_index.xml", "gzip", -1, 1, false},
		{"/robots.txt", "", -1, 1, false},
	} {
		if c.copy {
			plainCopies(sm, true)
			makeCopy(t, sm, c.path, e)
		}
		req, _ := http.NewRequest(http.MethodGet, srv.URL+c.path, nil)
		if c.ae != "" {
			req.Header.Set("Accept-Encoding", c.ae)
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body bytes.Buffer
		_, err = body.ReadFrom(res.Body)
		res.Body.Close()
		if err != nil || res.StatusCode != 200 || c.size >= 0 && int64(body.Len()) != c.size {
			t.Fatalf("%s: status %d, %d bytes, want %d: %v", c.path, res.StatusCode, body.Len(), c.size, err)
		}
		n := writes.Swap(0)
		t.Logf("%s (Accept-Encoding %q): %d bytes in %d writes", c.path, c.ae, body.Len(), n)
		if n > c.max {
			t.Errorf("%s (Accept-Encoding %q): %d writes, want at most %d", c.path, c.ae, n, c.max)
		}
	}
}

// countWrites counts the writes to every connection it accepts.
type countWrites struct {
	net.Listener
	n *atomic.Int64
}

func (l countWrites) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return writeCounter{c, l.n}, nil
}

type writeCounter struct {
	net.Conn
	n *atomic.Int64
}

func (c writeCounter) Write(p []byte) (int, error) {
	c.n.Add(1)
	return c.Conn.Write(p)
}

// TestServeCachedLikeServeContentMerged does the same for a robots.txt
// merged into the application's, which has a Last-Modified.
func TestServeCachedLikeServeContentMerged(t *testing.T) {
	sm := newTestSitemap(t, Config{BaseURL: "https://example.com"}, Section{Source: benchSource(3)})
	mod := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Last-Modified", mod.Format(http.TimeFormat))
		w.Header().Set("ETag", `"app1"`)
		w.Write([]byte("User-agent: *\nDisallow: /cart\n"))
	})
	h := sm.Handler(app)
	full := get(h, "/robots.txt")
	if full.Code != 200 || !strings.Contains(full.Body.String(), "Sitemap: ") {
		t.Fatalf("robots.txt: %d %q", full.Code, full.Body)
	}
	merged, fixed := full.Body.Bytes(), full.Result().Header
	for _, k := range []string{"Last-Modified", "Accept-Ranges", "Content-Length"} {
		delete(fixed, k)
	}
	for _, c := range conditionalCases(fixed.Get("Etag"), mod) {
		t.Run(strings.Join(c, " "), func(t *testing.T) {
			got := do(h, c[0], "/robots.txt", c[1:]...)
			want := doFunc(func(w http.ResponseWriter, r *http.Request) {
				maps.Copy(w.Header(), fixed)
				http.ServeContent(w, r, "", mod, bytes.NewReader(merged))
			}, c[0], "/robots.txt", c[1:]...)
			sameResponse(t, got, want)
		})
	}
}
