package sitemap

import "net/http"

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
