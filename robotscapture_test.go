package sitemap

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/robotstxt"
	"github.com/klauspost/compress/gzhttp"
)

func TestRobotsGzip(t *testing.T) {
	const appBody = "User-agent: *\nDisallow: /admin\n"
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	io.WriteString(zw, appBody)
	zw.Close()

	t.Run("compression middleware asked for identity", func(t *testing.T) {
		var sawAE string
		// A compression middleware that gzips whenever the client accepts it.
		app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			sawAE = r.Header.Get("Accept-Encoding")
			w.Header().Set("Content-Type", "text/plain")
			if strings.Contains(sawAE, "gzip") {
				w.Header().Set("Content-Encoding", "gzip")
				w.Write(zipped.Bytes())
				return
			}
			io.WriteString(w, appBody)
		})
		rec := serveRobots(t, []string{testRobotsLine}, app, robotsReq("GET", "Accept-Encoding", "gzip, br"))
		if sawAE != "identity" {
			t.Errorf("the app got Accept-Encoding %q, want identity", sawAE)
		}
		if got, want := rec.Body.String(), appBody+testRobotsLine+"\n"; got != want {
			t.Errorf("body = %q, want %q", got, want)
		}
	})

	t.Run("gzip sent anyway", func(t *testing.T) {
		app := &robotsApp{
			header: map[string]string{"Content-Type": "text/plain", "Content-Encoding": "gzip", "ETag": `"gz"`, "Vary": "Accept-Encoding"},
			body:   zipped.String(),
		}
		for _, method := range []string{"GET", "HEAD"} {
			rec := serveRobots(t, []string{testRobotsLine}, app, robotsReq(method, "Accept-Encoding", "gzip"))
			want := appBody + testRobotsLine + "\n"
			if method == "GET" && rec.Body.String() != want {
				t.Errorf("%s: body = %q, want %q", method, rec.Body, want)
			}
			if ce := rec.Header().Get("Content-Encoding"); ce != "" {
				t.Errorf("%s: Content-Encoding = %q, want none", method, ce)
			}
			if etag := rec.Header().Get("ETag"); etag == `"gz"` || etag == "" {
				t.Errorf("%s: ETag = %q, want one derived from the app's", method, etag)
			}
			checkLength(t, rec.Header(), len(want))
		}
	})

	t.Run("gzip, already listed", func(t *testing.T) {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		io.WriteString(zw, appBody+testRobotsLine+"\n")
		zw.Close()
		app := &robotsApp{header: map[string]string{"Content-Encoding": "gzip", "ETag": `"gz"`}, body: z.String()}
		rec := serveRobots(t, []string{testRobotsLine}, app, robotsReq("GET"))
		if got, want := rec.Body.String(), appBody+testRobotsLine+"\n"; got != want {
			t.Errorf("body = %q, want %q", got, want)
		}
		if etag := rec.Header().Get("ETag"); etag == `"gz"` {
			t.Errorf("ETag of the gzip bytes passed on for identity bytes")
		}
	})

	t.Run("unknown coding passes through", func(t *testing.T) {
		app := &robotsApp{header: map[string]string{"Content-Encoding": "br"}, body: "\x0b\x02\x80brotli"}
		rec := serveRobots(t, []string{testRobotsLine}, app, robotsReq("GET"))
		if rec.Body.String() != app.body || rec.Header().Get("Content-Encoding") != "br" {
			t.Errorf("got %q with Content-Encoding %q, want the app's bytes and br", rec.Body, rec.Header().Get("Content-Encoding"))
		}
	})

	t.Run("broken gzip passes through", func(t *testing.T) {
		app := &robotsApp{header: map[string]string{"Content-Encoding": "gzip"}, body: "not gzip"}
		rec := serveRobots(t, []string{testRobotsLine}, app, robotsReq("GET"))
		if rec.Body.String() != app.body {
			t.Errorf("body = %q, want the app's bytes", rec.Body)
		}
	})

	t.Run("decodes past the limit", func(t *testing.T) {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(bytes.Repeat([]byte("# padding\n"), robotstxt.MaxBytes/10+1))
		zw.Close()
		if z.Len() > robotstxt.MaxBytes {
			t.Fatalf("test body compresses to %d bytes", z.Len())
		}
		app := &robotsApp{header: map[string]string{"Content-Encoding": "gzip"}, body: z.String()}
		rec := serveRobots(t, []string{testRobotsLine}, app, robotsReq("GET"))
		if !bytes.Equal(rec.Body.Bytes(), z.Bytes()) || rec.Header().Get("Content-Encoding") != "gzip" {
			t.Errorf("a gzip body decoding past %d bytes was not passed through", robotstxt.MaxBytes)
		}
	})
}

// TestRobotsTooLarge: the 500 KiB limit holds after the merge (issue
// 30): a body that our line would take past it passes through unmodified,
// as one past it already does; one that fits with our line is merged.
func TestRobotsTooLarge(t *testing.T) {
	line := "Disallow: /" + strings.Repeat("x", 88) + "\n" // 100 bytes
	fits := robotstxt.MaxBytes - len(testRobotsLine) - 1   // with our line and its newline: the limit
	for _, size := range []int{fits, fits + 1, robotstxt.MaxBytes, robotstxt.MaxBytes + 1} {
		t.Run(strconv.Itoa(size), func(t *testing.T) {
			body := strings.Repeat(line, size/100) // ends with a newline
			if extra := size % 100; extra > 0 {
				body = strings.Repeat("#", extra-1) + "\n" + body
			}
			// Written in small pieces with a Flush between, as a streaming app would.
			app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("X-App", "1")
				for rest := body; rest != ""; {
					n := min(len(rest), 4096)
					io.WriteString(w, rest[:n])
					w.(http.Flusher).Flush()
					rest = rest[n:]
				}
			})
			rec := serveRobots(t, []string{testRobotsLine}, app, robotsReq("GET"))
			got := rec.Body.String()
			if size <= fits {
				if want := body + testRobotsLine + "\n"; got != want || len(got) != robotstxt.MaxBytes {
					t.Errorf("at the limit: got %d bytes, want %d merged", len(got), len(want))
				}
				checkLength(t, rec.Header(), len(got))
				return
			}
			if got != body {
				t.Errorf("past the limit: got %d bytes, want the app's %d unmodified", len(got), len(body))
			}
			if rec.Header().Get("X-App") != "1" {
				t.Errorf("past the limit after merging: headers %v, want the app's", rec.Header())
			}
			if size > robotstxt.MaxBytes && !rec.Flushed {
				t.Errorf("past the limit: headers %v, flushed %v; want the app's headers, flushed", rec.Header(), rec.Flushed)
			}
		})
	}
}

func TestRobotsCaptureFlushBeforeMerge(t *testing.T) {
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "User-agent: *\n")
		if err := http.NewResponseController(w).Flush(); err != nil {
			t.Errorf("Flush: %v", err)
		}
		io.WriteString(w, "Disallow: /tmp\n")
	})
	rec := serveRobots(t, []string{testRobotsLine}, app, robotsReq("GET"))
	if rec.Flushed {
		t.Errorf("the real writer was flushed before the body was merged")
	}
	if got, want := rec.Body.String(), "User-agent: *\nDisallow: /tmp\n"+testRobotsLine+"\n"; got != want {
		t.Errorf("body = %q, want %q", got, want)
	}
}

// TestRobotsWire runs the merge over a real connection: the client asks
// for gzip (as Go's transport does by default) from an app that always
// gzips, and HEAD is compared with GET.
func TestRobotsWire(t *testing.T) {
	const appBody = "User-agent: *\r\nDisallow: /search\r\n"
	rb := newRobots([]string{testRobotsLine})
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Unwrap lets the app reach the real connection's deadlines.
		if err := http.NewResponseController(w).SetWriteDeadline(time.Now().Add(time.Minute)); err != nil {
			t.Errorf("SetWriteDeadline through the capture: %v", err)
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Cache-Control", "max-age=60")
		w.Header().Set("ETag", `"v7"`)
		zw := gzip.NewWriter(w)
		io.WriteString(zw, appBody)
		zw.Close()
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			rb.Serve(w, r, app)
			return
		}
		app.ServeHTTP(w, r)
	}))
	defer srv.Close()

	res, err := http.Get(srv.URL + "/robots.txt")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	want := appBody + testRobotsLine + "\r\n"
	if string(body) != want {
		t.Errorf("body = %q, want %q", body, want)
	}
	if res.Uncompressed {
		t.Errorf("the response was gzip-encoded on the wire")
	}
	if res.ContentLength != int64(len(want)) {
		t.Errorf("ContentLength = %d, want %d", res.ContentLength, len(want))
	}
	if got := res.Header.Get("Cache-Control"); got != "max-age=60" {
		t.Errorf("Cache-Control = %q", got)
	}

	res, err = http.Head(srv.URL + "/robots.txt")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK || res.ContentLength != int64(len(want)) {
		t.Errorf("HEAD: %d with ContentLength %d, want 200 and %d", res.StatusCode, res.ContentLength, len(want))
	}

	req, _ := http.NewRequest("GET", srv.URL+"/robots.txt", nil)
	req.Header.Set("If-None-Match", res.Header.Get("ETag"))
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match with the HEAD's ETag: status %d, want 304", res.StatusCode)
	}
}

// TestRobotsCompressingApp puts a real compression middleware (gzhttp,
// compressing from the first byte) in front of the application, and an
// application that gzips whatever the client accepts: with an
// Accept-Encoding or none, the response is the merged identity body.
func TestRobotsCompressingApp(t *testing.T) {
	const appBody = "User-agent: *\nDisallow: /admin\n"
	wrap, err := gzhttp.NewWrapper(gzhttp.MinSize(0))
	if err != nil {
		t.Fatal(err)
	}
	middleware := wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, appBody)
	}))
	always := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { // gzip, asked for or not
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		io.WriteString(zw, appBody)
		zw.Close()
	})
	want := appBody + testRobotsLine + "\n"
	for _, app := range []struct {
		name string
		h    http.Handler
	}{{"gzhttp", middleware}, {"always gzip", always}} {
		for _, ae := range []string{"", "gzip", "gzip, deflate, br", "identity"} {
			for _, method := range []string{"GET", "HEAD"} {
				req := robotsReq(method)
				if ae != "" {
					req.Header.Set("Accept-Encoding", ae)
				}
				rec := serveRobots(t, []string{testRobotsLine}, app.h, req)
				name := app.name + " " + method + " Accept-Encoding " + strconv.Quote(ae)
				if rec.Code != http.StatusOK || rec.Header().Get("Content-Encoding") != "" {
					t.Errorf("%s: %d, Content-Encoding %q", name, rec.Code, rec.Header().Get("Content-Encoding"))
				}
				checkLength(t, rec.Header(), len(want))
				if method == "GET" && rec.Body.String() != want {
					t.Errorf("%s: body %q, want %q", name, rec.Body, want)
				}
			}
		}
	}
}

// TestRobotsCaptureReused serves, with one robots, responses that a
// capture reused from the previous request could spoil: headers of the
// previous response, and bodies of one length, each of which must be
// merged as the application wrote it: a merge kept with the previous
// request's buffer would match the next body written into that buffer.
func TestRobotsCaptureReused(t *testing.T) {
	rb := newRobots([]string{testRobotsLine})
	bodies := []string{"User-agent: *\nDisallow: /a\n", "User-agent: *\nDisallow: /b\n"}
	for i := range 8 {
		body := bodies[i%2]
		want := body + testRobotsLine + "\n"
		if i == 3 {
			want = body
		}
		app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if i == 0 {
				w.Header().Set("X-First", "only once")
			}
			if i == 3 {
				w.WriteHeader(http.StatusServiceUnavailable) // passes through
			}
			io.WriteString(w, body)
		})
		w := httptest.NewRecorder()
		rb.Serve(w, robotsReq("GET"), app)
		if got := w.Body.String(); got != want {
			t.Errorf("request %d: %q, want %q", i, got, want)
		}
		if v := w.Header().Get("X-First"); (v != "") != (i == 0) {
			t.Errorf("request %d: X-First %q", i, v)
		}
		if want := map[bool]int{true: http.StatusServiceUnavailable, false: http.StatusOK}[i == 3]; w.Code != want {
			t.Errorf("request %d: status %d, want %d", i, w.Code, want)
		}
	}
}
