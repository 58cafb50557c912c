package sitemap

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestMiddleware(t *testing.T) {
	sm := newTestSitemap(t, Config{}, Section{Name: "p", Source: newFake(20, 10), PageSize: 10})
	var seen []string
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.URL.Path)
		switch r.URL.Path {
		case "/robots.txt":
			w.Write([]byte("User-agent: *\nDisallow: /admin\n"))
		case "/sitemap.xml", "/sitemap-p-1.html":
			w.Write([]byte("app's own"))
		default:
			http.NotFound(w, r)
		}
	})
	h := sm.Handler(app)
	for _, tc := range []struct {
		path   string
		code   int
		toApp  bool
		substr string
	}{
		{"/", 404, true, ""},
		{"/products/1", 404, true, ""},
		{"/sitemap.xml", 200, true, "app's own"},      // not one of ours
		{"/sitemap-p-1.html", 200, true, "app's own"}, // not one of ours
		{"/sitemap_index.xml", 200, false, "<sitemapindex"},
		{"/sitemap-p-1.xml", 200, false, "<urlset"},
		{"/sitemap-p-9.xml.gz", 404, false, ""}, // ours, but no such page
		{"/sitemap-q-1.xml.gz", 404, false, ""}, // ours, no such section
		{"/robots.txt", 200, true, "Sitemap: https://example.com/sitemap_index.xml"},
	} {
		seen = nil
		w := get(h, tc.path)
		if w.Code != tc.code || (len(seen) > 0) != tc.toApp || !strings.Contains(w.Body.String(), tc.substr) {
			t.Errorf("%s: %d, app saw %v, body %q", tc.path, w.Code, seen, w.Body.String())
		}
	}
	robots := get(h, "/robots.txt").Body.String()
	if !strings.Contains(robots, "Disallow: /admin") {
		t.Errorf("app's robots.txt lost: %q", robots)
	}
}

func TestPassThroughUntouched(t *testing.T) {
	sm := newTestSitemap(t, Config{}, Section{Source: newFake(1, 1)})
	var gotW http.ResponseWriter
	var gotR *http.Request
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { gotW, gotR = w, r })
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodPost, "/api/orders?x=1", strings.NewReader("body"))
	sm.Handler(app).ServeHTTP(w, r)
	if gotW != http.ResponseWriter(w) || gotR != r {
		t.Error("the middleware wrapped the writer or the request of a request it does not serve")
	}
}
