package chiroutes

import (
	"slices"
	"testing"
)

func TestBaseURL(t *testing.T) {
	for base, prefix := range map[string]string{
		"https://example.com":       "https://example.com",
		"https://example.com/":      "https://example.com",
		"HTTPS://Example.COM:8443/": "https://example.com:8443",
		"http://example.com/app":    "http://example.com/app",
		"https://example.com/app/":  "https://example.com/app",
		"https://example.com/a%20b": "https://example.com/a%20b",
	} {
		urls, err := URLs(testRouter(), Config{BaseURL: base})
		if err != nil {
			t.Errorf("%q: %v", base, err)
			continue
		}
		if got, want := locsOf(urls), locs(prefix, defaultPaths...); !slices.Equal(got, want) {
			t.Errorf("%q: got %q, want %q", base, got, want)
		}
	}
}

func TestParamSpans(t *testing.T) {
	for pattern, want := range map[string]int{
		"/":                      0,
		"/docs/{slug}":           1,
		"/users/{id:[0-9]+}":     1,
		"/codes/{code:[a-z]{3}}": 1,
		"/files/*":               1,
		"/blog/{year}/{slug}":    2,
		"/x/{a:[0-9]*}/{b}/*":    3,
		"/odd/{unclosed":         1,
	} {
		if got := paramCount(pattern); got != want {
			t.Errorf("paramCount(%q) = %d, want %d", pattern, got, want)
		}
	}
	if got, err := fillParam("/codes/{code:[a-z]{3}}/view", "abc"); err != nil || got != "/codes/abc/view" {
		t.Errorf("fillParam = %q, %v", got, err)
	}
}
