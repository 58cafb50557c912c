package sitemap

import (
	"errors"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/crawllog"
	"github.com/freshmap/sitemap/internal/pagecheck"
)

const (
	testRobotsLine = "Sitemap: https://example.com/sitemap_index.xml"
	testMinimal    = "User-agent: *\nAllow: /\n\n" + testRobotsLine + "\n"
)

// robotsApp is an application that serves body at /robots.txt with status
// and the given headers, and records the request it was given.
type robotsApp struct {
	status int
	header map[string]string
	body   string
	got    *http.Request
	calls  int
}

func (a *robotsApp) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.got, a.calls = r, a.calls+1
	for k, v := range a.header {
		w.Header().Set(k, v)
	}
	if a.status != 0 {
		w.WriteHeader(a.status)
	}
	io.WriteString(w, a.body)
}

// serveRobots runs one request through newRobots(lines).serve.
func serveRobots(t *testing.T, lines []string, next http.Handler, req *http.Request) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	newRobots(lines).Serve(rec, req, next)
	return rec
}

func robotsReq(method string, header ...string) *http.Request {
	r := httptest.NewRequest(method, "/robots.txt", nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	return r
}

// checkLength fails unless Content-Length is present and equals want.
func checkLength(t *testing.T, h http.Header, want int) {
	t.Helper()
	if got := h.Get("Content-Length"); got != strconv.Itoa(want) {
		t.Errorf("Content-Length = %q, want %d", got, want)
	}
}

func TestRobotsMerge(t *testing.T) {
	for _, tc := range []struct {
		name, app, want string
	}{
		{"appended", "User-agent: *\nDisallow: /admin\n",
			"User-agent: *\nDisallow: /admin\n" + testRobotsLine + "\n"},
		{"no trailing newline", "User-agent: *\nDisallow: /admin",
			"User-agent: *\nDisallow: /admin\n" + testRobotsLine + "\n"},
		{"CRLF", "User-agent: *\r\nDisallow: /admin",
			"User-agent: *\r\nDisallow: /admin\r\n" + testRobotsLine + "\r\n"},
		{"CR", "User-agent: *\rDisallow: /admin\r",
			"User-agent: *\rDisallow: /admin\r" + testRobotsLine + "\r"},
		{"empty", "", testRobotsLine + "\n"},
		{"present", "User-agent: *\n" + testRobotsLine + "\nDisallow: /x\n",
			"User-agent: *\n" + testRobotsLine + "\nDisallow: /x\n"},
		{"present, other case and spacing", "  sitemap :  https://example.com/sitemap_index.xml  # ours\r\n",
			"  sitemap :  https://example.com/sitemap_index.xml  # ours\r\n"},
		{"present as the last line, after a BOM", "\ufeff" + testRobotsLine,
			"\ufeff" + testRobotsLine},
		{"commented out", "# " + testRobotsLine + "\n",
			"# " + testRobotsLine + "\n" + testRobotsLine + "\n"},
		{"other URL", "Sitemap: https://example.com/other.xml\n",
			"Sitemap: https://example.com/other.xml\n" + testRobotsLine + "\n"},
		{"URL differs in case", "Sitemap: https://example.com/SITEMAP_INDEX.xml\n",
			"Sitemap: https://example.com/SITEMAP_INDEX.xml\n" + testRobotsLine + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app := &robotsApp{header: map[string]string{"Content-Type": "text/plain; charset=utf-8"}, body: tc.app}
			rec := serveRobots(t, []string{testRobotsLine}, app, robotsReq("GET"))
			if rec.Code != http.StatusOK {
				t.Fatalf("status = %d, want 200", rec.Code)
			}
			if got := rec.Body.String(); got != tc.want {
				t.Errorf("body = %q, want %q", got, tc.want)
			}
			checkLength(t, rec.Header(), len(tc.want))
		})
	}
}

func TestRobotsSeveralLines(t *testing.T) {
	lines := []string{
		"Sitemap: https://example.com/a.xml",
		" sitemap:https://example.com/b.xml \n\nSitemap: https://example.com/c.xml",
		"SITEMAP: https://example.com/a.xml", // a repeat
	}
	app := &robotsApp{body: "User-agent: *\nSitemap: https://example.com/b.xml\n"}
	rec := serveRobots(t, lines, app, robotsReq("GET"))
	want := "User-agent: *\nSitemap: https://example.com/b.xml\n" +
		"Sitemap: https://example.com/a.xml\nSitemap: https://example.com/c.xml\n"
	if got := rec.Body.String(); got != want {
		t.Errorf("body = %q, want %q", got, want)
	}
	rec = serveRobots(t, lines, nil, robotsReq("GET"))
	want = "User-agent: *\nAllow: /\n\nSitemap: https://example.com/a.xml\n" +
		"Sitemap: https://example.com/b.xml\nSitemap: https://example.com/c.xml\n"
	if got := rec.Body.String(); got != want {
		t.Errorf("minimal body = %q, want %q", got, want)
	}
}

func TestRobotsHeadersKept(t *testing.T) {
	modified := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	app := &robotsApp{
		header: map[string]string{
			"Content-Type":   "text/plain",
			"Cache-Control":  "public, max-age=3600",
			"X-Custom":       "kept",
			"Last-Modified":  modified.Format(http.TimeFormat),
			"Content-Length": "26", // the app's own length, now wrong
			"ETag":           `"v1"`,
			"Content-Digest": "sha-256=:AAAA:",
		},
		body: "User-agent: *\nDisallow: /\n",
	}
	rec := serveRobots(t, []string{testRobotsLine}, app, robotsReq("GET"))
	h := rec.Header()
	for k, want := range map[string]string{
		"Content-Type":   "text/plain",
		"Cache-Control":  "public, max-age=3600",
		"X-Custom":       "kept",
		"Last-Modified":  modified.Format(http.TimeFormat),
		"ETag":           newRobots([]string{testRobotsLine}).Merger().DerivedETag(`"v1"`),
		"Content-Digest": "",
	} {
		if got := h.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if tag := h.Get("ETag"); !strings.HasPrefix(tag, `W/"v1-sitemap`) {
		t.Errorf("ETag = %q, want a weak tag derived from the app's", tag)
	}
	checkLength(t, h, rec.Body.Len())

	// Nothing appended: the app's bytes and strong ETag stand.
	app.body += testRobotsLine + "\n"
	app.header["Content-Length"] = strconv.Itoa(len(app.body))
	rec = serveRobots(t, []string{testRobotsLine}, app, robotsReq("GET"))
	if got := rec.Header().Get("ETag"); got != `"v1"` {
		t.Errorf("unchanged body: ETag = %q, want the app's", got)
	}
	if got := rec.Body.String(); got != app.body {
		t.Errorf("unchanged body: body = %q, want %q", got, app.body)
	}
	checkLength(t, rec.Header(), len(app.body))
}

func TestRobotsNotFound(t *testing.T) {
	for _, status := range []int{http.StatusNotFound, http.StatusGone} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			app := &robotsApp{
				status: status,
				header: map[string]string{"Content-Type": "text/html", "Cache-Control": "no-store", "X-App": "1"},
				body:   "<h1>not found</h1>",
			}
			rec := serveRobots(t, []string{testRobotsLine}, app, robotsReq("GET"))
			if rec.Code != http.StatusOK {
				t.Fatalf("status = %d, want 200", rec.Code)
			}
			if got := rec.Body.String(); got != testMinimal {
				t.Errorf("body = %q, want %q", got, testMinimal)
			}
			h := rec.Header()
			if got := h.Get("Content-Type"); got != "text/plain; charset=utf-8" {
				t.Errorf("Content-Type = %q", got)
			}
			if h.Get("X-App") != "" || h.Get("Cache-Control") != "" {
				t.Errorf("headers of the app's %d leaked: %v", status, h)
			}
			checkLength(t, h, len(testMinimal))
		})
	}
}

func TestRobotsHTMLIsNotRobots(t *testing.T) {
	app := &robotsApp{header: map[string]string{"Content-Type": "text/html; charset=utf-8"}, body: "<!doctype html><div id=app></div>"}
	rec := serveRobots(t, []string{testRobotsLine}, app, robotsReq("GET"))
	if got := rec.Body.String(); got != testMinimal {
		t.Errorf("body = %q, want the minimal robots.txt", got)
	}
}

func TestRobotsNilNext(t *testing.T) {
	rec := serveRobots(t, []string{testRobotsLine}, nil, robotsReq("GET"))
	if rec.Code != http.StatusOK || rec.Body.String() != testMinimal {
		t.Fatalf("got %d %q, want 200 %q", rec.Code, rec.Body, testMinimal)
	}
	checkLength(t, rec.Header(), len(testMinimal))
	etag := rec.Header().Get("ETag")
	if etag == "" || strings.HasPrefix(etag, "W/") {
		t.Errorf("ETag = %q, want a strong tag", etag)
	}

	rec = serveRobots(t, []string{testRobotsLine}, nil, robotsReq("GET", "If-None-Match", etag))
	if rec.Code != http.StatusNotModified || rec.Body.Len() != 0 {
		t.Errorf("If-None-Match: got %d with %d bytes, want 304 and none", rec.Code, rec.Body.Len())
	}

	rec = serveRobots(t, []string{testRobotsLine}, nil, robotsReq("HEAD"))
	if rec.Code != http.StatusOK || rec.Body.Len() != 0 {
		t.Errorf("HEAD: got %d with %d bytes, want 200 and none", rec.Code, rec.Body.Len())
	}
	checkLength(t, rec.Header(), len(testMinimal))
}

func TestRobotsMethods(t *testing.T) {
	rec := serveRobots(t, []string{testRobotsLine}, nil, robotsReq("POST"))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST without next: status = %d, want 405", rec.Code)
	}
	if got := rec.Header().Get("Allow"); got != "GET, HEAD" {
		t.Errorf("Allow = %q, want %q", got, "GET, HEAD")
	}

	app := &robotsApp{status: http.StatusTeapot, body: "app"}
	req := robotsReq("DELETE", "If-None-Match", `"x"`)
	rec = serveRobots(t, []string{testRobotsLine}, app, req)
	if rec.Code != http.StatusTeapot || rec.Body.String() != "app" {
		t.Errorf("DELETE: got %d %q, want the app's answer", rec.Code, rec.Body)
	}
	if app.got != req {
		t.Errorf("DELETE: the app got another request than the client's")
	}
}

func TestRobotsPassThrough(t *testing.T) {
	for _, status := range []int{
		http.StatusInternalServerError, http.StatusServiceUnavailable, http.StatusTooManyRequests,
		http.StatusMovedPermanently, http.StatusFound, http.StatusUnauthorized,
		http.StatusForbidden, http.StatusNotModified, http.StatusNoContent,
	} {
		for _, method := range []string{"GET", "HEAD"} {
			t.Run(strconv.Itoa(status)+method, func(t *testing.T) {
				body := "app body"
				if status == http.StatusNotModified || status == http.StatusNoContent {
					body = ""
				}
				app := &robotsApp{
					status: status,
					header: map[string]string{"Location": "https://www.example.com/robots.txt", "X-App": "1", "ETag": `"v1"`},
					body:   body,
				}
				rec := serveRobots(t, []string{testRobotsLine}, app, robotsReq(method))
				if rec.Code != status {
					t.Errorf("status = %d, want %d", rec.Code, status)
				}
				want := body
				if method == "HEAD" {
					want = ""
				}
				if got := rec.Body.String(); got != want {
					t.Errorf("body = %q, want %q", got, want)
				}
				for k, v := range app.header {
					if got := rec.Header().Get(k); got != v {
						t.Errorf("%s = %q, want %q", k, got, v)
					}
				}
			})
		}
	}
}

func TestRobotsHEAD(t *testing.T) {
	// The app writes no body for HEAD, as http.ServeContent does, so it is
	// asked with GET and the HEAD answer has the length of the GET.
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("X-Method", r.Method)
		if r.Method != http.MethodHead {
			io.WriteString(w, "User-agent: *\nDisallow: /private\n")
		}
	})
	getRec := serveRobots(t, []string{testRobotsLine}, app, robotsReq("GET"))
	headRec := serveRobots(t, []string{testRobotsLine}, app, robotsReq("HEAD"))
	if headRec.Code != http.StatusOK || headRec.Body.Len() != 0 {
		t.Fatalf("HEAD: got %d with %d bytes, want 200 and none", headRec.Code, headRec.Body.Len())
	}
	if got := headRec.Header().Get("X-Method"); got != "GET" {
		t.Errorf("the app saw %s, want GET", got)
	}
	checkLength(t, headRec.Header(), getRec.Body.Len())
	for _, k := range []string{"Content-Type", "Content-Length", "ETag", "X-Method"} {
		if g, h := getRec.Header().Get(k), headRec.Header().Get(k); g != h {
			t.Errorf("%s: GET %q, HEAD %q", k, g, h)
		}
	}
}

func TestRobotsConditional(t *testing.T) {
	modified := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	app := &robotsApp{
		header: map[string]string{"ETag": `"v1"`, "Last-Modified": modified.Format(http.TimeFormat)},
		body:   "User-agent: *\nDisallow:\n",
	}
	rec := serveRobots(t, []string{testRobotsLine}, app, robotsReq("GET"))
	etag := rec.Header().Get("ETag")
	for _, tc := range []struct {
		name   string
		header []string
		want   int
	}{
		{"our ETag", []string{"If-None-Match", etag}, http.StatusNotModified},
		{"the app's ETag", []string{"If-None-Match", `"v1"`}, http.StatusOK},
		{"not modified since", []string{"If-Modified-Since", modified.Format(http.TimeFormat)}, http.StatusNotModified},
		{"modified since", []string{"If-Modified-Since", modified.Add(-time.Hour).Format(http.TimeFormat)}, http.StatusOK},
		{"range", []string{"Range", "bytes=0-3"}, http.StatusPartialContent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := serveRobots(t, []string{testRobotsLine}, app, robotsReq("GET", tc.header...))
			if rec.Code != tc.want {
				t.Errorf("status = %d, want %d", rec.Code, tc.want)
			}
			for _, k := range []string{"If-None-Match", "If-Modified-Since", "Range"} {
				if v := app.got.Header.Get(k); v != "" {
					t.Errorf("the app got %s: %q", k, v)
				}
			}
		})
	}
}

// TestRobotsMergeOnce changes the application's robots.txt between
// requests, back and forth, with one robots for all of them: each answer
// is the merge of the body the application sent for that request, never
// the previous one's (mergeOnce keeps the last merge).
func TestRobotsMergeOnce(t *testing.T) {
	rb := newRobots([]string{testRobotsLine})
	bodies := []string{
		"User-agent: *\nDisallow: /a\n",
		"User-agent: *\nDisallow: /b\n",
		"User-agent: *\nDisallow: /b\n" + testRobotsLine + "\n", // has our line: sent as is
		"User-agent: *\nDisallow: /b\n",
	}
	for i := range 3 * len(bodies) {
		body := bodies[i%len(bodies)]
		app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, body) })
		w := httptest.NewRecorder()
		rb.Serve(w, httptest.NewRequest(http.MethodGet, "/robots.txt", nil), app)
		want := body
		if !strings.Contains(body, testRobotsLine) {
			want += testRobotsLine + "\n"
		}
		if got := w.Body.String(); got != want {
			t.Fatalf("request %d: %q, want %q", i, got, want)
		}
	}
}

// TestRobotsAppRequest checks the request the application is given: a GET
// without the client's preconditions and Range (present even empty), with
// Accept-Encoding identity in place of any other, and no Accept-Encoding
// where the client sent none; the client's request itself is left as it
// came.
func TestRobotsAppRequest(t *testing.T) {
	const date = "Wed, 01 May 2024 12:00:00 GMT"
	for _, tc := range []struct {
		name, method string
		header       []string
		wantAE       []string // nil: no Accept-Encoding
	}{
		{"GET", "GET", nil, nil},
		{"HEAD", "HEAD", nil, nil},
		{"identity", "GET", []string{"Accept-Encoding", "identity"}, []string{"identity"}},
		{"gzip", "GET", []string{"Accept-Encoding", "gzip"}, []string{"identity"}},
		{"HEAD gzip", "HEAD", []string{"Accept-Encoding", "gzip, br"}, []string{"identity"}},
		{"If-None-Match", "GET", []string{"If-None-Match", `"x"`}, nil},
		{"If-Match", "GET", []string{"If-Match", `"x"`}, nil},
		{"If-Modified-Since", "GET", []string{"If-Modified-Since", date}, nil},
		{"If-Unmodified-Since", "HEAD", []string{"If-Unmodified-Since", date}, nil},
		{"If-Range", "GET", []string{"If-Range", `"x"`, "Range", "bytes=0-3"}, nil},
		{"Range empty", "GET", []string{"Range", ""}, nil},
		{"all", "GET", []string{"If-None-Match", `"x"`, "If-Modified-Since", date, "Range", "bytes=1-", "Accept-Encoding", "gzip"}, []string{"identity"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app := &robotsApp{header: map[string]string{"Content-Type": "text/plain"}, body: "User-agent: *\n"}
			req := robotsReq(tc.method, tc.header...)
			req.Header.Set("X-Kept", "yes")
			before := req.Header.Clone()
			serveRobots(t, []string{testRobotsLine}, app, req)
			got := app.got
			if got.Method != http.MethodGet {
				t.Errorf("the app got %s, want GET", got.Method)
			}
			for _, k := range []string{"If-None-Match", "If-Match", "If-Modified-Since", "If-Unmodified-Since", "If-Range", "Range"} {
				if v, ok := got.Header[k]; ok {
					t.Errorf("the app got %s: %q", k, v)
				}
			}
			if ae := got.Header["Accept-Encoding"]; !slices.Equal(ae, tc.wantAE) {
				t.Errorf("the app got Accept-Encoding %q, want %q", ae, tc.wantAE)
			}
			if got.Header.Get("X-Kept") != "yes" {
				t.Errorf("the app lost X-Kept: %v", got.Header)
			}
			if req.Method != tc.method || !maps.EqualFunc(req.Header, before, slices.Equal) {
				t.Errorf("the client's request changed: %s %v, was %s %v", req.Method, req.Header, tc.method, before)
			}
		})
	}
}

// TestRobotsValidatorsChange changes the application's ETag and
// Last-Modified between requests, with one robots for all of them: each
// response carries the ETag derived from, and the Last-Modified of, that
// request's application response (validatorsOf keeps the last ones).
func TestRobotsValidatorsChange(t *testing.T) {
	rb := newRobots([]string{testRobotsLine})
	tag := func(opaque string) string { return rb.Merger().DerivedETag(`"` + opaque + `"`) } // held by TestDerivedETag
	d1 := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	d2 := d1.Add(time.Hour)
	for i, tc := range []struct {
		etag, lastMod     string
		wantTag, wantMod  string
		notModifiedByDate bool
	}{
		{`"v1"`, d1.Format(http.TimeFormat), tag("v1"), d1.Format(http.TimeFormat), true},
		{`"v2"`, d2.Format(http.TimeFormat), tag("v2"), d2.Format(http.TimeFormat), true},
		{`"v2"`, d1.Format(time.RFC850), tag("v2"), d1.Format(http.TimeFormat), true}, // reformatted
		{`bad`, "not a date", "", "not a date", false},
		{"", "", "", "", false},
		{`W/"v1"`, d1.Format(http.TimeFormat), tag("v1"), d1.Format(http.TimeFormat), true},
	} {
		app := &robotsApp{header: map[string]string{"Content-Type": "text/plain"}, body: "User-agent: *\n"}
		if tc.etag != "" {
			app.header["ETag"] = tc.etag
		}
		if tc.lastMod != "" {
			app.header["Last-Modified"] = tc.lastMod
		}
		w := httptest.NewRecorder()
		rb.Serve(w, robotsReq("GET"), app)
		if got := w.Header().Get("ETag"); got != tc.wantTag {
			t.Errorf("request %d: ETag %q, want %q", i, got, tc.wantTag)
		}
		if got := w.Header().Get("Last-Modified"); got != tc.wantMod {
			t.Errorf("request %d: Last-Modified %q, want %q", i, got, tc.wantMod)
		}
		w = httptest.NewRecorder()
		rb.Serve(w, robotsReq("GET", "If-Modified-Since", d2.Format(http.TimeFormat)), app)
		if got := w.Code == http.StatusNotModified; got != tc.notModifiedByDate {
			t.Errorf("request %d: If-Modified-Since: %d", i, w.Code)
		}
	}
}

// testPolicy is a policy with every rule, and a signal.
var testPolicy = RobotsPolicy{Training: RobotsDisallow, Search: RobotsAllow, UserTriggered: RobotsAllow, ContentSignal: "search=yes, ai-train=no"}

// TestRobotsPolicyServed: through the middleware, the application's
// robots.txt gets the policy, and without one the minimal file does;
// a policy that adds nothing changes nothing.
func TestRobotsPolicyServed(t *testing.T) {
	sm := newTestSitemap(t, Config{Robots: testPolicy}, Section{Source: FromSlice(numbered(3), 0)})
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" && r.Header.Get("X-Has") != "" {
			w.Write([]byte("User-agent: *\nDisallow: /admin\n\nUser-agent: GPTBot\nAllow: /\n"))
			return
		}
		http.NotFound(w, r)
	})
	h := sm.Handler(app)
	for _, has := range []string{"", "1"} {
		r := httptest.NewRequest(http.MethodGet, "/robots.txt", nil)
		r.Header.Set("X-Has", has)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		body := w.Body.String()
		if w.Code != 200 || !strings.Contains(body, "User-agent: ClaudeBot\n") || !strings.Contains(body, "Content-Signal: search=yes, ai-train=no\n") ||
			!strings.Contains(body, "Sitemap: https://example.com/sitemap_index.xml\n") {
			t.Errorf("application's file %q: %d\n%s", has, w.Code, body)
		}
		if has != "" && (strings.Count(body, "GPTBot") != 1 || !allowedTo(body, "GPTBot", "/admin")) {
			t.Errorf("GPTBot, named by the application, is given the policy too:\n%s", body)
		}
	}
}

func TestRobotsPolicyConfig(t *testing.T) {
	for name, p := range map[string]RobotsPolicy{
		"a rule out of range":  {Training: 7},
		"a signal not yes/no":  {ContentSignal: "search=maybe"},
		"a signal in capitals": {ContentSignal: "Search=yes"},
		"a signal twice":       {ContentSignal: "search=yes, search=no"},
		"a comment":            {ContentSignal: "search=yes # no"},
		"a line break":         {ContentSignal: "search=yes\nDisallow: /"},
		"an empty element":     {ContentSignal: "search=yes,"},
	} {
		if _, err := New(Config{BaseURL: "https://example.com", Robots: p}, Section{Source: FromSlice(numbered(1), 0)}); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v, want ErrConfig", name, err)
		}
	}
	for _, ok := range []string{"search=yes, ai-train=no", "ai-input=no", "search=yes,ai-input=yes,ai-train=no"} {
		if _, err := newRobotsPolicy(RobotsPolicy{ContentSignal: ok}); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	if p, err := newRobotsPolicy(RobotsPolicy{}); p != nil || err != nil {
		t.Errorf("the zero policy: %v, %v; want nil", p, err)
	}
}

// allowedTo reports whether robots.txt body lets agent fetch path, as the
// self-audit reads it (internal/pagecheck: Google's rules).
func allowedTo(body, agent, path string) bool {
	ok, _ := pagecheck.ParseRobots([]byte(body), strings.ToLower(agent)).Allowed(path)
	return ok
}

// TestRobotsPolicyAgents: each purpose's rule reaches every AI agent of
// that purpose (crawlerfamilies.go), and no other crawler: in the minimal
// robots.txt, which allows everyone, training crawlers are disallowed,
// search and user-triggered ones allowed, and the search engines' own
// crawlers are left alone; a purpose left unset names none of its agents.
// The merge into an application's file is tested in internal/robotstxt.
func TestRobotsPolicyAgents(t *testing.T) {
	p, err := newRobotsPolicy(testPolicy)
	if err != nil {
		t.Fatal(err)
	}
	body, _, _ := newPolicyRobots([]string{"Sitemap: https://example.com/sitemap_index.xml"}, p).Merger().Minimal()
	for pur, want := range map[crawllog.Purpose]bool{crawllog.Training: false, crawllog.Search: true, crawllog.UserTriggered: true} {
		agents := crawllog.AIAgents(pur)
		if len(agents) == 0 {
			t.Fatalf("no agents for %s", pur.String())
		}
		for _, a := range agents {
			if !strings.Contains(string(body), "User-agent: "+a+"\n") {
				t.Errorf("%s (%s) is not named:\n%s", a, pur.String(), body)
			}
			if got := allowedTo(string(body), a, "/page"); got != want {
				t.Errorf("%s (%s): allowed %v, want %v\n%s", a, pur.String(), got, want, body)
			}
		}
	}
	for _, a := range []string{"Googlebot", "Bingbot", "Applebot"} {
		if strings.Contains(string(body), "User-agent: "+a+"\n") || !allowedTo(string(body), a, "/page") {
			t.Errorf("a search engine's %s is named by the policy:\n%s", a, body)
		}
	}
	p, err = newRobotsPolicy(RobotsPolicy{Search: RobotsDisallow})
	if err != nil {
		t.Fatal(err)
	}
	body, _, _ = newPolicyRobots(nil, p).Merger().Minimal()
	if strings.Contains(string(body), "GPTBot") || strings.Contains(string(body), "ChatGPT-User") || !strings.Contains(string(body), "User-agent: OAI-SearchBot\n") {
		t.Errorf("search alone disallowed:\n%s", body)
	}
}
