package sitemap

import (
	"context"
	"iter"
	"net/http"
	"strings"
	"testing"
)

func TestRoutes(t *testing.T) {
	sm := newTestSitemap(t, Config{},
		Section{Name: "products", Source: newFake(25, 10), PageSize: 10},
		Section{Name: "static-pages", Source: newFake(3, 10), PageSize: 10})
	for _, tc := range []struct {
		path string
		want int
		ct   string
	}{
		{"/sitemap_index.xml", 200, "application/xml; charset=utf-8"},
		{"/sitemap-products-1.xml.gz", 200, "application/gzip"},
		{"/sitemap-products-3.xml.gz", 200, "application/gzip"},
		{"/sitemap-products-3.xml", 200, "application/xml; charset=utf-8"},
		{"/sitemap-static-pages-1.xml.gz", 200, "application/gzip"},
		{"/sitemap-products-4.xml.gz", 404, ""},                    // out of range
		{"/sitemap-products-0.xml.gz", 404, ""},                    // zero
		{"/sitemap-products--1.xml.gz", 404, ""},                   // negative
		{"/sitemap-products-01.xml.gz", 404, ""},                   // leading zero: not canonical
		{"/sitemap-products-+1.xml.gz", 404, ""},                   // sign
		{"/sitemap-products-1e0.xml.gz", 404, ""},                  // not decimal
		{"/sitemap-products-x.xml.gz", 404, ""},                    // not numeric
		{"/sitemap-products-.xml.gz", 404, ""},                     // empty number
		{"/sitemap-products-99999999999999999999.xml.gz", 404, ""}, // overflow
		{"/sitemap-products-9223372036854775808.xml.gz", 404, ""},  // MaxInt64 + 1
		{"/sitemap-products-9223372036854775807.xml.gz", 404, ""},  // MaxInt64: canonical, but not in the index
		{"/sitemap-products-9223372036854775807.xml.gz", 404, ""},
		{"/sitemap-nope-1.xml.gz", 404, ""}, // unknown section
		{"/sitemap-1.xml.gz", 404, ""},      // no unnamed section
		{"/sitemap--1.xml.gz", 404, ""},     // empty section name
		{"/sitemap-products-1.XML.GZ", 404, ""},
		{"/sitemap-products-1.xml.gz/", 404, ""},
		{"/sitemap-products-1.gz", 404, ""},
		{"/sitemap_index.xml.gz", 404, ""},
		{"/SITEMAP_INDEX.XML", 404, ""},
		{"/x/sitemap_index.xml", 404, ""},
		{"/", 404, ""},
	} {
		t.Run(tc.path, func(t *testing.T) {
			w := get(sm, tc.path)
			if w.Code != tc.want {
				t.Fatalf("status = %d, want %d", w.Code, tc.want)
			}
			if got := w.Header().Get("X-Robots-Tag"); got != "noindex" {
				t.Errorf("X-Robots-Tag = %q", got)
			}
			if tc.want != 200 {
				if w.Header().Get("Etag") != "" || w.Header().Get("Last-Modified") != "" {
					t.Errorf("error response has validators: %v", w.Header())
				}
				return
			}
			if got := w.Header().Get("Content-Type"); got != tc.ct {
				t.Errorf("Content-Type = %q, want %q", got, tc.ct)
			}
			if got := w.Header().Get("Cache-Control"); got != defaultCacheControl {
				t.Errorf("Cache-Control = %q", got)
			}
			if w.Header().Get("Content-Encoding") != "" {
				t.Errorf("Content-Encoding = %q without Accept-Encoding", w.Header().Get("Content-Encoding"))
			}
		})
	}
}

func TestMethodNotAllowed(t *testing.T) {
	sm := newTestSitemap(t, Config{}, Section{Source: newFake(5, 10)})
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodOptions, "PATCH"} {
		for _, p := range []string{"/sitemap_index.xml", "/sitemap-1.xml.gz"} {
			w := do(sm, m, p)
			if w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != "GET, HEAD" {
				t.Errorf("%s %s: %d Allow=%q", m, p, w.Code, w.Header().Get("Allow"))
			}
		}
	}
	if w := do(sm, http.MethodPost, "/sitemap-2.xml.gz"); w.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST on a missing page = %d, want 405", w.Code)
	}
}

func TestUnnamedSection(t *testing.T) {
	sm := newTestSitemap(t, Config{}, Section{Source: newFake(15, 10), PageSize: 10})
	for path, want := range map[string]int{
		"/sitemap-1.xml.gz": 200, "/sitemap-2.xml.gz": 200, "/sitemap-2.xml": 200,
		"/sitemap-3.xml.gz": 404, "/sitemap-x-1.xml.gz": 404, "/sitemap-0.xml.gz": 404,
	} {
		if w := get(sm, path); w.Code != want {
			t.Errorf("%s = %d, want %d", path, w.Code, want)
		}
	}
	idx := get(sm, "/sitemap_index.xml").Body.String()
	if !strings.Contains(idx, "<loc>https://example.com/sitemap-2.xml.gz</loc>") {
		t.Errorf("index does not list page 2:\n%s", idx)
	}
}

func TestBasePathPrefix(t *testing.T) {
	sm := newTestSitemap(t, Config{BaseURL: "https://Example.com:8443/shop"}, Section{Name: "p", Source: SourceFunc{
		PagesFunc: func(context.Context) iter.Seq2[PageInfo, error] {
			return func(yield func(PageInfo, error) bool) { yield(PageInfo{Number: 1}, nil) }
		},
		URLsFunc: func(context.Context, int64) iter.Seq2[URL, error] {
			return func(yield func(URL, error) bool) {
				_ = yield(URL{Loc: "https://example.com:8443/shop/a"}, nil) &&
					yield(URL{Loc: "https://example.com:8443/other"}, nil) &&
					yield(URL{Loc: "https://EXAMPLE.com:8443/shop/b"}, nil)
			}
		},
	}})
	if w := get(sm, "/sitemap_index.xml"); w.Code != 404 {
		t.Errorf("index outside the base path = %d", w.Code)
	}
	w := get(sm, "/shop/sitemap_index.xml")
	if w.Code != 200 || !strings.Contains(w.Body.String(), "<loc>https://example.com:8443/shop/sitemap-p-1.xml.gz</loc>") {
		t.Fatalf("index = %d\n%s", w.Code, w.Body)
	}
	body := get(sm, "/shop/sitemap-p-1.xml").Body.String()
	if !strings.Contains(body, "/shop/a<") || strings.Contains(body, "/other") || !strings.Contains(body, "/shop/b<") {
		t.Errorf("page does not keep exactly the URLs under the base path:\n%s", body)
	}
	if got := get(sm, "/robots.txt").Body.String(); !strings.Contains(got, "\nSitemap: https://example.com:8443/shop/sitemap_index.xml\n") {
		t.Errorf("robots.txt does not name the index under the base path:\n%s", got)
	}
}

// TestPercentEncodedAlias: only the canonical name of a file is served. A
// path whose escaped form is not that name, though it decodes to it
// (/%73itemap-1.xml.gz), is a 404, from the handler and the middleware
// alike, under a base path too; the application never sees it.
func TestPercentEncodedAlias(t *testing.T) {
	for _, tc := range []struct {
		base    string
		src     Source
		aliases []string
	}{
		{"https://example.com", newRecent(recentURLs(3)...), []string{"/%73itemap-p-1.xml.gz", "/sitemap-p-%31.xml.gz", "/sitemap%2Dp-1.xml",
			"/sitemap-p-1.xml%2Egz", "/sitemap-p-1%2Etxt", "/sitemap_index%2Exml", "/%73itemap_index.xml", "/sitemap-%70.atom"}},
		{"https://example.com/shop", listSource(URL{Loc: "https://example.com/shop/a"}), []string{"/shop/%73itemap-p-1.xml.gz",
			"/%73hop/sitemap-p-1.xml.gz", "/shop%2Fsitemap-p-1.xml.gz", "/shop/sitemap_index%2Exml"}},
	} {
		sm := newTestSitemap(t, Config{BaseURL: tc.base, FeedEntries: 10}, Section{Name: "p", Source: tc.src})
		app := sm.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("app")) }))
		prefix := strings.TrimPrefix(tc.base, "https://example.com")
		canonical := []string{"/sitemap-p-1.xml.gz", "/sitemap-p-1.xml", "/sitemap-p-1.txt", "/sitemap_index.xml"}
		if prefix == "" {
			canonical = append(canonical, "/sitemap-p.atom")
		}
		for _, p := range canonical {
			if w := get(sm, prefix+p); w.Code != 200 {
				t.Errorf("%s%s = %d, want 200", prefix, p, w.Code)
			}
		}
		for _, p := range tc.aliases {
			for name, h := range map[string]http.Handler{"handler": sm, "middleware": app} {
				if w := get(h, p); w.Code != http.StatusNotFound {
					t.Errorf("%s %s = %d %.40q, want 404", name, p, w.Code, w.Body)
				}
			}
		}
	}
}
