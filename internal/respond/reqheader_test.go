package respond

import (
	"math/rand/v2"
	"net/http"
	"reflect"
	"strconv"
	"testing"
)

// reqHeaderFields are the names a random header is made of: every field
// readReqHeader reads, others, and non-canonical spellings it must not
// read (net/http canonicalizes a request's, and a lookup would miss them).
var reqHeaderFields = []string{"User-Agent", "Range", "Accept-Encoding", "If-None-Match", "If-Modified-Since",
	"If-Match", "If-Unmodified-Since", "If-Range", "Accept", "From", "Connection", "Cache-Control",
	"user-agent", "IF-NONE-MATCH", "range", "X-Forwarded-For", "Accept-Language", "Pragma"}

// TestReqHeaderScanLikeLookups holds the one pass over a header to the
// lookups, field by field, on random headers of 0 to 12 fields with
// empty, several and no values: the two readers (serve.go, ReqHeader) must read
// the same, whichever readReqHeader picks for a header's size.
func TestReqHeaderScanLikeLookups(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	values := [][]string{nil, {}, {""}, {"", "x"}, {"a"}, {"bytes=0-9", "bytes=5-"}, {"gzip, br"}, {"W/\"x\""}}
	for i := range 20_000 {
		h := http.Header{}
		for range rng.IntN(13) {
			h[reqHeaderFields[rng.IntN(len(reqHeaderFields))]] = values[rng.IntN(len(values))]
		}
		scan, look := reqHeaderScan(h), reqHeaderLookups(h, true)
		if !reflect.DeepEqual(scan, look) {
			t.Fatalf("header %d %v:\nscan    %+v\nlookups %+v", i, h, scan, look)
		}
		if got := ReadReqHeader(h, true); !reflect.DeepEqual(got, look) {
			t.Fatalf("header %d %v: readReqHeader %+v, want %+v", i, h, got, look)
		}
		if got := ReadReqHeader(h, false); got.UA != "" && len(h) > reqHeaderPass {
			t.Fatalf("header %d %v: the User-Agent looked up unasked", i, h)
		}
	}
}

// TestReqHeaderFields names what each field counts for: an empty value
// is absent, as http.ServeContent reads it; an If-Range alone is not
// conditional; only If-None-Match and If-Modified-Since are validators
// (CrawlFetch.Conditional).
func TestReqHeaderFields(t *testing.T) {
	for _, c := range []struct {
		h                http.Header
		cond, validators bool
	}{
		{http.Header{}, false, false},
		{http.Header{"If-None-Match": {`"x"`}}, true, true},
		{http.Header{"If-Modified-Since": {"Mon, 02 Jan 2006 15:04:05 GMT"}}, true, true},
		{http.Header{"If-Match": {`"x"`}}, true, false},
		{http.Header{"If-Unmodified-Since": {"Mon, 02 Jan 2006 15:04:05 GMT"}}, true, false},
		{http.Header{"Range": {"bytes=0-9"}}, true, false},
		{http.Header{"If-Range": {`"x"`}}, false, false},
		{http.Header{"If-None-Match": {""}, "Range": {""}}, false, false},
		{http.Header{"If-None-Match": {"", `"x"`}}, false, false}, // the first value counts
	} {
		for _, read := range []func(http.Header) ReqHeader{reqHeaderScan, lookupsWithUA} {
			q := read(c.h)
			if q.Conditional() != c.cond || q.Validators != c.validators {
				t.Errorf("%v: conditional %v, validators %v; want %v, %v", c.h, q.Conditional(), q.Validators, c.cond, c.validators)
			}
		}
	}
}

// BenchmarkReqHeader reads headers of 1 to 10 fields, none conditional
// (a crawler's first fetch: its User-Agent first), by one pass and by the
// lookups; ReadReqHeader takes the pass up to reqHeaderPass fields.
func BenchmarkReqHeader(b *testing.B) {
	names := []string{"User-Agent", "Accept", "Accept-Encoding", "From", "Connection", "Accept-Language",
		"X-Forwarded-For", "Cache-Control", "Pragma", "Dnt"}
	for n := 1; n <= 10; n++ {
		h := http.Header{}
		for _, k := range names[:n] {
			h[k] = []string{"x"}
		}
		for _, r := range []struct {
			name string
			read func(http.Header) ReqHeader
		}{{"scan", reqHeaderScan}, {"lookups", lookupsWithUA}} {
			b.Run(r.name+"/fields="+strconv.Itoa(n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					reqHeaderSink = r.read(h)
				}
			})
		}
	}
}

var reqHeaderSink ReqHeader

// lookupsWithUA is reqHeaderLookups with the User-Agent, as the crawl log
// reads it.
func lookupsWithUA(h http.Header) ReqHeader { return reqHeaderLookups(h, true) }
