package sitemap

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// The responses we write: a cached file's, whose bytes are in memory, so
// that a full 200 costs what writing them costs (what it reads of the
// request's header is read once, below: reqHeader); and those that are no
// document: an error, and a small fixed file (the IndexNow key file, the
// stylesheet).

// The fixed header values of the responses, shared and never written to.
var (
	hdrNoindex = []string{"noindex"}
	hdrGzip    = []string{"gzip"}
	hdrVary    = []string{"Accept-Encoding"}
	hdrGzipCT  = []string{"application/gzip"}
	hdrXMLCT   = []string{"application/xml; charset=utf-8"}
	hdrTextCT  = []string{"text/plain; charset=utf-8"}
	hdrXSLCT   = []string{"text/xsl; charset=utf-8"}
	hdrAtomCT  = []string{"application/atom+xml; charset=utf-8"}
	hdrAllow   = []string{"GET, HEAD"}
	hdrBytes   = []string{"bytes"}
)

// serveCached answers a GET or HEAD of content, a cached body of size
// bytes, once the headers that name it (Content-Type, ETag, Vary,
// Cache-Control, …) are set; modtime is its Last-Modified (none if zero),
// lastMod that header's value made once (lastModHeader; nil: made here),
// and length, if not nil, the Content-Length of a 200 (size otherwise).
// The answer is http.ServeContent's, header for header
// (TestServeCachedLikeServeContent):
//
//  1. A request with no precondition and no Range (If-Match,
//     If-Unmodified-Since, If-None-Match, If-Modified-Since, Range, each
//     absent or empty: ServeContent ignores an empty one) gets its 200
//     here: Last-Modified, Accept-Ranges and Content-Length, then the
//     body, copied by io.Copy: a *bodyReader in one write (its WriteTo),
//     a plain body through w's ReadFrom. This is every crawler's first
//     fetch of a file, and every fetch of a client that keeps no copy.
//  2. A revalidation by the ETag alone, as crawlers send it (If-None-Match
//     is the response's ETag, exactly; no If-Match or
//     If-Unmodified-Since), gets its 304 here (revalidated).
//  3. Any other request goes to http.ServeContent: 304 and 412, If-Range,
//     206 and 416 stay the standard library's. Its body copy reaches w's
//     ReadFrom as an io.LimitedReader, which a writer may unwrap
//     (bodyReader.writeN) to send a range of a cached body in one write.
//
// cond is whether the request is conditional or ranged
// (reqHeader.conditional); it reports it back.
func serveCached(w http.ResponseWriter, r *http.Request, cond bool, modtime time.Time, lastMod []string, content io.ReadSeeker, size int64, length []string) bool {
	if cond {
		if revalidated(w.Header(), r.Header) {
			notModified(w)
			return true
		}
		http.ServeContent(w, r, "", modtime, content)
		return true
	}
	h := w.Header()
	if lastMod == nil {
		lastMod = lastModHeader(modtime)
	}
	if lastMod != nil {
		h["Last-Modified"] = lastMod
	}
	h["Accept-Ranges"] = hdrBytes
	if length == nil {
		length = []string{strconv.FormatInt(size, 10)}
	}
	h["Content-Length"] = length
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		io.Copy(w, content) // errors are the client's: ServeContent drops them too
	}
	return false
}

var unixEpoch = time.Unix(0, 0)

var (
	errInvalidWhence = errors.New("sitemap: Seek: invalid whence")
	errNegativeSeek  = errors.New("sitemap: Seek: negative position")
)

// seekTo returns the position Seek(offset, whence) sets in a body of size
// bytes whose position is pos, as io.Seeker says.
func seekTo(offset int64, whence int, pos, size int64) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += pos
	case io.SeekEnd:
		offset += size
	default:
		return 0, errInvalidWhence
	}
	if offset < 0 {
		return 0, errNegativeSeek
	}
	return offset, nil
}

// revalidated reports whether http.ServeContent would answer a request
// with header req by a 304 for its If-None-Match alone, for a response
// whose header is h: If-None-Match is exactly h's ETag, a valid one, and
// the preconditions ServeContent checks first (If-Match, then
// If-Unmodified-Since: a 412) are absent or empty. If-Modified-Since and
// Range do not count once If-None-Match matches.
func revalidated(h, req http.Header) bool {
	inm, etag := req["If-None-Match"], h["Etag"]
	return len(inm) > 0 && len(etag) > 0 && inm[0] == etag[0] && validETag(etag[0]) &&
		first(req["If-Match"]) == "" && first(req["If-Unmodified-Since"]) == ""
}

// notModified is ServeContent's 304 of a response with an ETag: without
// its Content-Type, Content-Length, Content-Encoding and Last-Modified
// (TestServeCachedLikeServeContentMerged: an application's robots.txt
// may have set one).
func notModified(w http.ResponseWriter) {
	h := w.Header()
	for _, k := range [...]string{"Content-Type", "Content-Length", "Content-Encoding", "Last-Modified"} {
		delete(h, k)
	}
	w.WriteHeader(http.StatusNotModified)
}

// validETag reports whether s is one entity tag and nothing else, as
// net/http scans one: "…" or W/"…", of the characters RFC 9110 §8.8.3
// allows.
func validETag(s string) bool {
	s = strings.TrimPrefix(s, "W/")
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; c != 0x21 && (c < 0x23 || c > 0x7e) && c < 0x80 {
			return false
		}
	}
	return true
}

// first is the first of a header's values, or "".
func first(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// bodyReader is a cached body as the io.ReadSeeker http.ServeContent
// takes, which copies itself in one write: whole (WriteTo, which io.Copy
// prefers), or a range of it (writeN, for a writer's ReadFrom that
// ServeContent calls with an io.LimitedReader).
type bodyReader struct {
	b   []byte
	off int64
}

func (br *bodyReader) Read(p []byte) (int, error) {
	if br.off >= int64(len(br.b)) {
		return 0, io.EOF
	}
	n := copy(p, br.b[br.off:])
	br.off += int64(n)
	return n, nil
}

func (br *bodyReader) Seek(offset int64, whence int) (int64, error) {
	pos, err := seekTo(offset, whence, br.off, int64(len(br.b)))
	if err == nil {
		br.off = pos
	}
	return pos, err
}

// WriteTo writes the rest of the body in one write.
func (br *bodyReader) WriteTo(w io.Writer) (int64, error) {
	return br.writeN(w, int64(len(br.b)))
}

// writeN writes up to n bytes of the rest of the body in one write.
func (br *bodyReader) writeN(w io.Writer, n int64) (int64, error) {
	rest := br.b[min(br.off, int64(len(br.b))):]
	rest = rest[:min(n, int64(len(rest)))]
	if len(rest) == 0 {
		return 0, nil
	}
	m, err := w.Write(rest)
	br.off += int64(m)
	return int64(m), err
}

// httpDate is the Date header of a file's response: the second of the
// request's clock reading, which its Last-Modified is held to
// (serveEntry). The value is made once a second, so that a cache hit
// allocates nothing for it.
type httpDate struct{ last atomic.Pointer[dateValue] }

type dateValue struct {
	sec int64
	hdr []string
}

// header returns the Date header value of now.
func (d *httpDate) header(now time.Time) []string {
	sec := now.Unix()
	if v := d.last.Load(); v != nil && v.sec == sec {
		return v.hdr
	}
	v := &dateValue{sec: sec, hdr: []string{time.Unix(sec, 0).UTC().Format(http.TimeFormat)}}
	d.last.Store(v)
	return v.hdr
}

// lastModHeader is the Last-Modified header value of t, or nil if t is
// zero or the Unix epoch, which http.ServeContent takes for unknown.
func lastModHeader(t time.Time) []string {
	if t.IsZero() || t.Equal(unixEpoch) {
		return nil
	}
	return []string{t.UTC().Format(http.TimeFormat)}
}

// reqHeader is what serving a file reads of the request's header, read
// once: whether it is conditional or ranged (serveCached), the Range it
// asks (wholeIfMultiRange), the encodings it accepts (acceptsGzip), and
// for the crawl log its User-Agent and whether it has validators.
//
// Go hashes the key of every lookup in a map of strings, small ones too
// (a header of a few fields), so the seven lookups these took cost more
// than one pass over a header of up to reqHeaderPass fields, which also
// finds the User-Agent for nothing (BenchmarkReqHeader). A larger header
// is read by lookups, which cost the same whatever its size, the
// User-Agent's only when the crawl log wants it. Either way
// a field counts as net/http reads it: by its canonical name, its first
// value, an empty one as absent (http.ServeContent ignores those).
type reqHeader struct {
	ua         string   // the first User-Agent
	rng        string   // the first Range
	accept     []string // Accept-Encoding, every value
	pre        bool     // If-Match, If-Unmodified-Since, If-None-Match or If-Modified-Since, not empty
	validators bool     // If-None-Match or If-Modified-Since, not empty
}

// reqHeaderPass is the most fields a header is read in one pass. Beside
// the lookups' ~65 ns, a pass costs ~47 ns over one field, ~63 over five,
// ~72 over seven and ~95 over eight (BENCHMARKS.md).
const reqHeaderPass = 6

// readReqHeader reads h, its User-Agent too if ua or if it comes for
// nothing.
func readReqHeader(h http.Header, ua bool) reqHeader {
	if len(h) > reqHeaderPass {
		return reqHeaderLookups(h, ua)
	}
	return reqHeaderScan(h)
}

// reqHeaderScan reads h in one pass over its fields.
func reqHeaderScan(h http.Header) (q reqHeader) {
	for k, v := range h {
		if len(v) == 0 {
			continue
		}
		switch k {
		case "User-Agent":
			q.ua = v[0]
		case "Range":
			q.rng = v[0]
		case "Accept-Encoding":
			q.accept = v
		case "If-None-Match", "If-Modified-Since":
			if v[0] != "" {
				q.pre, q.validators = true, true
			}
		case "If-Match", "If-Unmodified-Since":
			if v[0] != "" {
				q.pre = true
			}
		}
	}
	return q
}

// reqHeaderLookups reads h by looking each field up, the User-Agent only
// if ua.
func reqHeaderLookups(h http.Header, ua bool) reqHeader {
	q := reqHeader{rng: first(h["Range"])}
	if v := h["Accept-Encoding"]; len(v) > 0 {
		q.accept = v
	}
	q.validators = first(h["If-None-Match"]) != "" || first(h["If-Modified-Since"]) != ""
	q.pre = q.validators || first(h["If-Match"]) != "" || first(h["If-Unmodified-Since"]) != ""
	if ua {
		q.ua = first(h["User-Agent"])
	}
	return q
}

// conditional reports whether the request has a field that may make its
// answer other than a full 200: a precondition or a Range. An If-Range
// alone changes nothing.
func (q *reqHeader) conditional() bool { return q.pre || q.rng != "" }

// conditional is reqHeader.conditional of the header h.
func conditional(h http.Header) bool {
	q := readReqHeader(h, false)
	return q.conditional()
}

// serveError answers with an error status and a fixed text, first removing
// the headers that describe a representation (as net/http's own file
// server does): a validator or cache directive set before the error would
// let a client or a CDN keep the error page as if it were the sitemap.
func serveError(w http.ResponseWriter, text string, code int) {
	h := w.Header()
	for _, k := range [...]string{"Etag", "Last-Modified", "Cache-Control", "Content-Encoding", "Vary", "Content-Range", "Accept-Ranges"} {
		delete(h, k)
	}
	http.Error(w, text, code) // also drops Content-Length
}

// unavailableText is the body of a 503 for err: why, in words that are
// safe for anyone to read. The Source's own error (a database's message,
// a host name, a query) never reaches the public: a failed build is
// named by its failure reference and time, which its log line ("sitemap:
// build failed", attribute failure) carries with the cause
// (TestUnavailableSaysWhy).
func unavailableText(err error, retryAfter time.Duration) string {
	const head = "sitemap temporarily unavailable: "
	var fe *failureError
	switch {
	case errors.As(err, &fe) && errors.Is(err, errBackoff):
		return head + "the last build of " + fe.file + " failed (failure " + fe.ref + " at " + fe.at.UTC().Format(time.RFC3339) +
			"; the server's log has the cause); it is retried after " + retryAfter.String()
	case errors.As(err, &fe):
		return head + "the build of " + fe.file + " failed (failure " + fe.ref + " at " + fe.at.UTC().Format(time.RFC3339) +
			"; the server's log has the cause)"
	case errors.Is(err, errBackoff):
		return head + "its last build failed; it is retried after " + retryAfter.String()
	case errors.Is(err, errWaitTimeout):
		return head + "its build takes longer than the build timeout"
	case errors.Is(err, errBusy):
		return head + "too many requests are waiting for builds"
	case errors.Is(err, errClosed):
		return head + "the server is shutting down"
	}
	return head + "it could not be built"
}

// serveFixed answers a GET or HEAD of a small file served as it is, such
// as the IndexNow key file or the stylesheet: body with the Content-Type
// ct, its strong ETag (304 through http.ServeContent) and cacheControl,
// if any. Any other method gets 405.
func serveFixed(w http.ResponseWriter, r *http.Request, body string, ct, etag, cacheControl []string) {
	h := w.Header()
	h["X-Robots-Tag"] = hdrNoindex
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h["Allow"] = hdrAllow
		serveError(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if cacheControl != nil {
		h["Cache-Control"] = cacheControl
	}
	h["Content-Type"] = ct
	h["Etag"] = etag
	http.ServeContent(w, r, "", time.Time{}, strings.NewReader(body))
}
