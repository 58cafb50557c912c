// Package robotstxt merges a sitemap's lines into an application's
// robots.txt, given bytes and names: the Sitemap: lines and, optionally,
// a policy's groups for AI crawlers (policy.go), read as Google's parser
// reads the file (merge.go); and the ResponseWriter that holds the
// application's response while it is merged (capture.go). It knows
// nothing of the sitemap package: the caller serves what it returns.
package robotstxt

import (
	"bytes"
	"compress/gzip"
	"hash/fnv"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// MaxBytes bounds the robots.txt we merge into. Google reads only the
// first 500 KiB of a robots.txt, so a line appended after that would never
// be read. A larger response (before or after gzip decoding) is therefore
// passed through unmodified rather than truncated: cutting an
// application's rules short would change their meaning.
const MaxBytes = 500 << 10

// minimalRobots opens the robots.txt served when the application has none.
const minimalRobots = "User-agent: *\nAllow: /\n\n"

// Merger merges a fixed set of lines, and a policy, into robots.txt
// files. It is safe for concurrent use; it keeps the last merge made and
// the last validators read, so that requests for an unchanged file cost a
// comparison.
type Merger struct {
	lines       []line
	policy      *Policy // nil for none
	minimal     []byte  // the robots.txt served when the application has none
	minimalETag string  // strong, quoted
	// minimal's ETag and Content-Length as header values
	minimalETagHdr, minimalLen []string
	tagSuffix                  string // appended to the application's opaque ETag when we change the body

	last       atomic.Pointer[Merged]     // the last merge made, for the next request
	validators atomic.Pointer[Validators] // the last validators read, for the next request
}

// Merged is a merge made: the application's body, and ours.
type Merged struct {
	App, Body []byte
	Appended  bool     // Body has lines App has not
	TooLarge  bool     // our lines would take it over MaxBytes: Body is App, to pass through
	Length    []string // len(Body), as a Content-Length value
}

// Validators are the application's ETag and Last-Modified as sent, and
// what a merged response sends for them: the derived ETag (nil if none
// can be derived), the modification time and its Last-Modified value (nil
// if the application's cannot be parsed).
type Validators struct {
	ETag, LastMod string
	Derived       []string
	Modtime       time.Time
	LastModHdr    []string
}

// line is one line we add, split for comparison with the lines of an
// application's file.
type line struct {
	text         string // as written: "Sitemap: https://…"
	field, value string // field name (compared ignoring case) and value (compared exactly)
}

// New precomputes everything for lines, full robots.txt lines such as
// "Sitemap: https://example.com/sitemap_index.xml" (one or more), and the
// policy p (nil for none). Each line is trimmed, a value holding line
// breaks counts as several lines, blank lines and repeats are dropped, and
// a Sitemap field name is written "Sitemap".
func New(lines []string, p *Policy) *Merger {
	m := &Merger{policy: p}
	for _, in := range lines {
		for _, l := range strings.FieldsFunc(in, func(r rune) bool { return r == '\n' || r == '\r' }) {
			field, value := splitLine(l)
			if field == "" && value == "" {
				continue // blank, or only a comment
			}
			text := strings.TrimSpace(l)
			if strings.EqualFold(field, "sitemap") {
				field, text = "Sitemap", "Sitemap: "+value
			}
			if !m.has(field, value) {
				m.lines = append(m.lines, line{text: text, field: field, value: value})
			}
		}
	}
	m.minimal, _, _ = m.Merge([]byte(minimalRobots))
	m.minimalETag = `"` + strconv.FormatUint(fnvHash(m.minimal), 16) + `"`
	m.minimalETagHdr, m.minimalLen = []string{m.minimalETag}, []string{strconv.Itoa(len(m.minimal))}
	m.tagSuffix = "-sitemap" + strconv.FormatUint(fnvHash(m.minimal[len(minimalRobots):]), 16)
	return m
}

// fnvHash is the hash the ETags name.
func fnvHash(b []byte) uint64 {
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}

// has reports whether m already adds a line with that field and value.
func (m *Merger) has(field, value string) bool {
	for _, l := range m.lines {
		if strings.EqualFold(l.field, field) && l.value == value {
			return true
		}
	}
	return false
}

// Minimal is the robots.txt served when the application has none (allow
// everything, our lines), and its strong ETag and Content-Length as
// header values. The caller must not modify them.
func (m *Merger) Minimal() (body []byte, etag, length []string) {
	return m.minimal, m.minimalETagHdr, m.minimalLen
}

// MergeOnce is Merge, made once for the application's robots.txt as long
// as it stays the same: a request compares it with the last one merged,
// and reuses that merge if equal. It keeps one merge of at most MaxBytes
// (and what it appended), no more, and none of body, which a capture
// reuses.
func (m *Merger) MergeOnce(body []byte) *Merged {
	if mg := m.last.Load(); mg != nil && bytes.Equal(mg.App, body) {
		return mg
	}
	app := bytes.Clone(body)
	merged, appended, ok := m.Merge(app)
	mg := &Merged{App: app, Body: merged, Appended: appended, TooLarge: !ok, Length: []string{strconv.Itoa(len(merged))}}
	m.last.Store(mg)
	return mg
}

// ValidatorsOf returns what a merged response sends for the application's
// ETag and Last-Modified, made once as long as they stay the same.
func (m *Merger) ValidatorsOf(etag, lastMod string) *Validators {
	if v := m.validators.Load(); v != nil && v.ETag == etag && v.LastMod == lastMod {
		return v
	}
	v := &Validators{ETag: etag, LastMod: lastMod}
	if tag := m.DerivedETag(etag); tag != "" {
		v.Derived = []string{tag}
	}
	if lastMod != "" { // ParseTime fails three times on none
		if t, err := http.ParseTime(lastMod); err == nil {
			v.Modtime = t
			if !t.Equal(time.Unix(0, 0)) { // which http.ServeContent takes for unknown: no header
				v.LastModHdr = []string{t.UTC().Format(http.TimeFormat)}
			}
		}
	}
	m.validators.Store(v)
	return v
}

// DerivedETag turns the application's entity tag into a weak one that
// names the merged body (W/"<its opaque tag>-sitemap<hash of our lines>"),
// or returns "" if tag is empty or malformed.
func (m *Merger) DerivedETag(tag string) string {
	tag = strings.TrimPrefix(tag, "W/")
	if len(tag) < 2 || tag[0] != '"' || tag[len(tag)-1] != '"' || strings.IndexByte(tag[1:len(tag)-1], '"') >= 0 {
		return ""
	}
	return `W/"` + tag[1:len(tag)-1] + m.tagSuffix + `"`
}

// Decode returns the identity body of a response in content coding enc
// ("" and "identity" are the body itself) and whether it was gunzipped.
// ok is false for a coding we do not read, a broken gzip stream, or a
// decoded body over MaxBytes.
func Decode(enc string, body []byte) (out []byte, gunzipped, ok bool) {
	switch enc = strings.TrimSpace(enc); {
	case enc == "", strings.EqualFold(enc, "identity"):
		return body, false, true
	case strings.EqualFold(enc, "gzip"), strings.EqualFold(enc, "x-gzip"):
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return nil, false, false
		}
		out, err = io.ReadAll(io.LimitReader(zr, MaxBytes+1))
		if err != nil || len(out) > MaxBytes {
			return nil, false, false
		}
		return out, true, true
	}
	return nil, false, false
}

// IsHTML reports whether contentType is text/html: a 200 with it is not a
// robots.txt (typically a single-page application's catch-all route).
func IsHTML(contentType string) bool {
	if strings.HasPrefix(contentType, "text/plain") { // the usual robots.txt, parsed for nothing
		return false
	}
	t, _, err := mime.ParseMediaType(contentType)
	return err == nil && t == "text/html"
}

// AppRequest is the request passed to the application: always a GET,
// asking for an uncompressed, complete and unconditional response: the
// client's preconditions, Range and If-Range are removed, and an
// Accept-Encoding becomes identity. A request without one keeps none,
// which a compression middleware reads as identity (a gzip body sent
// anyway is decoded), so that a GET with none of these is passed on as it
// is, and the application sees what it would have seen without us.
func AppRequest(r *http.Request) *http.Request {
	if r.Method == http.MethodGet && plainRequest(r.Header) {
		return r
	}
	r2 := r.WithContext(r.Context()) // a shallow copy, with a header of its own
	r2.Method = http.MethodGet
	h := r.Header.Clone()
	if h == nil {
		h = make(http.Header, 1)
	}
	for _, k := range clientOnly {
		delete(h, k) // the server's header keys are canonical, as these
	}
	if _, ok := h["Accept-Encoding"]; ok {
		h["Accept-Encoding"] = hdrIdentity
	}
	r2.Header = h
	return r2
}

var hdrIdentity = []string{"identity"}

// clientOnly are the header fields removed from the request passed on:
// they name our response, not the application's.
var clientOnly = [...]string{"If-Match", "If-None-Match", "If-Modified-Since", "If-Unmodified-Since", "If-Range", "Range"}

// plainRequest reports whether a request's header is already what
// AppRequest would make of it, but for an Accept-Encoding that is absent
// rather than identity.
func plainRequest(h http.Header) bool {
	for _, k := range clientOnly {
		if _, ok := h[k]; ok {
			return false
		}
	}
	ae, ok := h["Accept-Encoding"]
	return !ok || len(ae) == 1 && ae[0] == "identity"
}
