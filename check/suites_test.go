package check_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap/check"
)

// The cases below come from what third-party suites (ultimate-sitemap-parser,
// sitemap.js, Scrapy) found the checker wrong about, where they are right.

// checkDocs checks docs, each at fileLoc, and returns the report.
func checkDocs(docs ...string) (check.Report, []check.Kind) {
	c := check.New(check.Options{Now: func() time.Time { return now }})
	var kinds []check.Kind
	for _, d := range docs {
		k, _ := c.Document("sitemap.xml", fileLoc, []byte(d))
		kinds = append(kinds, k)
	}
	c.Finish()
	return c.Report(), kinds
}

// rules lists the rules of a report's findings.
func rules(r check.Report) string {
	var out []string
	for _, f := range r.Findings {
		out = append(out, f.Rule)
	}
	return strings.Join(out, " ")
}

// TestEmptyLoc: an empty or white-space <loc> or <image:loc> is a
// loc-missing error, and such a <url> is not counted as a URL.
func TestEmptyLoc(t *testing.T) {
	for name, tc := range map[string]struct {
		doc  string
		urls int
	}{
		"empty":       {urlset(u("<loc></loc>"), u(loc("a"))), 1},
		"white space": {urlset(u("<loc>  \n </loc>"), u(loc("a"))), 1},
		"image":       {urlset(u(loc("a") + "<image:image><image:loc> </image:loc></image:image>")), 1},
		"index":       {index(" ", "https://example.com/shop/s1.xml"), 0},
	} {
		t.Run(name, func(t *testing.T) {
			r, _ := checkDocs(tc.doc)
			if got := rules(r); got != "loc-missing" || r.URLs != tc.urls {
				t.Errorf("findings %q, %d URLs; want one loc-missing and %d URLs\n%v", got, r.URLs, tc.urls, r.Findings)
			}
		})
	}
}

// TestYesNoCase: the video schema's yes/no type allows yes, Yes, YES, no,
// No and NO, in the element flags and in allow_embed.
func TestYesNoCase(t *testing.T) {
	for _, v := range []string{"Yes", "YES", "No", "NO", "yes", "no"} {
		extra := fmt.Sprintf("<video:family_friendly>%s</video:family_friendly><video:requires_subscription>%s</video:requires_subscription><video:live>%s</video:live>", v, v, v)
		doc := urlset(u(loc("a") + fmt.Sprintf(video, extra)))
		if r, _ := checkDocs(doc); len(r.Findings) != 0 {
			t.Errorf("%s: %v", v, r.Findings)
		}
	}
	for _, v := range []string{"yEs", "y", "true"} {
		doc := urlset(u(loc("a") + fmt.Sprintf(video, "<video:live>"+v+"</video:live>")))
		if r, _ := checkDocs(doc); rules(r) != "video-value" {
			t.Errorf("%s: %v; want video-value", v, r.Findings)
		}
	}
}

// TestPlainText: a plain-text sitemap is checked, each line as a loc at
// its line; it is not refused as XML.
func TestPlainText(t *testing.T) {
	doc := "https://example.com/shop/a\nhttps://example.com/shop/b\n\nhttps://example.com/other/c\nhttps://example.com/shop/a b\n"
	r, kinds := checkDocs(doc)
	if kinds[0] != check.URLSet || r.Files != 1 || r.URLs != 4 {
		t.Fatalf("kind %v, %d files, %d URLs; want a URL set of 4", kinds[0], r.Files, r.URLs)
	}
	want := map[string]int{"loc-scope": 4, "loc-escaped": 5}
	for _, f := range r.Findings {
		if want[f.Rule] != f.Line {
			t.Errorf("finding %v; want %v by line", f, want)
		}
		delete(want, f.Rule)
	}
	if len(want) > 0 {
		t.Errorf("missing %v in %v", want, r.Findings)
	}
	if r, _ := checkDocs("https://example.com/shop/a\nhttps://example.com/shop/a\n"); rules(r) != "loc-duplicate" {
		t.Errorf("a duplicate line: %v", r.Findings)
	}
}

// TestAtom03: an Atom 0.3 feed, which the protocol names as a sitemap
// format, is recognised as a feed, as Atom 1.0 and RSS are.
func TestAtom03(t *testing.T) {
	for _, doc := range []string{
		`<?xml version="1.0" encoding="utf-8"?><feed version="0.3" xmlns="http://purl.org/atom/ns#"><title>x</title><entry><link rel="alternate" type="text/html" href="https://example.com/shop/a"/><modified>2005-01-01T00:00:00Z</modified></entry></feed>`,
		`<feed xmlns="http://www.w3.org/2005/Atom"><title>x</title></feed>`,
		`<rss version="2.0"><channel><title>x</title></channel></rss>`,
	} {
		r, kinds := checkDocs(doc)
		if kinds[0] != check.Feed || len(r.Findings) != 0 {
			t.Errorf("kind %v, findings %v; want a feed and none\n%s", kinds[0], r.Findings, doc)
		}
	}
}

// TestLinkWithoutHref: an hreflang xhtml:link without href is an ext-url
// error, not an alternate with an empty href.
func TestLinkWithoutHref(t *testing.T) {
	doc := urlset(u(loc("en") + alt("en", "en") + `<xhtml:link rel="alternate" hreflang="de"/>`))
	if r, _ := checkDocs(doc); rules(r) != "ext-url" || !strings.Contains(r.Findings[0].Msg, "no href") {
		t.Errorf("findings %v; want one ext-url about the missing href", r.Findings)
	}
}

// TestNewsAccess: news:access is Subscription or Registration.
func TestNewsAccess(t *testing.T) {
	with := func(access string) string {
		return urlset(u(loc("a") + strings.Replace(news(""), "</news:publication>", "</news:publication><news:access>"+access+"</news:access>", 1)))
	}
	if r, _ := checkDocs(with("Subscription")); len(r.Findings) != 0 {
		t.Errorf("Subscription: %v", r.Findings)
	}
	if r, _ := checkDocs(with("Paywall")); rules(r) != "news-value" {
		t.Errorf("Paywall: %v; want news-value", r.Findings)
	}
}

// TestIndexSelf: an index that lists itself is reported, and not given
// back as a file to follow.
func TestIndexSelf(t *testing.T) {
	c := check.New(check.Options{Now: func() time.Time { return now }})
	const self = "https://example.com/shop/index.xml"
	kind, children := c.Document("index.xml", self, []byte(index("https://EXAMPLE.com:443/shop/index.xml", "https://example.com/shop/s1.xml")))
	c.Finish()
	r := c.Report()
	if kind != check.Index || len(children) != 1 || children[0] != "https://example.com/shop/s1.xml" || rules(r) != "index-self" {
		t.Errorf("kind %v, children %q, findings %v; want index-self and only s1", kind, children, r.Findings)
	}
}
