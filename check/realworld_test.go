package check_test

import (
	"fmt"
	"os"
	"path/filepath"
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

// TestTreeSpill: with a bound that a few hundred URLs fill, the rules
// across files spill to disk and find what they find in memory (every
// duplicate across files, every link not returned, with the same files and
// lines), and Finish leaves no temporary file.
func TestTreeSpill(t *testing.T) {
	docs := map[string][]byte{}
	for f := range 3 {
		docs[fmt.Sprintf("%d.xml", f)] = []byte(urlset(many(1000, func(i int) string {
			switch {
			case f == 2 && i%10 == 0: // a URL of file 0, again
				return u(loc(fmt.Sprintf("0-%d", i)))
			case i%7 == 0: // lists a URL of the next file, which does not list it back
				return u(loc(fmt.Sprintf("%d-%d", f, i)) + alt("en", fmt.Sprintf("%d-%d", f, i)) + alt("de", fmt.Sprintf("%d-%d", (f+1)%3, i+1)))
			}
			return u(loc(fmt.Sprintf("%d-%d", f, i)))
		})...))
	}
	report := func(max int64, dir string) check.Report {
		c := check.New(check.Options{Now: func() time.Time { return now }, MaxMemory: max, TempDir: dir})
		for _, name := range []string{"0.xml", "1.xml", "2.xml"} {
			c.Document(name, fileLoc, docs[name])
		}
		if max > 0 {
			if left, _ := os.ReadDir(dir); len(left) == 0 {
				t.Errorf("bound %d: nothing spilled to %s", max, dir)
			}
		}
		c.Finish()
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("bound %d: %d temporary files left after Finish", max, len(left))
		}
		return c.Report()
	}
	dir := t.TempDir()
	want := report(0, dir)
	if want.ByRule["loc-duplicate"] != 100 || want.ByRule["hreflang-reciprocal"] != 400 {
		t.Fatalf("in memory: %v, want 100 duplicates and 400 links not returned", want.ByRule)
	}
	for _, max := range []int64{10_000, 1} {
		if got := report(max, dir); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("bound %d: by rule %v, want %v", max, got.ByRule, want.ByRule)
		}
	}
}

// TestTreeSpillFails: when the disk cannot be written, the rules across
// files say so (tree-bound) and how many URLs they left out.
func TestTreeSpillFails(t *testing.T) {
	c := check.New(check.Options{Now: func() time.Time { return now }, MaxMemory: 1000, TempDir: filepath.Join(t.TempDir(), "missing")})
	c.Document("a.xml", fileLoc, []byte(urlset(many(100, func(i int) string { return u(loc(fmt.Sprint(i))) })...)))
	c.Finish()
	r := c.Report()
	if r.ByRule["tree-bound"] != 1 || !strings.Contains(r.Findings[0].Msg, "100 URLs were left out") {
		t.Errorf("findings %v", r.Findings)
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
