package robotstxt

import (
	"bytes"
	"io"
	"net/http"
	"sync"
	"time"
)

// Server serves /robots.txt with the sitemap's lines merged in.
//
// With an application handler (next), the request is passed on as a GET,
// so that a HEAD gets the same headers and Content-Length as a GET even
// from an application that writes no body for HEAD. The application's
// response is then handled by status:
//
//   - 200: the body, up to 500 KiB, is captured and each of our lines not
//     already in it is appended, after a line ending if the body lacks a
//     final one, using the body's own line ending (LF, CRLF or CR). The
//     application's status and headers are kept; Content-Length is
//     recomputed. If the body changed, the application's ETag is replaced by
//     a weak one derived from it (W/"<its opaque tag>-sitemap<hash of our
//     lines>"), since a strong tag must identify the exact bytes; an ETag
//     that cannot be parsed is dropped, as are body digest headers. A body
//     larger than 500 KiB, or in an encoding other than gzip, passes through
//     unmodified (see MaxBytes). A 200 whose Content-Type is text/html
//     is not a robots.txt (typically a single-page application's catch-all
//     route) and is treated as a 404.
//   - 404 and 410: the application has no robots.txt, so the minimal one
//     (allow everything, name the sitemap) is served instead, without any of
//     the application's 404 headers.
//   - anything else passes through untouched, streamed without buffering:
//     a redirect (3xx) usually sends crawlers to the canonical host, where
//     they get the merged file; 401 and 403 are the application's access
//     decision; a 5xx or 429 tells crawlers to back off (Google then treats
//     the whole site as disallowed), which an "Allow: /" must never mask;
//     and a 304 means the client's copy is still good.
//
// Compression: the request passed on carries "Accept-Encoding: identity"
// if the client's had an Accept-Encoding (and none if it had none), so a
// compression middleware inside next answers uncompressed. A gzip body
// sent anyway is decoded, merged and sent uncompressed without
// Content-Encoding; a compression middleware outside the sitemap handler
// still compresses what we send.
//
// Conditional and range requests: the validators a client holds are ours
// (the derived ETag), which the application does not know, so the
// If-*, Range and If-Range headers are removed from the request passed on,
// the application always answers in full, and http.ServeContent evaluates
// them against the merged body and its ETag and Last-Modified (taken from
// the application). Should the application answer 304 all the same, its
// 304 passes through. Last-Modified stays the application's, so after a
// change of our lines alone (a new BaseURL) a client validating by date
// alone may keep its old copy until the application's file changes.
//
// Informational (1xx) responses of the application are dropped. All of
// this costs only requests for /robots.txt, which the caller dispatches.
//
// The response with a body held (ours, or the application's merged) is
// made by Respond, the caller's, which answers conditional and range
// requests as http.ServeContent does.
type Server struct {
	m       *Merger
	respond Respond
}

// Respond answers r with content, of size bytes, and its validators:
// modtime is its Last-Modified (none if zero), lastMod that header's
// value made once (nil: made from modtime), and length, if not nil, the
// Content-Length of a 200. The header already holds the ETag and
// Content-Type.
type Respond func(w http.ResponseWriter, r *http.Request, modtime time.Time, lastMod []string, content io.ReadSeeker, size int64, length []string)

// capture is the application's response held while it is merged
// (Capture), and the merged body's reader, pooled together: a robots.txt
// request then allocates neither, nor the capture's header map and body
// buffer.
type capture struct {
	Capture
	reader bytes.Reader // the merged body being served
}

var captures = sync.Pool{New: func() any { return new(capture) }}

var hdrTextCT = []string{"text/plain; charset=utf-8"}

// NewServer precomputes everything: lines are full robots.txt lines such
// as "Sitemap: https://example.com/sitemap_index.xml" (one or more), p the
// policy's groups (nil for none), as New takes them.
func NewServer(lines []string, p *Policy, respond Respond) *Server {
	return &Server{m: New(lines, p), respond: respond}
}

// Merger returns the Merger the Server serves with.
func (s *Server) Merger() *Merger { return s.m }

// Serve answers a GET/HEAD (other methods: pass to next if non-nil, else
// 405 with Allow) for /robots.txt. next is the application's handler; it
// may be nil (the sitemap handler was mounted alone). See Server for what
// is done with the application's response.
func (s *Server) Serve(w http.ResponseWriter, r *http.Request, next http.Handler) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		if next != nil {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if next == nil {
		s.serveMinimal(w, r)
		return
	}
	c := captures.Get().(*capture)
	c.Reset(w, r.Method == http.MethodHead)
	next.ServeHTTP(c, AppRequest(r))
	header, _ := c.Held()
	switch {
	case c.Mode() == Direct: // already sent
	case c.Mode() == Discard:
		s.serveMinimal(w, r)
	case IsHTML(first(header["Content-Type"])): // as Get: the key is canonical
		s.serveMinimal(w, r)
	default:
		s.serveMerged(w, r, c)
	}
	c.Clear()
	c.reader.Reset(nil)
	captures.Put(c)
}

// serveMinimal serves our own robots.txt.
func (s *Server) serveMinimal(w http.ResponseWriter, r *http.Request) {
	body, etag, length := s.m.Minimal()
	h := w.Header()
	h["Content-Type"] = hdrTextCT
	h["Etag"] = etag
	s.respond(w, r, time.Time{}, nil, bytes.NewReader(body), int64(len(body)), length)
}

// serveMerged serves the application's 200 response held in c with our
// lines merged in, or passes it through if it cannot be read.
func (s *Server) serveMerged(w http.ResponseWriter, r *http.Request, c *capture) {
	header, held := c.Held()
	body, gunzipped, ok := Decode(header.Get("Content-Encoding"), held)
	if !ok {
		c.PassThrough()
		return
	}
	m := s.m.MergeOnce(body)
	if m.TooLarge {
		c.PassThrough()
		return
	}
	h := w.Header()
	for k, v := range header {
		h[k] = v
	}
	// Header keys as constants, canonical: delete(h, k) is h.Del(k), and
	// h[k] is h.Get(k) (first).
	delete(h, "Content-Length") // Respond sets it
	delete(h, "Content-Encoding")
	v := s.m.ValidatorsOf(first(h["Etag"]), first(h["Last-Modified"]))
	if m.Appended || gunzipped { // other bytes than those the application's validators name
		if v.Derived != nil {
			h["Etag"] = v.Derived
		} else {
			delete(h, "Etag")
		}
		for _, k := range [...]string{"Content-Md5", "Digest", "Content-Digest", "Repr-Digest"} {
			delete(h, k)
		}
	}
	if first(h["Content-Type"]) == "" {
		h["Content-Type"] = hdrTextCT // never sniffed
	}
	c.reader.Reset(m.Body)
	s.respond(w, r, v.Modtime, v.LastModHdr, &c.reader, int64(len(m.Body)), m.Length)
}

// first is v's first value; "" if none.
func first(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}
