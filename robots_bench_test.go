package sitemap

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// robotsDiscard is a ResponseWriter that keeps nothing, so that the
// benchmarks measure robots and not a recorder.
type robotsDiscard struct{ h http.Header }

func (d *robotsDiscard) Header() http.Header         { return d.h }
func (d *robotsDiscard) Write(p []byte) (int, error) { return len(p), nil }
func (d *robotsDiscard) WriteHeader(int)             {}

func benchRobots(b *testing.B, next http.Handler, method string, size int) {
	benchRobotsAE(b, next, method, "gzip", size)
}

// benchRobotsAE is benchRobots with that Accept-Encoding ("" for none).
func benchRobotsAE(b *testing.B, next http.Handler, method, ae string, size int) {
	rb := newRobots([]string{testRobotsLine})
	r := httptest.NewRequest(method, "/robots.txt", nil)
	if ae != "" {
		r.Header.Set("Accept-Encoding", ae)
	}
	w := &robotsDiscard{h: make(http.Header)}
	b.ReportAllocs()
	b.SetBytes(int64(size))
	for b.Loop() {
		clear(w.h)
		rb.Serve(w, r, next)
	}
}

// BenchmarkRobotsMinimal is the sitemap handler mounted alone.
func BenchmarkRobotsMinimal(b *testing.B) {
	benchRobots(b, nil, http.MethodGet, len(testMinimal))
}

// BenchmarkRobotsNotFound is an application without a robots.txt.
func BenchmarkRobotsNotFound(b *testing.B) {
	benchRobots(b, http.NotFoundHandler(), http.MethodGet, len(testMinimal))
}

// BenchmarkRobotsMerge is a typical robots.txt of about 1 KiB that lacks
// our line, for GET and HEAD asking for gzip, and for a GET without
// Accept-Encoding (wrk's, in scripts/ceiling.sh).
func BenchmarkRobotsMerge(b *testing.B) {
	body := "User-agent: *\n" + strings.Repeat("Disallow: /private/area/\n", 40)
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("ETag", `"v1"`)
		io.WriteString(w, body)
	})
	b.Run("GET", func(b *testing.B) { benchRobots(b, app, http.MethodGet, len(body)) })
	b.Run("HEAD", func(b *testing.B) { benchRobots(b, app, http.MethodHead, len(body)) })
	b.Run("GET-noAE", func(b *testing.B) { benchRobotsAE(b, app, http.MethodGet, "", len(body)) })
}

// BenchmarkRobotsMergeDemo is the demo's robots.txt (examples/demo
// App.Robots: a Header.Set and an fmt.Fprint, no validators) as wrk asks
// for it: the request scripts/ceiling.sh measures against the ceiling.
func BenchmarkRobotsMergeDemo(b *testing.B) {
	const body = "User-agent: *\nDisallow: /cart\nDisallow: /search\n"
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, body)
	})
	benchRobotsAE(b, app, http.MethodGet, "", len(body))
}
