package chiroutes_test

import (
	"compress/gzip"
	"encoding/xml"
	"errors"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/chiroutes"
	"github.com/freshmap/sitemap/internal/testkit"
	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
)

const base = "https://example.com" // locs name the site, whatever host serves them

// TestNaturalOrder runs the program of the package documentation: the
// Source and the sitemap are made on an empty router, then chi's Logger and
// sm.Handler are its middlewares, then the routes are declared. chi's
// Logger sees the sitemap's answers as the client does, and every route
// declared before a build is listed by it.
func TestNaturalOrder(t *testing.T) {
	logs := captureChiLogger(t)
	clock := testkit.NewClock(time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC))

	r := chi.NewRouter()
	src, err := chiroutes.New(r, chiroutes.Config{BaseURL: base})
	if err != nil {
		t.Fatal(err)
	}
	sm, err := sitemap.New(sitemap.Config{BaseURL: base, TTL: time.Hour, Now: clock.Now},
		sitemap.Section{Name: "pages", Source: src})
	if err != nil {
		t.Fatal(err)
	}
	defer sm.Close()
	r.Use(middleware.Logger)
	r.Use(sm.Handler)
	r.Get("/", page)
	r.Get("/about", page)
	r.Get("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "User-agent: *\nDisallow: /admin/\n")
	})

	srv := httptest.NewServer(r)
	defer srv.Close()
	r.Get("/late", page) // after sitemap.New and before the first build

	robots := fetch(t, srv.URL+"/robots.txt")
	if want := "User-agent: *\nDisallow: /admin/\nSitemap: " + sm.IndexURL() + "\n"; robots != want {
		t.Errorf("robots.txt = %q, want %q", robots, want)
	}
	if status, size := logged(t, logs, srv.URL+"/robots.txt"); status != http.StatusOK || size != len(robots) {
		t.Errorf("chi's Logger recorded GET /robots.txt as %d with %d bytes, want 200 with the %d bytes sent", status, size, len(robots))
	}

	if got, want := listed(t, srv.URL), []string{base + "/", base + "/about", base + "/late"}; !slices.Equal(got, want) {
		t.Errorf("sitemap lists %q, want %q", got, want)
	}
	for _, p := range []string{"/sitemap_index.xml", "/sitemap-pages-1.xml.gz"} {
		if status, _ := logged(t, logs, srv.URL+p); status != http.StatusOK {
			t.Errorf("chi's Logger recorded GET %s as %d, want 200", p, status)
		}
	}

	r.Get("/later", page) // after the first build: listed once the sitemap rebuilds
	if got, want := listed(t, srv.URL), []string{base + "/", base + "/about", base + "/late"}; !slices.Equal(got, want) {
		t.Errorf("within the TTL the sitemap lists %q, want the cached %q", got, want)
	}
	clock.Add(time.Hour + time.Second)
	want := []string{base + "/", base + "/about", base + "/late", base + "/later"}
	eventually(t, func() bool { return slices.Equal(listed(t, srv.URL), want) }, // the first fetch gets the stale copy and starts the rebuild
		"after the TTL the sitemap does not list /later")
}

// TestRouteErrorFailsBuild shows what a mistake that depends on the routes
// does: without a good copy the sitemap answers 503, and with one it
// keeps serving that copy, and the build error is logged either way.
func TestRouteErrorFailsBuild(t *testing.T) {
	var logs testkit.SyncBuffer
	clock := testkit.NewClock(time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC))
	r := chi.NewRouter()
	src, err := chiroutes.New(r, chiroutes.Config{
		BaseURL: base,
		Paths:   map[string][]string{"/docs/{slug}": {"/docs/intro"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	sm, err := sitemap.New(sitemap.Config{BaseURL: base, TTL: time.Hour, Now: clock.Now, Logger: slog.New(slog.NewTextHandler(&logs, nil))},
		sitemap.Section{Name: "pages", Source: src})
	if err != nil {
		t.Fatal(err)
	}
	defer sm.Close()
	r.Use(sm.Handler)
	r.Get("/", page)
	srv := httptest.NewServer(r)
	defer srv.Close()

	// No route has the pattern /docs/{slug} yet.
	res, err := http.Get(srv.URL + "/sitemap_index.xml")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" {
		t.Errorf("index without a good copy: %s, Retry-After %q; want 503 with Retry-After", res.Status, res.Header.Get("Retry-After"))
	}
	if !strings.Contains(logs.String(), `chiroutes: Paths[\"/docs/{slug}\"]: no GET route has that pattern`) {
		t.Errorf("the build error is not logged:\n%s", logs.String())
	}

	docs := r.Route("/docs", func(r chi.Router) { r.Get("/{slug}", page) })
	clock.Add(61 * time.Second) // a failed build is not retried before RetryAfter
	good := []string{base + "/", base + "/docs/intro"}
	if got := listed(t, srv.URL); !slices.Equal(got, good) {
		t.Errorf("sitemap lists %q, want %q", got, good)
	}

	// A static route now takes /docs/intro away from the pattern.
	docs.Get("/intro", page)
	clock.Add(time.Hour + time.Second)
	listed(t, srv.URL) // the stale copy; starts the rebuilds, which fail
	eventually(t, func() bool { return strings.Contains(logs.String(), `is routed to \"/docs/intro\"`) },
		"the failed rebuild is not logged:\n"+logs.String())
	if got := listed(t, srv.URL); !slices.Equal(got, good) {
		t.Errorf("after a failed rebuild the sitemap lists %q, want the last good %q", got, good)
	}
}

// TestPageSizer: the Source gives its section's page size, so a differing
// Section.PageSize is a configuration error.
func TestPageSizer(t *testing.T) {
	src, err := chiroutes.New(chi.NewRouter(), chiroutes.Config{BaseURL: base})
	if err != nil {
		t.Fatal(err)
	}
	for size, ok := range map[int]bool{0: true, 50_000: true, 100: false} {
		sm, err := sitemap.New(sitemap.Config{BaseURL: base}, sitemap.Section{Source: src, PageSize: size})
		if ok != (err == nil) || err != nil && !errors.Is(err, sitemap.ErrConfig) {
			t.Errorf("PageSize %d: %v", size, err)
		}
		if sm != nil {
			sm.Close()
		}
	}
}

// captureChiLogger points chi's middleware.Logger at a buffer, without
// colour or time stamps, until the test ends.
func captureChiLogger(t *testing.T) *testkit.SyncBuffer {
	buf := new(testkit.SyncBuffer)
	saved := middleware.DefaultLogger
	middleware.DefaultLogger = middleware.RequestLogger(&middleware.DefaultLogFormatter{Logger: log.New(buf, "", 0), NoColor: true})
	t.Cleanup(func() { middleware.DefaultLogger = saved })
	return buf
}

// logged waits for chi's Logger to record a GET of u, which it does as the
// handler returns, and returns the status and body size it recorded.
func logged(t *testing.T, b *testkit.SyncBuffer, u string) (status, size int) {
	t.Helper()
	prefix := `"GET ` + u + ` HTTP/1.1" from `
	eventually(t, func() bool {
		for line := range strings.Lines(b.String()) {
			if rest, ok := strings.CutPrefix(line, prefix); ok { // "127.0.0.1:5000 - 200 75B in 40µs"
				_, rest, _ = strings.Cut(rest, " - ")
				code, rest, _ := strings.Cut(rest, " ")
				n, _, _ := strings.Cut(rest, "B ")
				status, _ = strconv.Atoi(code)
				size, _ = strconv.Atoi(n)
				return true
			}
		}
		return false
	}, "chi's Logger recorded no GET "+u+":\n"+b.String())
	return status, size
}

// eventually waits up to 5 seconds for cond, which waits on another
// goroutine (a background rebuild, a log line written as a handler
// returns), and fails the test with msg if it never holds.
func eventually(t *testing.T, cond func() bool, msg string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal(msg)
		}
	}
}

// listed fetches the sitemap index from the server at srvURL, then every
// file it lists, and returns the locs of their URLs.
func listed(t *testing.T, srvURL string) []string {
	t.Helper()
	var got []string
	for _, loc := range xmlLocs(t, fetch(t, srvURL+"/sitemap_index.xml")) {
		u, err := url.Parse(loc)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, xmlLocs(t, fetch(t, srvURL+u.Path))...)
	}
	return got
}

// fetch GETs u and returns its body, gunzipped if it is a .gz file.
func fetch(t *testing.T, u string) string {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", u, res.Status)
	}
	var r io.Reader = res.Body
	if strings.HasSuffix(u, ".gz") {
		if r, err = gzip.NewReader(res.Body); err != nil {
			t.Fatal(err)
		}
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func xmlLocs(t *testing.T, doc string) []string {
	t.Helper()
	var v struct {
		URLs     []string `xml:"url>loc"`
		Sitemaps []string `xml:"sitemap>loc"`
	}
	if err := xml.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatalf("%v in %s", err, doc)
	}
	return append(v.URLs, v.Sitemaps...)
}
