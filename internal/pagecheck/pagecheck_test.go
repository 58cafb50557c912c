package pagecheck

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	const loc = "https://example.com/a"
	page := func(head string) []byte {
		return []byte("<!doctype html><html><head>" + head + "</head><body>x</body></html>")
	}
	for _, c := range []struct {
		name   string
		status int
		h      http.Header
		body   []byte
		want   string // kinds, comma-separated
	}{
		{"fine", 200, nil, page(`<link rel="canonical" href="/a">`), ""},
		{"no canonical", 200, nil, page(""), ""},
		{"404", 404, nil, nil, Status},
		{"500", 500, nil, nil, Status},
		{"301", 301, http.Header{"Location": {"/b"}}, nil, Redirect},
		{"header noindex", 200, http.Header{"X-Robots-Tag": {"noindex, nofollow"}}, page(""), Noindex},
		{"header none for googlebot", 200, http.Header{"X-Robots-Tag": {"googlebot: none"}}, page(""), Noindex},
		{"header noindex for another bot", 200, http.Header{"X-Robots-Tag": {"otherbot: noindex"}}, page(""), ""},
		{"header max-snippet", 200, http.Header{"X-Robots-Tag": {"max-snippet: 20"}}, page(""), ""},
		{"meta noindex", 200, nil, page(`<meta name="robots" content="noindex">`), Noindex},
		{"meta googlebot noindex", 200, nil, page(`<meta name="Googlebot" content="NOINDEX, follow">`), Noindex},
		{"meta index", 200, nil, page(`<meta name="robots" content="index, follow">`), ""},
		{"meta in body ignored", 200, nil, []byte(`<html><body><p><meta name="robots" content="noindex">`), ""},
		{"wrong canonical", 200, nil, page(`<link rel="canonical" href="https://example.com/b">`), Canonical},
		{"link header canonical", 200, http.Header{"Link": {`</x.css>; rel=preload, <https://example.com/c>; rel="canonical"`}}, page(""), Canonical},
		{"link header right", 200, http.Header{"Link": {`<https://example.com/a>; rel="canonical"`}}, page(""), ""},
		{"both", 200, http.Header{"X-Robots-Tag": {"noindex"}}, page(`<link rel="canonical" href="/z">`), Noindex + "," + Canonical},
		{"not html", 200, http.Header{"Content-Type": {"application/pdf"}}, page(`<meta name="robots" content="noindex">`), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := c.h
			if h == nil {
				h = http.Header{}
			}
			if h.Get("Content-Type") == "" && c.body != nil {
				h.Set("Content-Type", "text/html; charset=utf-8")
			}
			var kinds []string
			for _, f := range Check(loc, c.status, h, c.body) {
				kinds = append(kinds, f.Kind)
			}
			if got := strings.Join(kinds, ","); got != c.want {
				t.Errorf("kinds = %q, want %q", got, c.want)
			}
		})
	}
}

func TestRobots(t *testing.T) {
	const txt = `# comment
User-agent: *
Disallow: /private/
Allow: /private/open
Disallow: /*.pdf$

User-agent: otherbot
Disallow: /

Sitemap: https://example.com/sitemap_index.xml
`
	rs := ParseRobots([]byte(txt), "googlebot")
	for path, want := range map[string]bool{
		"/":                 true,
		"/private/x":        false,
		"/private/open/a":   true,
		"/file.pdf":         false,
		"/file.pdf?x=1":     true,
		"/robots.txt":       true,
		"/private":          true,
		"/a/b/c/d.pdf":      false,
		"/privateer/fine":   true,
		"/private/open":     true,
		"/private/opens/no": true,
	} {
		if got, _ := rs.Allowed(path); got != want {
			t.Errorf("Allowed(%q) = %v, want %v", path, got, want)
		}
	}
	own := ParseRobots([]byte("User-agent: *\nDisallow: /\n\nUser-agent: Googlebot\nDisallow:\n"), "googlebot")
	if ok, _ := own.Allowed("/x"); !ok {
		t.Error("Googlebot's own empty group should allow everything")
	}
	if ok, by := ParseRobots([]byte("User-agent: *\nDisallow: /\n"), "googlebot").Allowed("/x"); ok || by != "Disallow: /" {
		t.Errorf("Allowed = %v %q, want false by Disallow: /", ok, by)
	}
}

// TestSample: n of the locations, each once, in their order; all of them
// when n covers them.
func TestSample(t *testing.T) {
	locs := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	for range 100 {
		got := Sample(locs, 3)
		if len(got) != 3 || !slices.IsSortedFunc(got, strings.Compare) || len(slices.Compact(slices.Clone(got))) != 3 {
			t.Fatalf("Sample(8 locations, 3) = %q", got)
		}
	}
	if got := Sample(locs, 20); len(got) != len(locs) {
		t.Errorf("Sample(8 locations, 20) = %q, want all", got)
	}
}
