package check_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap/check"
)

// What real generators write (issue 18): each document checks clean, or
// gets the one finding named, with a message that says what is wrong.
func TestRealWorld(t *testing.T) {
	decl := `<?xml version="1.0" encoding="UTF-8"?>` + "\n"
	one := `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://example.com/shop/a</loc></url></urlset>`
	for _, tc := range []struct {
		name, doc string
		rule      string // "" for no finding
		msg       string // a part of the message
	}{
		{"BOM before the declaration", "\xef\xbb\xbf" + decl + one, "", ""},
		{"mobile annotation without hreflang", urlset(u(loc("a") + `<xhtml:link rel="alternate" media="only screen and (max-width: 640px)" href="https://m.example.com/shop/a"/>`)), "", ""},
		{"white space before the declaration", "\n" + decl + one, "xml", "declaration"},
		{"undeclared xhtml prefix", `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://example.com/shop/a</loc><xhtml:link rel="alternate" hreflang="en" href="https://example.com/shop/a"/></url></urlset>`, "namespace", `prefix "xhtml" is not declared`},
		{"urlset without namespace", decl + `<urlset><url><loc>https://example.com/shop/a</loc></url></urlset>`, "root", "<urlset> has no namespace"},
		{"urlset in the 0.84 namespace", decl + `<urlset xmlns="http://www.google.com/schemas/sitemap/0.84"><url><loc>https://example.com/shop/a</loc></url></urlset>`, "root", "<urlset> is in the namespace"},
		{"Latin-1 declared", `<?xml version="1.0" encoding="ISO-8859-1"?>` + one, "encoding", "must be UTF-8"},
		{"Latin-1 bytes", decl + strings.Replace(one, "shop/a", "shop/caf\xe9", 1), "encoding", "must be UTF-8"},
		{"UTF-16", "\xff\xfe<\x00?\x00x\x00m\x00l\x00", "encoding", "must be UTF-8"},
		{"empty urlset", urlset(), "urlset-empty", "no URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := check.New(check.Options{Now: func() time.Time { return now }})
			c.Document("sitemap.xml", fileLoc, []byte(tc.doc))
			c.Finish()
			r := c.Report()
			if tc.rule == "" {
				for _, f := range r.Findings {
					t.Errorf("finding %v, want none", f)
				}
				return
			}
			if len(r.Findings) != 1 || r.Findings[0].Rule != tc.rule || !strings.Contains(r.Findings[0].Msg, tc.msg) {
				t.Errorf("findings %v, want one %s saying %q", r.Findings, tc.rule, tc.msg)
			}
			if len(r.Findings) > 0 && strings.Contains(r.Findings[0].Msg, "sitemapindex") {
				t.Errorf("a <urlset>'s finding speaks of <sitemapindex>: %v", r.Findings[0])
			}
		})
	}
}

// TestEmptyURLSetIsWarning: an empty urlset departs from the schema, but
// Google accepts it (an empty news file, Section.Latest): only a warning.
func TestEmptyURLSetIsWarning(t *testing.T) {
	c := check.New(check.Options{})
	c.Document("news.xml", fileLoc, []byte(urlset()))
	if r := c.Report(); r.Errors != 0 || r.Warnings != 1 {
		t.Errorf("report %+v, want one warning", r)
	}
}

// TestCrossSubmission: a sitemap on a CDN may list the URLs of a host
// whose robots.txt names it, or names the index that listed it; not of a
// host whose robots.txt does not.
func TestCrossSubmission(t *testing.T) {
	const cdnIndex = "https://cdn.example.net/maps/sitemap_index.xml"
	const cdnFile = "https://cdn.example.net/maps/sitemap-1.xml.gz"
	for name, tc := range map[string]struct {
		lines []string
		want  int // loc-scope findings
	}{
		"robots names the index": {[]string{"https://example.com/sitemap_index.xml", cdnIndex}, 0},
		"robots names the file":  {[]string{cdnFile}, 0},
		"robots names another":   {[]string{"https://example.com/sitemap_index.xml"}, 2},
		"no robots":              {nil, 2},
	} {
		t.Run(name, func(t *testing.T) {
			asked := map[string]int{}
			c := check.New(check.Options{Now: func() time.Time { return now }, Robots: func(origin string) []string {
				asked[origin]++
				return tc.lines
			}})
			c.Document(cdnIndex, cdnIndex, []byte(index(cdnFile)))
			c.Document(cdnFile, cdnFile, []byte(urlset(u("<loc>https://example.com/shop/a</loc>"), u("<loc>https://example.com/shop/b</loc>"))))
			c.Finish()
			r := c.Report()
			if r.ByRule["loc-scope"] != tc.want || len(r.Findings) != tc.want {
				t.Errorf("findings %v, want %d loc-scope", r.Findings, tc.want)
			}
			if len(asked) != 1 || asked["https://example.com"] != 1 {
				t.Errorf("robots.txt asked for %v, want https://example.com once", asked)
			}
		})
	}
}

// TestCrossSubmissionIPv6: an IPv6 host on the default port is asked for
// with its brackets, as a URL needs them.
func TestCrossSubmissionIPv6(t *testing.T) {
	var asked []string
	c := check.New(check.Options{Robots: func(origin string) []string { asked = append(asked, origin); return nil }})
	c.Document("s.xml", "https://cdn.example.net/s.xml", []byte(urlset(u("<loc>http://[::1]/a</loc>"), u("<loc>http://[::1]:8080/a</loc>"))))
	if len(asked) != 2 || asked[0] != "http://[::1]" || asked[1] != "http://[::1]:8080" {
		t.Errorf("asked for %q", asked)
	}
}

// TestTreeBound: past MaxMemory, further files are left out of the rules
// across files, and one tree-bound warning says how many URLs.
func TestTreeBound(t *testing.T) {
	doc := func(prefix string) []byte {
		return []byte(urlset(many(1000, func(i int) string { return u(loc(fmt.Sprintf("%s%d", prefix, i))) })...))
	}
	c := check.New(check.Options{Now: func() time.Time { return now }, MaxMemory: 40_000}) // the first file's 1,000 URLs fit, the second's do not
	c.Document("a.xml", fileLoc, doc("a"))
	c.Document("b.xml", fileLoc, doc("a")) // all duplicates, but past the bound
	c.Finish()
	r := c.Report()
	if r.ByRule["tree-bound"] != 1 || r.ByRule["loc-duplicate"] != 0 || r.Errors != 0 {
		t.Errorf("by rule %v, want one tree-bound and no duplicate", r.ByRule)
	}
	c = check.New(check.Options{Now: func() time.Time { return now }})
	c.Document("a.xml", fileLoc, doc("a"))
	c.Document("b.xml", fileLoc, doc("a"))
	c.Finish()
	if r := c.Report(); r.ByRule["loc-duplicate"] != 1000 || r.ByRule["tree-bound"] != 0 {
		t.Errorf("no bound: by rule %v, want 1,000 duplicates", r.ByRule)
	}
}

// TestTreeFindingsName: a duplicate names the first listing's file and
// line; a missing reciprocal link names both ends' files and lines.
func TestTreeFindingsName(t *testing.T) {
	c := check.New(check.Options{Now: func() time.Time { return now }})
	c.Document("one.xml", fileLoc, []byte(urlset(u(loc("en")+alt("en", "en")+alt("de", "de")))))
	c.Document("two.xml", fileLoc, []byte(urlset(u(loc("x")), u(loc("de")), u(loc("en")))))
	c.Finish()
	var got []string
	for _, f := range c.Report().Findings {
		got = append(got, f.String())
	}
	want := []string{
		"one.xml:3: error: hreflang-reciprocal: lists as an alternate the URL at two.xml, line 4, which does not list it back",
		"two.xml:5: warning: loc-duplicate: https://example.com/shop/en is listed again (first in one.xml, line 3)",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("findings\n%q\nwant\n%q", got, want)
	}
}
