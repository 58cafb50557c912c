package sitemap

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/gzip"
)

const indexFile = "sitemap_index.xml"

// representation is the form a document is served in.
type representation uint8

const (
	asGzipFile representation = iota // .xml.gz: application/gzip, no Content-Encoding
	asXML                            // .xml: negotiated, gzip-encoded or plain
)

// route is what a sitemap path names.
type route struct {
	sec  *section // nil for the index
	page int64
	rep  representation
}

// owns reports whether path is one of the sitemap's file names, valid or
// not: sitemap_index.xml, or sitemap-*.xml and sitemap-*.xml.gz under the
// base path. The middleware passes every other path on.
func (s *Sitemap) owns(path string) bool {
	// Most requests are not ours: reject them on one byte first.
	if len(path) <= len(s.prefix)+len("sitemap") || path[len(s.prefix)] != 's' {
		return false
	}
	rest, ok := strings.CutPrefix(path, s.prefix)
	if !ok {
		return false
	}
	return rest == indexFile || strings.HasPrefix(rest, "sitemap-") &&
		(strings.HasSuffix(rest, ".xml") || strings.HasSuffix(rest, ".xml.gz"))
}

// route parses a sitemap path. Only the one canonical name of each file is
// accepted: a page number is a decimal without sign or leading zero.
func (s *Sitemap) route(path string) (route, bool) {
	rest, ok := strings.CutPrefix(path, s.prefix)
	if !ok {
		return route{}, false
	}
	if rest == indexFile {
		return route{rep: asXML}, true
	}
	name, ok := strings.CutPrefix(rest, "sitemap-")
	if !ok {
		return route{}, false
	}
	rep := asGzipFile
	if name, ok = strings.CutSuffix(name, ".xml.gz"); !ok {
		if name, ok = strings.CutSuffix(name, ".xml"); !ok {
			return route{}, false
		}
		rep = asXML
	}
	secName, num := "", name
	if i := strings.LastIndexByte(name, '-'); i >= 0 {
		if i == 0 {
			return route{}, false
		}
		secName, num = name[:i], name[i+1:]
	}
	sec := s.byName[secName]
	if sec == nil {
		return route{}, false
	}
	n, ok := parsePage(num)
	if !ok {
		return route{}, false
	}
	return route{sec: sec, page: n, rep: rep}, true
}

// parsePage accepts a canonical page number: 1 to 999,999,999,999,999,999
// in decimal, with no sign and no leading zero.
func parsePage(s string) (int64, bool) {
	if len(s) == 0 || len(s) > 18 || s[0] == '0' {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

var (
	hdrNoindex = []string{"noindex"}
	hdrGzip    = []string{"gzip"}
	hdrVary    = []string{"Accept-Encoding"}
	hdrGzipCT  = []string{"application/gzip"}
	hdrXMLCT   = []string{"application/xml; charset=utf-8"}
	hdrAllow   = []string{"GET, HEAD"}
)

// ServeHTTP serves the sitemap files (and a minimal robots.txt at
// /robots.txt, since no application stands behind a bare handler). Any
// other path is 404. Mount it on a router as it is, without stripping the
// path prefix: it matches the full request path against the base URL's.
func (s *Sitemap) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/robots.txt" {
		s.robots.serve(w, r, nil)
		return
	}
	h := w.Header()
	h["X-Robots-Tag"] = hdrNoindex
	rt, ok := s.route(r.URL.Path)
	if !ok {
		s.notFound(w)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h["Allow"] = hdrAllow
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	k, sec := indexKey, rt.sec
	if sec != nil {
		k = pageKey{sec: sec.index, page: rt.page}
	}
	e, err := s.document(r.Context(), k, sec)
	switch {
	case errors.Is(err, errNotFound):
		s.notFound(w)
		return
	case err != nil:
		if r.Context().Err() != nil {
			return // the client left; nobody reads an answer
		}
		s.log.ErrorContext(r.Context(), "sitemap: build failed", "page", s.describe(k), "err", err)
		s.stats.unavailable.Add(1)
		h["Retry-After"] = s.headers.retryAfter
		http.Error(w, "sitemap temporarily unavailable", http.StatusServiceUnavailable)
		return
	}
	s.serveEntry(w, r, e, rt.rep)
}

func (s *Sitemap) notFound(w http.ResponseWriter) {
	s.stats.notFound.Add(1)
	http.Error(w, "404 page not found", http.StatusNotFound)
}

// serveEntry sets the representation's headers and lets http.ServeContent
// answer: conditional requests (304, 412), HEAD and Range.
func (s *Sitemap) serveEntry(w http.ResponseWriter, r *http.Request, e *cachedPage, rep representation) {
	h := w.Header()
	if s.headers.cacheControl != nil {
		h["Cache-Control"] = s.headers.cacheControl
	}
	body := e.gz
	switch {
	case rep == asGzipFile:
		h["Content-Type"] = hdrGzipCT
		h["Etag"] = e.etagFile
	case acceptsGzip(r.Header["Accept-Encoding"]):
		h["Content-Type"] = hdrXMLCT
		h["Vary"] = hdrVary
		h["Content-Encoding"] = hdrGzip
		h["Etag"] = e.etagGzip
	default:
		h["Content-Type"] = hdrXMLCT
		h["Vary"] = hdrVary
		h["Etag"] = e.etagPlain
		buf := plainPool.Get().(*bytes.Buffer)
		defer func() {
			if buf.Cap() <= maxPooledBuf {
				plainPool.Put(buf)
			}
		}()
		if err := gunzip(buf, e.gz); err != nil { // cannot happen: we compressed it
			s.log.Error("sitemap: cached page does not decompress", "err", err)
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		}
		body = buf.Bytes()
	}
	cw := countingWriter{ResponseWriter: w}
	http.ServeContent(&cw, r, "", e.lastMod, bytes.NewReader(body))
	if cw.status == http.StatusNotModified {
		s.stats.notModified.Add(1)
	}
	s.stats.bytesServed.Add(cw.n)
}

var plainPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func gunzip(dst *bytes.Buffer, gz []byte) error {
	dst.Reset()
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return err
	}
	_, err = io.Copy(dst, zr)
	return err
}

// acceptsGzip reports whether an Accept-Encoding header allows gzip: it
// names gzip (or x-gzip, or *) without q=0.
func acceptsGzip(values []string) bool {
	for _, v := range values {
		for v != "" {
			var item string
			item, v, _ = strings.Cut(v, ",")
			name, params, _ := strings.Cut(item, ";")
			name = strings.TrimSpace(name)
			if !strings.EqualFold(name, "gzip") && !strings.EqualFold(name, "x-gzip") && name != "*" {
				continue
			}
			return !zeroQ(params)
		}
	}
	return false
}

// zeroQ reports whether params hold q=0 (or 0.0, 0.00, 0.000).
func zeroQ(params string) bool {
	for params != "" {
		var p string
		p, params, _ = strings.Cut(params, ";")
		k, val, _ := strings.Cut(strings.TrimSpace(p), "=")
		if strings.EqualFold(strings.TrimSpace(k), "q") {
			val = strings.TrimSpace(val)
			return strings.Trim(val, "0.") == "" && val != "" && val[0] == '0'
		}
	}
	return false
}

// countingWriter records the status and body bytes of a response.
type countingWriter struct {
	http.ResponseWriter
	status int
	n      int64
}

func (c *countingWriter) WriteHeader(code int) {
	if c.status == 0 {
		c.status = code
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *countingWriter) Write(p []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	n, err := c.ResponseWriter.Write(p)
	c.n += int64(n)
	return n, err
}

func (c *countingWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// counters are the Sitemap's statistics.
type counters struct {
	hits, misses, stale, revalidated atomic.Int64
	builds, buildErrors, buildNanos  atomic.Int64
	rejected, notModified, notFound  atomic.Int64
	unavailable, bytesServed         atomic.Int64
}

// Stats is a snapshot of a Sitemap's counters since New, for metrics
// (publish it with expvar.Func or a Prometheus collector).
type Stats struct {
	CacheHits       int64         // requests answered by a fresh cached page
	CacheMisses     int64         // requests that found no cached page
	CacheStale      int64         // requests answered by an expired page while it refreshed
	Revalidated     int64         // expired pages renewed without a rebuild (Version unchanged)
	Builds          int64         // documents built successfully
	BuildErrors     int64         // builds that failed (source error, panic, timeout)
	BuildTime       time.Duration // total time spent building, successful or not
	RejectedURLs    int64         // URLs skipped for breaking a rule or not fitting
	NotModified     int64         // 304 responses
	NotFound        int64         // 404 responses
	Unavailable     int64         // 503 responses
	BytesServed     int64         // response body bytes written
	CachedDocuments int           // documents in the cache now
	CachedBytes     int64         // their compressed size
}

// Stats returns the current counters.
func (s *Sitemap) Stats() Stats {
	n, b := s.cache.usage()
	c := &s.stats
	return Stats{
		CacheHits: c.hits.Load(), CacheMisses: c.misses.Load(), CacheStale: c.stale.Load(),
		Revalidated: c.revalidated.Load(), Builds: c.builds.Load(), BuildErrors: c.buildErrors.Load(),
		BuildTime: time.Duration(c.buildNanos.Load()), RejectedURLs: c.rejected.Load(),
		NotModified: c.notModified.Load(), NotFound: c.notFound.Load(), Unavailable: c.unavailable.Load(),
		BytesServed: c.bytesServed.Load(), CachedDocuments: n, CachedBytes: b,
	}
}
