// Package respond writes the HTTP responses of bytes held in memory: a
// cached file's 200 in one write, its 304 by the ETag alone, anything else
// conditional or ranged by http.ServeContent; the request's header read
// once for what those need; an error's and a small fixed file's
// responses; the Date and Last-Modified header values; and the fixed
// header values they share. It knows nothing of sitemaps: the root's
// handler sets the headers that name a document, then calls it.
package respond

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The responses we write: a cached file's, whose bytes are in memory, so
// that a full 200 costs what writing them costs (what it reads of the
// request's header is read once, below: ReqHeader); and those that are no
// document: an error, and a small fixed file (the IndexNow key file, the
// stylesheet).

// The fixed header values of the responses, shared and never written to.
var (
	HdrNoindex = []string{"noindex"}
	HdrGzip    = []string{"gzip"}
	HdrVary    = []string{"Accept-Encoding"}
	HdrGzipCT  = []string{"application/gzip"}
	HdrXMLCT   = []string{"application/xml; charset=utf-8"}
	HdrTextCT  = []string{"text/plain; charset=utf-8"}
	HdrXSLCT   = []string{"text/xsl; charset=utf-8"}
	HdrAtomCT  = []string{"application/atom+xml; charset=utf-8"}
	HdrAllow   = []string{"GET, HEAD"}
	hdrBytes   = []string{"bytes"}
)

// Cached answers a GET or HEAD of content, a cached body of size
// bytes, once the headers that name it (Content-Type, ETag, Vary,
// Cache-Control, …) are set; modtime is its Last-Modified (none if zero),
// lastMod that header's value made once (LastModHeader; nil: made here),
// and length, if not nil, the Content-Length of a 200 (size otherwise).
// The answer is http.ServeContent's, header for header
// (the root package's TestServeCachedLikeServeContent):
//
//  1. A request with no precondition and no Range (If-Match,
//     If-Unmodified-Since, If-None-Match, If-Modified-Since, Range, each
//     absent or empty: ServeContent ignores an empty one) gets its 200
//     here: Last-Modified, Accept-Ranges and Content-Length, then the
//     body, copied by io.Copy: a *Body in one write (its WriteTo),
//     a plain body through w's ReadFrom. This is every crawler's first
//     fetch of a file, and every fetch of a client that keeps no copy.
//  2. A revalidation by the ETag alone, as crawlers send it (If-None-Match
//     is the response's ETag, exactly; no If-Match or
//     If-Unmodified-Since), gets its 304 here (revalidated).
//  3. Any other request goes to http.ServeContent: 304 and 412, If-Range,
//     206 and 416 stay the standard library's. Its body copy reaches w's
//     ReadFrom as an io.LimitedReader, which a writer may unwrap
//     (Body.WriteN) to send a range of a cached body in one write.
//
// cond is whether the request is conditional or ranged
// (ReqHeader.conditional); it reports it back.
func Cached(w http.ResponseWriter, r *http.Request, cond bool, modtime time.Time, lastMod []string, content io.ReadSeeker, size int64, length []string) bool {
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
		lastMod = LastModHeader(modtime)
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

// SeekTo returns the position Seek(offset, whence) sets in a body of size
// bytes whose position is pos, as io.Seeker says.
func SeekTo(offset int64, whence int, pos, size int64) (int64, error) {
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
		First(req["If-Match"]) == "" && First(req["If-Unmodified-Since"]) == ""
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

// First is the first of a header's values, or "".
func First(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// Body is a cached body as the io.ReadSeeker http.ServeContent
// takes, which copies itself in one write: whole (WriteTo, which io.Copy
// prefers), or a range of it (writeN, for a writer's ReadFrom that
// ServeContent calls with an io.LimitedReader).
type Body struct {
	b   []byte
	off int64
}

// NewBody returns the Body of b, read from its start.
func NewBody(b []byte) Body { return Body{b: b} }

func (br *Body) Read(p []byte) (int, error) {
	if br.off >= int64(len(br.b)) {
		return 0, io.EOF
	}
	n := copy(p, br.b[br.off:])
	br.off += int64(n)
	return n, nil
}

func (br *Body) Seek(offset int64, whence int) (int64, error) {
	pos, err := SeekTo(offset, whence, br.off, int64(len(br.b)))
	if err == nil {
		br.off = pos
	}
	return pos, err
}

// WriteTo writes the rest of the body in one write.
func (br *Body) WriteTo(w io.Writer) (int64, error) {
	return br.WriteN(w, int64(len(br.b)))
}

// writeN writes up to n bytes of the rest of the body in one write.
func (br *Body) WriteN(w io.Writer, n int64) (int64, error) {
	rest := br.b[min(br.off, int64(len(br.b))):]
	rest = rest[:min(n, int64(len(rest)))]
	if len(rest) == 0 {
		return 0, nil
	}
	m, err := w.Write(rest)
	br.off += int64(m)
	return int64(m), err
}

// Date is the Date header of a file's response: the second of the
// request's clock reading, which its Last-Modified is held to
// (serveEntry). The value is made once a second, so that a cache hit
// allocates nothing for it.
type Date struct{ last atomic.Pointer[dateValue] }

type dateValue struct {
	sec int64
	hdr []string
}

// header returns the Date header value of now.
func (d *Date) Header(now time.Time) []string {
	sec := now.Unix()
	if v := d.last.Load(); v != nil && v.sec == sec {
		return v.hdr
	}
	v := &dateValue{sec: sec, hdr: []string{time.Unix(sec, 0).UTC().Format(http.TimeFormat)}}
	d.last.Store(v)
	return v.hdr
}

// LastModHeader is the Last-Modified header value of t, or nil if t is
// zero or the Unix epoch, which http.ServeContent takes for unknown.
func LastModHeader(t time.Time) []string {
	if t.IsZero() || t.Equal(unixEpoch) {
		return nil
	}
	return []string{t.UTC().Format(http.TimeFormat)}
}

// ReqHeader is what serving a file reads of the request's header, read
// once: whether it is conditional or ranged (Cached), the Range it
// asks (the root's wholeIfMultiRange), the encodings it accepts (AcceptsGzip), and
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
type ReqHeader struct {
	UA         string   // the first User-Agent
	Range      string   // the first Range
	Accept     []string // Accept-Encoding, every value
	Pre        bool     // If-Match, If-Unmodified-Since, If-None-Match or If-Modified-Since, not empty
	Validators bool     // If-None-Match or If-Modified-Since, not empty
}

// reqHeaderPass is the most fields a header is read in one pass. Beside
// the lookups' ~65 ns, a pass costs ~47 ns over one field, ~63 over five,
// ~72 over seven and ~95 over eight (BENCHMARKS.md).
const reqHeaderPass = 6

// ReadReqHeader reads h, its User-Agent too if ua or if it comes for
// nothing.
func ReadReqHeader(h http.Header, ua bool) ReqHeader {
	if len(h) > reqHeaderPass {
		return reqHeaderLookups(h, ua)
	}
	return reqHeaderScan(h)
}

// reqHeaderScan reads h in one pass over its fields.
func reqHeaderScan(h http.Header) (q ReqHeader) {
	for k, v := range h {
		if len(v) == 0 {
			continue
		}
		switch k {
		case "User-Agent":
			q.UA = v[0]
		case "Range":
			q.Range = v[0]
		case "Accept-Encoding":
			q.Accept = v
		case "If-None-Match", "If-Modified-Since":
			if v[0] != "" {
				q.Pre, q.Validators = true, true
			}
		case "If-Match", "If-Unmodified-Since":
			if v[0] != "" {
				q.Pre = true
			}
		}
	}
	return q
}

// reqHeaderLookups reads h by looking each field up, the User-Agent only
// if ua.
func reqHeaderLookups(h http.Header, ua bool) ReqHeader {
	q := ReqHeader{Range: First(h["Range"])}
	if v := h["Accept-Encoding"]; len(v) > 0 {
		q.Accept = v
	}
	q.Validators = First(h["If-None-Match"]) != "" || First(h["If-Modified-Since"]) != ""
	q.Pre = q.Validators || First(h["If-Match"]) != "" || First(h["If-Unmodified-Since"]) != ""
	if ua {
		q.UA = First(h["User-Agent"])
	}
	return q
}

// conditional reports whether the request has a field that may make its
// answer other than a full 200: a precondition or a Range. An If-Range
// alone changes nothing.
func (q *ReqHeader) Conditional() bool { return q.Pre || q.Range != "" }

// conditional is ReqHeader.conditional of the header h.
func Conditional(h http.Header) bool {
	q := ReadReqHeader(h, false)
	return q.Conditional()
}

// Error answers with an error status and a fixed text, first removing
// the headers that describe a representation (as net/http's own file
// server does): a validator or cache directive set before the error would
// let a client or a CDN keep the error page as if it were the sitemap.
func Error(w http.ResponseWriter, text string, code int) {
	h := w.Header()
	for _, k := range [...]string{"Etag", "Last-Modified", "Cache-Control", "Content-Encoding", "Vary", "Content-Range", "Accept-Ranges"} {
		delete(h, k)
	}
	http.Error(w, text, code) // also drops Content-Length
}

// Fixed answers a GET or HEAD of a small file served as it is, such
// as the IndexNow key file or the stylesheet: body with the Content-Type
// ct, its strong ETag (304 through http.ServeContent) and cacheControl,
// if any. Any other method gets 405.
func Fixed(w http.ResponseWriter, r *http.Request, body string, ct, etag, cacheControl []string) {
	h := w.Header()
	h["X-Robots-Tag"] = HdrNoindex
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h["Allow"] = HdrAllow
		Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if cacheControl != nil {
		h["Cache-Control"] = cacheControl
	}
	h["Content-Type"] = ct
	h["Etag"] = etag
	http.ServeContent(w, r, "", time.Time{}, strings.NewReader(body))
}

// AcceptsGzip reports whether an Accept-Encoding header allows gzip
// (RFC 9110 §12.5.3). An entry for gzip or its alias x-gzip decides
// wherever it stands; without one, an entry for "*" does; without either,
// gzip is not allowed. An entry allows gzip if its weight is above zero:
// no q, or a q other than 0 (0.0, 0.000). A q that is not a qvalue
// ("q=abc", "q=2", "q=0.0001") refuses, as several entries for the same
// name do unless all allow: gzip sent to a client that cannot read it
// breaks that client, while plain XML only costs bytes.
func AcceptsGzip(values []string) bool {
	gz, star := 0, 0 // 0: not named, 1: allowed, -1: refused
	for _, v := range values {
		for v != "" {
			var item string
			item, v, _ = strings.Cut(v, ",")
			name, params, _ := strings.Cut(item, ";")
			var p *int
			switch name = strings.TrimSpace(name); {
			case strings.EqualFold(name, "gzip"), strings.EqualFold(name, "x-gzip"):
				p = &gz
			case name == "*":
				p = &star
			default:
				continue
			}
			if *p >= 0 {
				*p = -1
				if positiveWeight(params) {
					*p = 1
				}
			}
		}
	}
	if gz != 0 {
		return gz > 0
	}
	return star > 0
}

// positiveWeight reports whether the parameters of an Accept-Encoding
// entry give it a weight above zero: every q parameter (there should be
// at most one) is a valid qvalue other than zero. Other parameters, which
// the grammar does not have, are ignored.
func positiveWeight(params string) bool {
	for params != "" {
		var p string
		p, params, _ = strings.Cut(params, ";")
		k, val, _ := strings.Cut(p, "=")
		if strings.EqualFold(strings.TrimSpace(k), "q") {
			if q, ok := qvalue(strings.TrimSpace(val)); !ok || q == 0 {
				return false
			}
		}
	}
	return true
}

// qvalue parses a weight (RFC 9110 §12.4.2): "0" or "1", then optionally
// "." and up to three digits, at most 1. It returns thousandths.
func qvalue(s string) (int, bool) {
	if s == "" || s[0] != '0' && s[0] != '1' {
		return 0, false
	}
	q := int(s[0]-'0') * 1000
	if frac := s[1:]; frac != "" {
		if frac[0] != '.' || len(frac) > 4 {
			return 0, false
		}
		for i, scale := 1, 100; i < len(frac); i, scale = i+1, scale/10 {
			c := frac[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			q += int(c-'0') * scale
		}
	}
	return q, q <= 1000
}

// Writer passes a response on to the ResponseWriter, recording its
// status and the body bytes written. It also:
//   - sends Content-Length on a 200 with a length it was given, which
//     ServeContent leaves out when Content-Encoding is set (a HEAD gets
//     the same as a GET);
//   - with Hold, keeps a 2xx status back until the first body byte (or
//     Release), so that a body that fails before its first byte can still
//     become a 500;
//   - copies a body in large writes (ReadFrom): a range of a cached body
//     in one, a plain body through a pooled buffer of PlainWriteSize.
type Writer struct {
	http.ResponseWriter
	Length []string // Content-Length of a 200, if ServeContent sets none
	Hold   bool     // keep a 2xx status back until the first body byte or Release
	Status int      // the status set; 0 if none yet
	Sent   bool     // the status has gone to the ResponseWriter
	N      int64    // the body bytes written
	Body   Body     // the cached body, kept here to save an allocation
}

func (c *Writer) WriteHeader(code int) {
	if c.Status != 0 {
		c.ResponseWriter.WriteHeader(code) // superfluous: let net/http log it
		return
	}
	c.Status = code
	if h := c.Header(); code == http.StatusOK && c.Length != nil && h["Content-Length"] == nil {
		h["Content-Length"] = c.Length
	}
	if !c.Hold || code < 200 || code > 299 {
		c.Release()
	}
}

// Release sends the status if it is held back (a HEAD, an empty body).
func (c *Writer) Release() {
	if c.Status != 0 && !c.Sent {
		c.Sent = true
		c.ResponseWriter.WriteHeader(c.Status)
	}
}

func (c *Writer) Write(p []byte) (int, error) {
	if c.Status == 0 {
		c.WriteHeader(http.StatusOK)
	}
	c.Release()
	n, err := c.ResponseWriter.Write(p)
	c.N += int64(n)
	return n, err
}

// PlainWriteSize is the size of the writes of a plain body: each write of
// a response is a system call, so a plain response is written in large
// writes; but a slow client holds its buffer as long as it reads, which
// the root's TestPlainConcurrentMemory bounds. Its
// BenchmarkServePlainWrites measured the size on loopback (BENCHMARKS.md).
var PlainWriteSize = 64 << 10

// copyBufs holds the buffers plain bodies are copied through.
var copyBufs sync.Pool

// ReadFrom copies r in large writes. ServeContent copies a body with
// io.CopyN, so r is an io.LimitedReader: over a Body, its bytes go
// in one write; else r is filled into a pooled buffer, written when full,
// where io.Copy would write each read (a gzip reader's are at most its
// 32 KiB window) and allocate 32 KiB a response.
func (c *Writer) ReadFrom(r io.Reader) (int64, error) {
	if lr, ok := r.(*io.LimitedReader); ok {
		if br, ok := lr.R.(*Body); ok {
			n, err := br.WriteN(c, lr.N)
			lr.N -= n
			return n, err
		}
	}
	buf, _ := copyBufs.Get().(*[]byte)
	if buf == nil || len(*buf) != PlainWriteSize {
		b := make([]byte, PlainWriteSize)
		buf = &b
	}
	defer copyBufs.Put(buf)
	var total int64
	for {
		n, err := io.ReadFull(r, *buf)
		if n > 0 {
			m, werr := c.Write((*buf)[:n])
			total += int64(m)
			if werr != nil {
				return total, werr
			}
		}
		switch err {
		case nil:
		case io.EOF, io.ErrUnexpectedEOF:
			return total, nil
		default:
			return total, err
		}
	}
}

func (c *Writer) Unwrap() http.ResponseWriter { return c.ResponseWriter }
