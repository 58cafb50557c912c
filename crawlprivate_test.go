package sitemap

import (
	"strings"
	"testing"
)

func TestPrivateCacheControl(t *testing.T) {
	for in, want := range map[string]string{
		"":                                 "private",
		defaultCacheControl:                "private, max-age=900, stale-while-revalidate=3600",
		"public, max-age=60, s-maxage=600": "private, max-age=60",
		"PUBLIC,S-MAXAGE=1,max-age=5":      "private, max-age=5",
		"no-store":                         "no-store",
		"private, max-age=60":              "private, max-age=60",
		`no-cache="a, public", public`:     `private, no-cache="a, public"`,
		`no-cache="a\", public", public`:   `private, no-cache="a\", public"`,
		"max-age=60,,":                     "private, max-age=60",
	} {
		if got := privateCacheControl(in); got != want {
			t.Errorf("privateCacheControl(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestVerifiedOnlyPrivate: what VerifiedOnly gives a verified crawler
// carries no public cacheability, whatever Config.CacheControl is, in
// every representation; a shared cache in front keeps none of it
// (issue 30, point 8).
func TestVerifiedOnlyPrivate(t *testing.T) {
	for cc, want := range map[string]string{
		"":                    "private, max-age=900, stale-while-revalidate=3600",
		"-":                   "private",
		"public, s-maxage=60": "private",
	} {
		sm := crawlSitemap(t, Config{CacheControl: cc, Crawlers: Crawlers{VerifiedOnly: true, Ranges: googleRanges}})
		for _, path := range []string{"/sitemap_index.xml", "/sitemap-p-1.xml.gz", "/sitemap-p-1.xml", "/sitemap-p-1.txt"} {
			w := fetch(sm, path, googlebotUA, "66.249.66.1:443")
			if w.Code != 200 {
				t.Fatalf("%s: %d", path, w.Code)
			}
			got := w.Header().Get("Cache-Control")
			if got != want || strings.Contains(strings.ToLower(got), "public") {
				t.Errorf("CacheControl %q: %s: Cache-Control %q, want %q", cc, path, got, want)
			}
			if w := fetch(sm, path, googlebotUA, "192.0.2.1:443"); w.Code != 403 || w.Header().Get("Cache-Control") != "" {
				t.Errorf("CacheControl %q: %s, spoofed: %d, Cache-Control %q", cc, path, w.Code, w.Header().Get("Cache-Control"))
			}
		}
	}
	// Without VerifiedOnly, every client gets the same bytes: public.
	sm := crawlSitemap(t, Config{})
	if got := fetch(sm, "/sitemap-p-1.xml.gz", googlebotUA, "66.249.66.1:443").Header().Get("Cache-Control"); got != defaultCacheControl {
		t.Errorf("without VerifiedOnly: %q", got)
	}
}

// TestAddressHeaderPort: behind a proxy that writes the client's port
// into its header, a real Googlebot verifies and is served under
// VerifiedOnly (it got a 403 before issue 30).
func TestAddressHeaderPort(t *testing.T) {
	sm := crawlSitemap(t, Config{Crawlers: Crawlers{VerifiedOnly: true, Ranges: googleRanges, AddressHeader: "X-Forwarded-For"}})
	for xff, want := range map[string]int{
		"66.249.66.1:443":               200,
		"198.51.100.7, 66.249.66.1:443": 200,
		"66.249.66.1":                   200,
		"66.249.66.1:443, 198.51.100.7": 403, // the proxy added the last
		"":                              403,
	} {
		if w := fetch(sm, "/sitemap-p-1.xml.gz", googlebotUA, "10.0.0.1:5000", "X-Forwarded-For", xff); w.Code != want {
			t.Errorf("X-Forwarded-For %q: %d, want %d", xff, w.Code, want)
		}
	}
}
