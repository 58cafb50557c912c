package parse

import (
	"errors"
	"strings"
	"testing"

	"github.com/freshmap/sitemap"
)

// The cases below come from what third-party suites (ultimate-sitemap-parser,
// sitemap.js, Scrapy) found the parser wrong about, where they are right.

// TestEmptyLoc: an empty or white-space <loc>, <image:loc> or index
// <loc> is a value error (no URL), not a URL with an empty location.
func TestEmptyLoc(t *testing.T) {
	const img = `xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"`
	for _, tc := range []struct{ name, entry, path, msg string }{
		{"empty", `<url><loc></loc></url>`, "urlset/url/loc", "empty <loc>"},
		{"white space", "<url><loc> \n\t </loc></url>", "urlset/url/loc", "empty <loc>"},
		{"self-closing", `<url><loc/></url>`, "urlset/url/loc", "empty <loc>"},
		{"image", `<url><loc>https://example.com/</loc><image:image ` + img + `><image:loc>  </image:loc></image:image></url>`, "urlset/url/image:image/image:loc", "empty <image:loc>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := head + tc.entry + "\n<url><loc>https://example.com/next</loc></url>\n</urlset>\n"
			var errs []error
			for _, err := range URLs(strings.NewReader(doc), Limits{}) {
				errs = append(errs, err)
			}
			var e *Error
			if len(errs) != 2 || errs[1] != nil || !errors.As(errs[0], &e) || !errors.Is(e, ErrInvalid) {
				t.Fatalf("errors %v; want a value error, then none", errs)
			}
			if e.Path != tc.path || !strings.Contains(e.Error(), tc.msg) {
				t.Errorf("error %v, want %q at %s", e, tc.msg, tc.path)
			}
		})
	}
	t.Run("index", func(t *testing.T) {
		doc := `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc> </loc></sitemap></sitemapindex>`
		for s, err := range Index(strings.NewReader(doc), Limits{}) {
			if !errors.Is(err, ErrInvalid) || s.Loc != "" || !strings.Contains(err.Error(), "empty <loc>") {
				t.Errorf("%+v, %v; want an empty-loc value error", s, err)
			}
		}
	})
}

// parseAll parses a document and returns every entry yielded, with or
// without an error, and the errors.
func parseAll(doc string) (urls []sitemap.URL, errs []error) {
	for u, err := range URLs(strings.NewReader(doc), Limits{}) {
		urls = append(urls, u)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return urls, errs
}

// TestLinkWithoutHref: an hreflang xhtml:link with no href, or an empty
// one, is a value error and no alternate.
func TestLinkWithoutHref(t *testing.T) {
	for name, link := range map[string]string{
		"no href":    `<xhtml:link rel="alternate" hreflang="de"/>`,
		"empty href": `<xhtml:link rel="alternate" hreflang="de" href=" "/>`,
	} {
		t.Run(name, func(t *testing.T) {
			doc := `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">` +
				`<url><loc>https://example.com/</loc>` + link + `<xhtml:link rel="alternate" hreflang="en" href="https://example.com/"/></url></urlset>`
			urls, errs := parseAll(doc)
			var e *Error
			if len(urls) != 1 || len(errs) != 1 || !errors.As(errs[0], &e) || !errors.Is(e, ErrInvalid) || e.Path != "urlset/url/xhtml:link" {
				t.Fatalf("%+v, %v; want one URL with a value error at the link", urls, errs)
			}
			if alts := urls[0].Alternates; len(alts) != 1 || alts[0].Hreflang != "en" {
				t.Errorf("alternates %+v, want only en", alts)
			}
		})
	}
}

// TestNewsAccess: news:access is Subscription or Registration.
func TestNewsAccess(t *testing.T) {
	for access, ok := range map[string]bool{"Subscription": true, " Registration ": true, "Free": false, "subscription": false, "": false} {
		doc := `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">` +
			`<url><loc>https://example.com/</loc><news:news><news:publication><news:name>N</news:name><news:language>en</news:language></news:publication>` +
			`<news:access>` + access + `</news:access><news:publication_date>2024-01-01</news:publication_date><news:title>T</news:title></news:news></url></urlset>`
		urls, errs := parseAll(doc)
		if len(urls) != 1 || urls[0].News == nil || urls[0].News.Title != "T" {
			t.Fatalf("%q: %+v; want the URL with its news", access, urls)
		}
		var e *Error
		switch {
		case ok && len(errs) != 0:
			t.Errorf("%q: %v; want no error", access, errs)
		case !ok && (len(errs) != 1 || !errors.As(errs[0], &e) || e.Path != "urlset/url/news:news/news:access"):
			t.Errorf("%q: %v; want a value error at news:access", access, errs)
		}
	}
}
