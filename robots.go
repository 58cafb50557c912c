package sitemap

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// maxRobotsBytes bounds the robots.txt we merge into. Google reads only the
// first 500 KiB of a robots.txt, so a line appended after that would never
// be read. A larger response (before or after gzip decoding) is therefore
// passed through unmodified rather than truncated: cutting an
// application's rules short would change their meaning.
const maxRobotsBytes = 500 << 10

// minimalRobots opens the robots.txt served when the application has none.
const minimalRobots = "User-agent: *\nAllow: /\n\n"

// robots serves /robots.txt with the sitemap's Sitemap: lines merged in.
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
//     unmodified (see maxRobotsBytes). A 200 whose Content-Type is text/html
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
type robots struct {
	lines       []robotsLine
	policy      *robotsPolicy // Config.Robots; nil for none
	minimal     []byte        // the robots.txt served when the application has none
	minimalETag string        // strong, quoted
	// minimal's ETag and Content-Length as header values
	minimalETagHdr, minimalLen []string
	tagSuffix                  string // appended to the application's opaque ETag when we change the body

	last       atomic.Pointer[robotsMerge]      // the last merge made, for the next request
	validators atomic.Pointer[robotsValidators] // the last validators read, for the next request
}

// robotsMerge is a merge made: the application's body, and ours.
type robotsMerge struct {
	app, merged []byte
	appended    bool
	tooLarge    bool     // our lines would take it over maxRobotsBytes: merged is app, passed through
	length      []string // len(merged), as a Content-Length value
}

// robotsValidators are the application's ETag and Last-Modified as sent,
// and what a merged response sends for them: the derived ETag (nil if none
// can be derived), the modification time and its Last-Modified value (nil
// if the application's cannot be parsed).
type robotsValidators struct {
	etag, lastMod string
	derived       []string
	modtime       time.Time
	lastModHdr    []string
}

// robotsLine is one line we add, split for comparison with the lines of
// an application's file.
type robotsLine struct {
	text         string // as written: "Sitemap: https://…"
	field, value string // field name (compared ignoring case) and value (compared exactly)
}

// newRobots precomputes everything; lines are full robots.txt lines such as
// "Sitemap: https://example.com/sitemap_index.xml" (one or more). Each is
// trimmed, a value holding line breaks counts as several lines, blank lines
// and repeats are dropped, and a Sitemap field name is written "Sitemap".
func newRobots(lines []string) *robots { return newPolicyRobots(lines, nil) }

// newPolicyRobots is newRobots with the policy p's groups (nil for none),
// merged as into an application's file (robotsmerge.go).
func newPolicyRobots(lines []string, p *robotsPolicy) *robots {
	rb := &robots{policy: p}
	for _, in := range lines {
		for _, l := range strings.FieldsFunc(in, func(r rune) bool { return r == '\n' || r == '\r' }) {
			field, value := robotsField(l)
			if field == "" && value == "" {
				continue // blank, or only a comment
			}
			text := strings.TrimSpace(l)
			if strings.EqualFold(field, "sitemap") {
				field, text = "Sitemap", "Sitemap: "+value
			}
			if !rb.has(field, value) {
				rb.lines = append(rb.lines, robotsLine{text: text, field: field, value: value})
			}
		}
	}
	rb.minimal, _, _ = rb.merge([]byte(minimalRobots))
	rb.minimalETag = `"` + strconv.FormatUint(fnvHash(rb.minimal), 16) + `"`
	rb.minimalETagHdr, rb.minimalLen = []string{rb.minimalETag}, []string{strconv.Itoa(len(rb.minimal))}
	rb.tagSuffix = "-sitemap" + strconv.FormatUint(fnvHash(rb.minimal[len(minimalRobots):]), 16)
	return rb
}

// has reports whether rb already adds a line with that field and value.
func (rb *robots) has(field, value string) bool {
	for _, l := range rb.lines {
		if strings.EqualFold(l.field, field) && l.value == value {
			return true
		}
	}
	return false
}

// serve answers a GET/HEAD (other methods: pass to next if non-nil, else
// 405 with Allow) for /robots.txt. next is the application's handler; it
// may be nil (the sitemap handler was mounted alone). See robots for what
// is done with the application's response.
func (rb *robots) serve(w http.ResponseWriter, r *http.Request, next http.Handler) {
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
		rb.serveMinimal(w, r)
		return
	}
	c := newRobotsCapture(w, r.Method == http.MethodHead)
	next.ServeHTTP(c, appRobotsRequest(r))
	switch {
	case c.mode == captureDirect: // already sent
	case c.mode == captureDiscard:
		rb.serveMinimal(w, r)
	case isHTML(first(c.header["Content-Type"])): // as Get: the key is canonical
		rb.serveMinimal(w, r)
	default:
		rb.serveMerged(w, r, c)
	}
	c.release()
}

// appRobotsRequest is the request passed to the application: always a GET,
// asking for an uncompressed, complete and unconditional response: the
// client's preconditions, Range and If-Range are removed, and an
// Accept-Encoding becomes identity. A request without one keeps none,
// which a compression middleware reads as identity (a gzip body sent
// anyway is decoded), so that a GET with none of these is passed on as it
// is, and the application sees what it would have seen without us.
func appRobotsRequest(r *http.Request) *http.Request {
	if r.Method == http.MethodGet && plainRobotsRequest(r.Header) {
		return r
	}
	r2 := r.WithContext(r.Context()) // a shallow copy, with a header of its own
	r2.Method = http.MethodGet
	h := r.Header.Clone()
	if h == nil {
		h = make(http.Header, 1)
	}
	for _, k := range robotsClientOnly {
		delete(h, k) // the server's header keys are canonical, as these
	}
	if _, ok := h["Accept-Encoding"]; ok {
		h["Accept-Encoding"] = hdrIdentity
	}
	r2.Header = h
	return r2
}

var hdrIdentity = []string{"identity"}

// robotsClientOnly are the header fields removed from the request passed
// on: they name our response, not the application's.
var robotsClientOnly = [...]string{"If-Match", "If-None-Match", "If-Modified-Since", "If-Unmodified-Since", "If-Range", "Range"}

// plainRobotsRequest reports whether a request's header is already what
// appRobotsRequest would make of it, but for an Accept-Encoding that is
// absent rather than identity.
func plainRobotsRequest(h http.Header) bool {
	for _, k := range robotsClientOnly {
		if _, ok := h[k]; ok {
			return false
		}
	}
	ae, ok := h["Accept-Encoding"]
	return !ok || len(ae) == 1 && ae[0] == "identity"
}

func isHTML(contentType string) bool {
	if strings.HasPrefix(contentType, "text/plain") { // the usual robots.txt, parsed for nothing
		return false
	}
	t, _, err := mime.ParseMediaType(contentType)
	return err == nil && t == "text/html"
}

// serveMinimal serves our own robots.txt.
func (rb *robots) serveMinimal(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h["Content-Type"] = hdrTextCT
	h["Etag"] = rb.minimalETagHdr
	serveCached(w, r, conditional(r.Header), time.Time{}, nil, &bodyReader{b: rb.minimal}, int64(len(rb.minimal)), rb.minimalLen)
}

// serveMerged serves the application's 200 response held in c with our
// lines merged in, or passes it through if it cannot be read.
func (rb *robots) serveMerged(w http.ResponseWriter, r *http.Request, c *robotsCapture) {
	body, gunzipped, ok := decodeRobots(c.header.Get("Content-Encoding"), c.body)
	if !ok {
		c.passThrough()
		return
	}
	m := rb.mergeOnce(body)
	if m.tooLarge {
		c.passThrough()
		return
	}
	h := w.Header()
	for k, v := range c.header {
		h[k] = v
	}
	// Header keys as constants, canonical: delete(h, k) is h.Del(k), and
	// h[k] is h.Get(k) (first).
	delete(h, "Content-Length") // serveCached sets it
	delete(h, "Content-Encoding")
	v := rb.validatorsOf(first(h["Etag"]), first(h["Last-Modified"]))
	if m.appended || gunzipped { // other bytes than those the application's validators name
		if v.derived != nil {
			h["Etag"] = v.derived
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
	c.reader = bodyReader{b: m.merged}
	serveCached(w, r, conditional(r.Header), v.modtime, v.lastModHdr, &c.reader, int64(len(m.merged)), m.length)
}

// validatorsOf returns what a merged response sends for the application's
// ETag and Last-Modified, made once as long as they stay the same.
func (rb *robots) validatorsOf(etag, lastMod string) *robotsValidators {
	if v := rb.validators.Load(); v != nil && v.etag == etag && v.lastMod == lastMod {
		return v
	}
	v := &robotsValidators{etag: etag, lastMod: lastMod}
	if tag := rb.derivedETag(etag); tag != "" {
		v.derived = []string{tag}
	}
	if lastMod != "" { // ParseTime fails three times on none
		if t, err := http.ParseTime(lastMod); err == nil {
			v.modtime = t
			v.lastModHdr = lastModHeader(t)
		}
	}
	rb.validators.Store(v)
	return v
}

// decodeRobots returns the identity body of a response in content coding
// enc ("" and "identity" are the body itself) and whether it was gunzipped.
// ok is false for a coding we do not read, a broken gzip stream, or a
// decoded body over maxRobotsBytes.
func decodeRobots(enc string, body []byte) (out []byte, gunzipped, ok bool) {
	switch enc = strings.TrimSpace(enc); {
	case enc == "", strings.EqualFold(enc, "identity"):
		return body, false, true
	case strings.EqualFold(enc, "gzip"), strings.EqualFold(enc, "x-gzip"):
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return nil, false, false
		}
		out, err = io.ReadAll(io.LimitReader(zr, maxRobotsBytes+1))
		if err != nil || len(out) > maxRobotsBytes {
			return nil, false, false
		}
		return out, true, true
	}
	return nil, false, false
}

// derivedETag turns the application's entity tag into a weak one that
// names the merged body, or returns "" if tag is empty or malformed.
func (rb *robots) derivedETag(tag string) string {
	tag = strings.TrimPrefix(tag, "W/")
	if len(tag) < 2 || tag[0] != '"' || tag[len(tag)-1] != '"' || strings.IndexByte(tag[1:len(tag)-1], '"') >= 0 {
		return ""
	}
	return `W/"` + tag[1:len(tag)-1] + rb.tagSuffix + `"`
}

// mergeOnce is merge, made once for the application's robots.txt as long
// as it stays the same: a request compares it with the last one merged,
// and reuses that merge if equal. It keeps one merge of at most
// maxRobotsBytes (and what it appended), no more, and none of body, which
// a capture reuses.
func (rb *robots) mergeOnce(body []byte) *robotsMerge {
	if m := rb.last.Load(); m != nil && bytes.Equal(m.app, body) {
		return m
	}
	app := bytes.Clone(body)
	merged, appended, ok := rb.merge(app)
	m := &robotsMerge{app: app, merged: merged, appended: appended, tooLarge: !ok, length: []string{strconv.Itoa(len(merged))}}
	rb.last.Store(m)
	return m
}

// robotsSet is the robots.txt merger for an index of n files.
type robotsSet struct {
	n  int
	rb *robots
}

// robotsNow returns the robots.txt merger that names every index file
// (sitemap_index.xml, and sitemap_index-2.xml and on once the index has
// more than 50,000 pages), then every Atom feed. The count comes from the cached index, fresh or
// not; with none cached, the index is built (one build, shared, bounded
// like any other), and if that fails, the first file alone is named.
func (s *Sitemap) robotsNow(ctx context.Context) *robots {
	n := 1
	if idx, err := s.docs.peekOrGet(ctx, indexKey); err == nil {
		n = idx.files()
	}
	if cur := s.robots.Load(); cur != nil && cur.n == n {
		return cur.rb
	}
	lines := make([]string, n, n+len(s.site.sections))
	for i := range lines {
		lines[i] = "Sitemap: " + s.site.base.url + s.site.indexFileName(i+1)
	}
	for _, sec := range s.site.sections { // the Atom feeds (feed.go), which engines read as sitemaps
		if sec.feed != nil {
			lines = append(lines, "Sitemap: "+sec.feed.loc)
		}
	}
	set := &robotsSet{n: n, rb: newPolicyRobots(lines, s.site.robots)}
	s.robots.Store(set)
	return set.rb
}
