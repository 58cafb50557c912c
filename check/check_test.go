package check_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap/check"
	"github.com/freshmap/sitemap/parse"
)

// now is the fixed clock of the tests.
var now = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

const fileLoc = "https://example.com/shop/sitemap.xml"

// urlset wraps <url> elements in a <urlset> declaring every namespace.
func urlset(urls ...string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" xmlns:video="http://www.google.com/schemas/sitemap-video/1.1" xmlns:news="http://www.google.com/schemas/sitemap-news/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">
` + strings.Join(urls, "\n") + "\n</urlset>\n"
}

func index(locs ...string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	for _, l := range locs {
		fmt.Fprintf(&b, "<sitemap><loc>%s</loc></sitemap>\n", l)
	}
	b.WriteString("</sitemapindex>\n")
	return b.String()
}

func u(inner string) string { return "<url>" + inner + "</url>" }

func loc(path string) string { return "<loc>https://example.com/shop/" + path + "</loc>" }

const video = `<video:video><video:thumbnail_loc>https://example.com/t.jpg</video:thumbnail_loc><video:title>T</video:title><video:description>D</video:description><video:content_loc>https://example.com/v.mp4</video:content_loc>%s</video:video>`

func news(inner string) string {
	if inner == "" {
		inner = `<news:publication><news:name>N</news:name><news:language>en</news:language></news:publication><news:publication_date>2025-06-01</news:publication_date><news:title>T</news:title>`
	}
	return "<news:news>" + inner + "</news:news>"
}

func alt(lang, path string) string {
	return fmt.Sprintf(`<xhtml:link rel="alternate" hreflang="%s" href="https://example.com/shop/%s"/>`, lang, path)
}

func repeat(s string, n int) string { return strings.Repeat(s, n) }

func many(n int, f func(i int) string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

// TestRules checks each rule with a document that breaks it, and only it.
func TestRules(t *testing.T) {
	for _, tc := range []struct {
		rule string
		docs []string // checked in order, each at fileLoc
	}{
		{"xml", []string{urlset(u(loc("a?x=1&y=2")))}},
		{"xml", []string{"<urlset"}},
		{"root", []string{`<?xml version="1.0"?><urlset><url><loc>https://example.com/shop/a</loc></url></urlset>`}},
		{"video-value", []string{urlset(u(loc("a") + fmt.Sprintf(video, "<video:view_count>many</video:view_count>")))}},
		{"loc-missing", []string{urlset(u("<lastmod>2025-01-01</lastmod>"))}},
		{"loc-missing", []string{urlset(u(loc("a") + "<image:image><image:title>x</image:title></image:image>"))}},
		{"loc-absolute", []string{urlset(u("<loc>/shop/a</loc>"))}},
		{"loc-absolute", []string{urlset(u("<loc>ftp://example.com/shop/a</loc>"))}},
		{"loc-escaped", []string{urlset(u(loc("ümlaut")))}},
		{"loc-escaped", []string{urlset(u(loc("a b")))}},
		{"loc-length", []string{urlset(u(loc(repeat("a", 2048))))}},
		{"loc-scope", []string{urlset(u("<loc>https://example.com/other/a</loc>"))}},
		{"loc-scope", []string{urlset(u("<loc>http://example.com/shop/a</loc>"))}},
		{"loc-scope", []string{urlset(u("<loc>https://example.com:8443/shop/a</loc>"))}},
		{"loc-scope", []string{index("https://example.org/shop/s1.xml")}},
		{"loc-duplicate", []string{urlset(u(loc("a")), u(loc("a")))}},
		{"loc-duplicate", []string{urlset(u(loc("a"))), urlset(u(loc("a")))}},
		{"lastmod-format", []string{urlset(u(loc("a") + "<lastmod>yesterday</lastmod>"))}},
		{"lastmod-future", []string{urlset(u(loc("a") + "<lastmod>2026-01-01</lastmod>"))}},
		{"lastmod-stamp", []string{urlset(u(loc("a")+"<lastmod>2025-01-01</lastmod>"), u(loc("b")+"<lastmod>2025-01-01</lastmod>"))}},
		{"priority-range", []string{urlset(u(loc("a") + "<priority>1.5</priority>"))}},
		{"priority-range", []string{urlset(u(loc("a") + "<priority>high</priority>"))}},
		{"changefreq-value", []string{urlset(u(loc("a") + "<changefreq>often</changefreq>"))}},
		{"image-count", []string{urlset(u(loc("a") + repeat("<image:image><image:loc>https://cdn.example.net/i.jpg</image:loc></image:image>", 1001)))}},
		{"ext-url", []string{urlset(u(loc("a") + "<image:image><image:loc>i.jpg</image:loc></image:image>"))}},
		{"video-required", []string{urlset(u(loc("a") + `<video:video><video:title>T</video:title></video:video>`))}},
		{"video-length", []string{urlset(u(loc("a") + strings.Replace(fmt.Sprintf(video, ""), "<video:title>T", "<video:title>"+repeat("t", 101), 1)))}},
		{"video-length", []string{urlset(u(loc("a") + fmt.Sprintf(video, repeat("<video:tag>x</video:tag>", 33))))}},
		{"video-value", []string{urlset(u(loc("a") + fmt.Sprintf(video, "<video:duration>28801</video:duration>")))}},
		{"video-value", []string{urlset(u(loc("a") + fmt.Sprintf(video, "<video:rating>5.5</video:rating>")))}},
		{"video-value", []string{urlset(u(loc("a") + fmt.Sprintf(video, "<video:live>maybe</video:live>")))}},
		{"news-required", []string{urlset(u(loc("a") + news("<news:title>T</news:title>")))}},
		{"news-value", []string{urlset(u(loc("a") + strings.Replace(news(""), ">en<", ">English<", 1)))}},
		{"news-value", []string{urlset(u(loc("a") + strings.Replace(news(""), "</news:publication>", "</news:publication><news:genres>Gossip</news:genres>", 1)))}},
		{"news-count", []string{urlset(many(1001, func(i int) string { return u(loc(fmt.Sprint(i)) + news("")) })...)}},
		{"element-order", []string{urlset(u("<lastmod>2025-01-01</lastmod>" + loc("a")))}},
		{"element-order", []string{urlset(u(loc("a") + "<priority>0.5</priority><changefreq>daily</changefreq>"))}},
		{"element-order", []string{urlset(u(loc("a") + "<image:image><image:loc>https://cdn.example.net/i.jpg</image:loc></image:image><priority>0.5</priority>"))}},
		{"element-order", []string{index2(`<sitemap><lastmod>2025-01-01</lastmod><loc>https://example.com/shop/s1.xml</loc></sitemap>`)}},
		{"element-order", []string{urlset(u(loc("a") + "<image:image><image:title>t</image:title><image:loc>https://cdn.example.net/i.jpg</image:loc></image:image>"))}},
		{"element-order", []string{urlset(u(loc("a") + strings.Replace(news(""), "</news:publication>", "</news:publication><news:title>T</news:title>", 1)))}},
		{"element-order", []string{urlset(u(loc("a") + strings.Replace(fmt.Sprintf(video, ""), "<video:title>T</video:title><video:description>D</video:description>", "<video:description>D</video:description><video:title>T</video:title>", 1)))}},
		{"hreflang-tag", []string{urlset(u(loc("en") + alt("en_US", "en")))}},
		{"hreflang-duplicate", []string{urlset(u(loc("en") + alt("en", "en") + alt("EN", "en2")))}},
		{"hreflang-self", []string{urlset(u(loc("en") + alt("de", "de")))}},
		{"hreflang-reciprocal", []string{urlset(u(loc("en")+alt("en", "en")+alt("de", "de")), u(loc("de")+alt("de", "de")))}},
		{"hreflang-reciprocal", []string{urlset(u(loc("en") + alt("en", "en") + alt("de", "de"))), urlset(u(loc("de")))}},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			c := check.New(check.Options{Now: func() time.Time { return now }})
			for _, d := range tc.docs {
				c.Document("sitemap.xml", fileLoc, []byte(d))
			}
			c.Finish()
			r := c.Report()
			if len(r.Findings) == 0 {
				t.Fatalf("no finding, want %s", tc.rule)
			}
			for _, f := range r.Findings {
				if f.Rule != tc.rule {
					t.Errorf("finding %v, want only %s", f, tc.rule)
				}
			}
		})
	}
}

// TestLimits: the file limits come from parse, mapped to their rules.
func TestLimits(t *testing.T) {
	for rule, lim := range map[string]parse.Limits{
		"file-entries": {MaxEntries: 2},
		"file-size":    {MaxBytes: 300},
	} {
		t.Run(rule, func(t *testing.T) {
			c := check.New(check.Options{Now: func() time.Time { return now }, Limits: lim})
			c.Document("s.xml", fileLoc, []byte(urlset(u(loc("a")), u(loc("b")), u(loc("c")), u(loc("d")))))
			r := c.Report()
			if r.ByRule[rule] != 1 || r.Errors != 1 {
				t.Errorf("findings %v, want one %s", r.Findings, rule)
			}
		})
	}
}

// TestPositions: a finding carries the position parse gives.
func TestPositions(t *testing.T) {
	c := check.New(check.Options{Now: func() time.Time { return now }})
	c.Document("s.xml", fileLoc, []byte(urlset(u(loc("a")), u(loc("b")+"<priority>2</priority>"))))
	r := c.Report()
	if len(r.Findings) != 1 {
		t.Fatalf("findings %v", r.Findings)
	}
	f := r.Findings[0]
	if f.Line != 4 || f.Column != 1 || f.URL != "https://example.com/shop/b" {
		t.Errorf("finding %+v, want the line and column where its <url> starts, and the URL", f)
	}
	if got, want := f.String(), "s.xml:4:1: error: priority-range: priority 2 is not from 0.0 to 1.0"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	c = check.New(check.Options{Now: func() time.Time { return now }})
	c.Document("s.xml", fileLoc, []byte(urlset(u(loc("a")), u(loc("b")+"<priority>x</priority>"))))
	r = c.Report()
	if len(r.Findings) != 1 || r.Findings[0].Line != 4 || r.Findings[0].Column == 0 || !strings.HasPrefix(r.Findings[0].String(), "s.xml:4:") {
		t.Errorf("findings %v, want one at line 4 (parse's position)", r.Findings)
	}
}

// TestIndex: an index returns its locations, gzip or not.
func TestIndex(t *testing.T) {
	doc := index("https://example.com/shop/s1.xml.gz", "https://example.com/shop/s2.xml.gz")
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte(doc))
	w.Close()
	c := check.New(check.Options{})
	kind, locs := c.Document("index.xml.gz", "https://example.com/shop/index.xml.gz", gz.Bytes())
	if kind != check.Index || len(locs) != 2 {
		t.Errorf("kind %v, locs %v", kind, locs)
	}
	if r := c.Report(); r.Files != 1 || r.URLs != 0 || len(r.Findings) != 0 { // an index's entries are not URLs
		t.Errorf("report %+v", r)
	}
}

// TestGolden: the encoder's golden documents check clean.
func TestGolden(t *testing.T) {
	files, _ := filepath.Glob("../testdata/*.golden")
	if len(files) == 0 {
		t.Fatal("no golden files")
	}
	for _, name := range files { // each a tree of its own: they share URLs
		c := check.New(check.Options{Now: func() time.Time { return time.Date(2024, 6, 2, 0, 0, 0, 0, time.UTC) }})
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		kind, _ := c.Document(name, "https://example.com/sitemap.xml", data)
		c.Finish()
		r := c.Report()
		for _, f := range r.Findings {
			t.Errorf("%v", f)
		}
		if r.Files != 1 || r.URLs == 0 && kind != check.Index {
			t.Errorf("%s: files %d, URLs %d", name, r.Files, r.URLs)
		}
		var back check.Report
		if err := json.Unmarshal(r.JSON(), &back); err != nil || back.URLs != r.URLs {
			t.Errorf("JSON round trip: %v, %+v", err, back)
		}
	}
}

// index2 is an index of the given <sitemap> entries, written as they are.
func index2(entries string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + entries + `</sitemapindex>`
}

// TestElementOrderPosition: the finding names the line and column of the
// element out of place.
func TestElementOrderPosition(t *testing.T) {
	doc := urlset(u(loc("a")), u("\n<priority>0.5</priority><lastmod>2025-01-01</lastmod>"+loc("b")))
	c := check.New(check.Options{Now: func() time.Time { return now }})
	c.Document("sitemap.xml", fileLoc, []byte(doc))
	c.Finish()
	var got []check.Finding
	for _, f := range c.Report().Findings {
		if f.Rule == "element-order" {
			got = append(got, f)
		}
	}
	if len(got) != 2 || got[0].Line == 0 || got[0].Line != got[1].Line {
		t.Errorf("findings %v: want two element-order findings on one line", got)
	}
}

// TestRuleTable: every rule has a name, a doc, and a known severity.
func TestRuleTable(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range check.Rules {
		if r.Name == "" || r.Doc == "" || seen[r.Name] {
			t.Errorf("rule %+v: empty or listed twice", r)
		}
		seen[r.Name] = true
	}
}

// TestFeed: an Atom feed or an RSS channel, which robots.txt may name, is
// recognised and not judged by the sitemap rules.
func TestFeed(t *testing.T) {
	for name, doc := range map[string]string{
		"atom": `<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<feed xmlns="http://www.w3.org/2005/Atom"><id>https://example.com/f</id></feed>`,
		"rss":  `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title></channel></rss>`,
	} {
		c := check.New(check.Options{})
		if kind, _ := c.Document(name, "https://example.com/f", []byte(doc)); kind != check.Feed {
			t.Errorf("%s: kind %v, want Feed", name, kind)
		}
		c.Finish()
		if r := c.Report(); len(r.Findings) != 0 {
			t.Errorf("%s: findings %v", name, r.Findings)
		}
	}
	// Another root is still an error.
	c := check.New(check.Options{})
	if kind, _ := c.Document("x", "https://example.com/x", []byte(`<html/>`)); kind != check.Unknown {
		t.Errorf("kind %v", kind)
	}
}
