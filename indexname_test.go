package sitemap

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/paths"
	"github.com/freshmap/sitemap/internal/testkit"
)

// TestIndexName: Config.IndexName names the index, its HTML view and
// robots.txt's Sitemap: line; the other names are no longer the index's.
func TestIndexName(t *testing.T) {
	src := FromSlice([]URL{{Loc: "https://example.com/"}, {Loc: "https://example.com/a"}}, 1)
	sm := newTestSitemap(t, Config{IndexName: "sitemap.xml", HTML: true}, Section{Source: src})
	h := sm.Handler(http.NotFoundHandler())
	w := get(h, "/sitemap.xml")
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "<sitemapindex") {
		t.Fatalf("GET /sitemap.xml: %d\n%s", w.Code, w.Body)
	}
	if sm.IndexURL() != "https://example.com/sitemap.xml" {
		t.Errorf("IndexURL %q", sm.IndexURL())
	}
	if body := get(h, "/robots.txt").Body.String(); !strings.Contains(body, "Sitemap: https://example.com/sitemap.xml\n") || strings.Contains(body, "sitemap_index") {
		t.Errorf("robots.txt:\n%s", body)
	}
	for path, want := range map[string]int{
		"/sitemap_index.xml":  http.StatusNotFound,
		"/sitemap_index.html": http.StatusNotFound,
		"/sitemap.html":       http.StatusOK,
		"/sitemap-2.xml":      http.StatusOK, // a page, not an index file
		"/sitemap-1.html":     http.StatusOK,
	} {
		if w := get(h, path); w.Code != want {
			t.Errorf("GET %s: %d, want %d", path, w.Code, want)
		}
	}
	if page := get(h, "/sitemap-1.html").Body.String(); !strings.Contains(page, `<a href="sitemap.html">All sitemap files</a>`) {
		t.Errorf("the file's view does not link to the index's:\n%s", page)
	}
	if idx := get(h, "/sitemap.html").Body.String(); !strings.Contains(idx, `<a href="sitemap.xml">sitemap.xml</a>`) {
		t.Errorf("the index's view does not name it:\n%s", idx)
	}
}

// TestIndexNameOther: with another name, BASE/sitemap.xml serves the
// index too, with the same bytes and validators (a 304 by either name's
// ETag or date), unless the application has a sitemap.xml of its own: any
// answer of the application but a 404 goes out as it is, and a 404's
// header and body never do.
func TestIndexNameOther(t *testing.T) {
	src := FromSlice([]URL{{Loc: "https://example.com/shop/"}}, 0)
	clk := testkit.NewClock(time.Now())
	sm := newTestSitemap(t, Config{BaseURL: "https://example.com/shop/", IndexName: "maps_2026.xml", Now: clk.Now}, Section{Source: src})
	clk.Add(floorAhead) // past the floor of the start: the index has a Last-Modified
	none := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-App", "404")
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, "<h1>not here</h1>")
	})
	h := sm.Handler(none)
	idx := get(h, "/shop/maps_2026.xml")
	root := get(h, "/shop/sitemap.xml")
	if idx.Code != http.StatusOK || root.Code != http.StatusOK || root.Body.String() != idx.Body.String() ||
		root.Header().Get("Etag") != idx.Header().Get("Etag") || root.Header().Get("Last-Modified") != idx.Header().Get("Last-Modified") ||
		root.Header().Get("X-App") != "" || root.Header().Get("Content-Type") != "application/xml; charset=utf-8" {
		t.Fatalf("the index %d %v, sitemap.xml %d %v\n%s", idx.Code, idx.Header(), root.Code, root.Header(), root.Body)
	}
	for _, path := range []string{"/shop/maps_2026.xml", "/shop/sitemap.xml"} {
		for _, hdr := range [][]string{{"If-None-Match", root.Header().Get("Etag")}, {"If-Modified-Since", idx.Header().Get("Last-Modified")}} {
			if w := get(h, path, hdr...); w.Code != http.StatusNotModified {
				t.Errorf("GET %s with %s: %d, want 304", path, hdr[0], w.Code)
			}
		}
	}
	if w := do(h, http.MethodHead, "/shop/sitemap.xml"); w.Code != http.StatusOK || w.Body.Len() != 0 || w.Header().Get("Etag") != idx.Header().Get("Etag") {
		t.Errorf("HEAD /shop/sitemap.xml: %d %v", w.Code, w.Header())
	}
	if body := get(h, "/robots.txt").Body.String(); !strings.Contains(body, "Sitemap: https://example.com/shop/maps_2026.xml\n") {
		t.Errorf("robots.txt:\n%s", body)
	}
	if w := get(h, "/shop/sitemap_index.xml"); w.Code != http.StatusNotFound || w.Header().Get("X-App") != "404" {
		t.Errorf("GET /shop/sitemap_index.xml: %d %v (want the application's 404)", w.Code, w.Header())
	}

	own := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/shop/sitemap.xml" {
			w.Header().Set("Content-Type", "application/xml")
			w.Header().Set("X-App", "mine")
			io.WriteString(w, "<urlset/>")
			return
		}
		http.NotFound(w, r)
	})
	w := get(sm.Handler(own), "/shop/sitemap.xml")
	if w.Code != http.StatusOK || w.Body.String() != "<urlset/>" || w.Header().Get("X-App") != "mine" || w.Header().Get("Etag") != "" {
		t.Errorf("the application's own sitemap.xml: %d %v\n%s", w.Code, w.Header(), w.Body)
	}
	moved := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/elsewhere.xml", http.StatusMovedPermanently)
	})
	if w := get(sm.Handler(moved), "/shop/sitemap.xml"); w.Code != http.StatusMovedPermanently || w.Header().Get("Location") != "/elsewhere.xml" {
		t.Errorf("the application's redirect: %d %v", w.Code, w.Header())
	}
	// With no application (the Sitemap as a handler of its own), the path is ours.
	if w := get(sm, "/shop/sitemap.xml"); w.Code != http.StatusOK || w.Body.String() != idx.Body.String() {
		t.Errorf("ServeHTTP /shop/sitemap.xml: %d", w.Code)
	}
}

// TestIndexNameChecked: New refuses a name that is no plain file name
// ending in .xml, or that another of the sitemap's files has.
func TestIndexNameChecked(t *testing.T) {
	src := FromSlice([]URL{{Loc: "https://example.com/"}}, 0)
	for _, name := range []string{"sitemap", "a/b.xml", ".xml", "maps.xml.gz", "sitemap-1.xml", "sitemap_index-2.xml",
		"x.y.xml", "s p.xml", "ü.xml", strings.Repeat("a", paths.MaxIndexName) + ".xml", "index.XML"} {
		if _, err := New(Config{BaseURL: "https://example.com", IndexName: name}, Section{Source: src}); !errors.Is(err, ErrConfig) {
			t.Errorf("IndexName %q: %v, want ErrConfig", name, err)
		}
	}
	for _, name := range []string{"sitemap.xml", "sitemap_index.xml", "Maps-2026_b.xml"} {
		sm, err := New(Config{BaseURL: "https://example.com", IndexName: name}, Section{Source: src})
		if err != nil {
			t.Fatalf("IndexName %q: %v", name, err)
		}
		sm.Close()
	}
}
