package main

import (
	"net/url"
	"slices"
	"testing"
)

// TestSitemapLines: a byte-order mark before a first-line Sitemap: and a
// trailing # comment do not hide or change the URL.
func TestSitemapLines(t *testing.T) {
	for name, tc := range map[string]struct {
		body     string
		abs, bad []string
	}{
		"BOM on the first line": {"\xef\xbb\xbfSitemap: https://example.com/a.xml\n", []string{"https://example.com/a.xml"}, nil},
		"trailing comment":      {"User-agent: *\nSitemap: https://example.com/a.xml # the index\n", []string{"https://example.com/a.xml"}, nil},
		"comment with no space": {"sitemap:https://example.com/a.xml#x\r\n", []string{"https://example.com/a.xml"}, nil},
		"commented out":         {"# Sitemap: https://example.com/old.xml\n", nil, nil},
		"relative":              {"Sitemap: /a.xml\n", nil, []string{"/a.xml"}},
		"Site-map key":          {"Site-map: https://example.com/a.xml\nSITE-MAP: https://example.com/b.xml\n", []string{"https://example.com/a.xml", "https://example.com/b.xml"}, nil},
		"Sitemaps key":          {"Sitemaps: https://example.com/a.xml\n", []string{"https://example.com/a.xml"}, nil},
		"other keys":            {"Sitemapx: https://example.com/a.xml\nSite map: https://example.com/b.xml\n", nil, nil},
	} {
		abs, bad := sitemapLines([]byte(tc.body))
		if !slices.Equal(abs, tc.abs) || !slices.Equal(bad, tc.bad) {
			t.Errorf("%s: %q, %q; want %q, %q", name, abs, bad, tc.abs, tc.bad)
		}
	}
}

// TestOrigin: the origin check.Options.Robots is asked for, as check names it.
func TestOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"HTTPS://Example.COM:443/a": "https://example.com",
		"http://example.com:8080/":  "http://example.com:8080",
		"http://[::1]/x":            "http://[::1]",
		"http://[::1]:8080/x":       "http://[::1]:8080",
	} {
		u, _ := url.Parse(in)
		if got := origin(u); got != want {
			t.Errorf("origin(%s) = %s, want %s", in, got, want)
		}
	}
}
