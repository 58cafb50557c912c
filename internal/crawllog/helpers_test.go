package crawllog

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

const (
	googlebotUA = testkit.GooglebotUA
	bingbotUA   = testkit.BingbotUA
	chromeUA    = testkit.ChromeUA
)

// The columns of the named families, verified (V) and not (U).
const (
	googleV, googleU = Slot(2 * crawlerGoogle), Slot(2*crawlerGoogle + 1)
	bingV, bingU     = Slot(2 * crawlerBing), Slot(2*crawlerBing + 1)
)

// googleRanges gives Googlebot one published prefix (and 127.0.0.1).
func googleRanges() map[string][]netip.Prefix {
	return map[string][]netip.Prefix{"Googlebot": {
		netip.MustParsePrefix("66.249.64.0/19"), netip.MustParsePrefix("127.0.0.1/32")}}
}

// first is the first of v; "" for none.
func first(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// copies returns n copies of s, each in its own memory, as a server
// reads a header afresh for each request.
func copies(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = strings.Clone(s)
	}
	return out
}

// requestFrom is a request from addr with the User-Agent ua, and the
// header fields hdr (name, value, …).
func requestFrom(ua, addr string, hdr ...string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/sitemap-p-1.xml.gz", nil)
	r.Header.Set("User-Agent", ua)
	r.RemoteAddr = addr
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	return r
}

// newLog makes a Log of o (of 3 groups if o has none), failing t on an
// error; Close is t's cleanup.
func newLog(t testing.TB, o Options) *Log {
	t.Helper()
	if o.Groups == 0 {
		o.Groups = 3
	}
	l, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	return l
}

// fetched logs a fetch of f, served with a 200, by the client ua from addr
// at the Unix second sec, as a server records it after serving.
func fetched(l *Log, f File, ua, addr string, sec int64) {
	r := requestFrom(ua, addr)
	l.Record(f, l.Who(r, first(r.Header["User-Agent"]), sec), sec, false, 200, 100, true)
}

// waitFor waits until cond holds, failing t after 5 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
	}
}
