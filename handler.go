package sitemap

import (
	"bytes"
	"errors"
	"net/http"
	"strings"
)

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
		serveError(w, "method not allowed", http.StatusMethodNotAllowed)
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
		// A failed build was logged once, by the build; each request
		// that waited for it only counts.
		s.log.DebugContext(r.Context(), "sitemap: unavailable", "page", s.describe(k), "err", err)
		s.stats.unavailable.Add(1)
		h["Retry-After"] = s.headers.retryAfter
		serveError(w, "sitemap temporarily unavailable", http.StatusServiceUnavailable)
		return
	}
	s.serveEntry(w, r, e, rt.rep)
}

func (s *Sitemap) notFound(w http.ResponseWriter) {
	s.stats.notFound.Add(1)
	serveError(w, "404 page not found", http.StatusNotFound)
}

// serveError answers with an error status and a fixed text, first removing
// the headers that describe a representation (as net/http's own file
// server does): a validator or cache directive set before the error would
// let a client or a CDN keep the error page as if it were the sitemap.
func serveError(w http.ResponseWriter, text string, code int) {
	h := w.Header()
	for _, k := range [...]string{"Etag", "Last-Modified", "Cache-Control", "Content-Encoding", "Vary"} {
		delete(h, k)
	}
	http.Error(w, text, code)
}

// serveEntry sets the representation's headers and lets http.ServeContent
// answer: conditional requests (304, 412), HEAD and Range.
func (s *Sitemap) serveEntry(w http.ResponseWriter, r *http.Request, e *entry, rep representation) {
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
			serveError(w, "internal error", http.StatusInternalServerError)
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
