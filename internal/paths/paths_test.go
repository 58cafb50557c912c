package paths

import (
	"math"
	"testing"
)

func testNames() *Names {
	return &Names{
		Path: "/shop/", IndexName: "sitemap_index.xml", IndexStem: "sitemap_index", HTML: true, XSLName: "sitemap.xsl",
		Files:   []Files{{Name: "", Prefix: "sitemap-", Feed: "sitemap.atom"}, {Name: "news", Prefix: "sitemap-news-"}},
		Numbers: map[string]int{"": 0, "news": 1},
	}
}

// TestRoute: each file's one canonical name routes, and what it names;
// every other name does not, though the sitemap may own it.
func TestRoute(t *testing.T) {
	n := testNames()
	for path, want := range map[string]Route{
		"/shop/sitemap_index.xml":               {Kind: Index, File: 1, Rep: XML},
		"/shop/sitemap.xml":                     {Kind: Index, File: 1, Rep: XML, Root: true},
		"/shop/sitemap_index-2.xml":             {Kind: Index, File: 2, Rep: XML},
		"/shop/sitemap-3.xml.gz":                {Kind: Page, Sec: 0, Page: 3, Rep: GzipFile},
		"/shop/sitemap-news-9.xml":              {Kind: Page, Sec: 1, Page: 9, Rep: XML},
		"/shop/sitemap-news-9.txt":              {Kind: Page, Sec: 1, Page: 9, Rep: Text},
		"/shop/sitemap.atom":                    {Kind: Feed, Sec: 0, Rep: Atom},
		"/shop/sitemap_index.html":              {Kind: Index, File: 1, Rep: HTML, Part: 1},
		"/shop/sitemap-news-2.part3.html":       {Kind: Page, Sec: 1, Page: 2, Rep: HTML, Part: 3},
		"/shop/sitemap-9223372036854775807.xml": {Kind: Page, Page: math.MaxInt64, Rep: XML},
	} {
		got, ok := n.Route(path)
		if !ok || got != want {
			t.Errorf("Route(%q) = %+v, %v; want %+v", path, got, ok, want)
		}
		if !n.Owns(path) {
			t.Errorf("Owns(%q) = false", path)
		}
	}
	for _, path := range []string{
		"/sitemap-1.xml.gz", "/shop/sitemap-01.xml.gz", "/shop/sitemap-0.xml", "/shop/sitemap-+1.xml",
		"/shop/sitemap-9223372036854775808.xml", "/shop/sitemap-news.atom", "/shop/sitemap-other-1.xml",
		"/shop/sitemap_index-1.xml", "/shop/sitemap-1.part1.html", "/shop/sitemap-1.part02.html",
		"/shop/sitemap-news-1.atom", "/shop/sitemap--1.xml", "/shop/sitemap-1.json",
	} {
		if got, ok := n.Route(path); ok {
			t.Errorf("Route(%q) = %+v, want none", path, got)
		}
	}
	for path, want := range map[string]bool{"/shop/sitemap.xsl": true, "/shop/sitemap-1.json": false, "/shop/index.html": false, "/other": false} {
		if got := n.Owns(path); got != want {
			t.Errorf("Owns(%q) = %v, want %v", path, got, want)
		}
	}
}

// TestParsePage: 1 to math.MaxInt64 in canonical decimal only.
func TestParsePage(t *testing.T) {
	for s, want := range map[string]int64{"1": 1, "42": 42, "9223372036854775807": math.MaxInt64} {
		if got, ok := ParsePage(s); !ok || got != want {
			t.Errorf("ParsePage(%q) = %d, %v", s, got, ok)
		}
	}
	for _, s := range []string{"", "0", "01", "-1", "+1", "1a", "9223372036854775808", "99999999999999999999"} {
		if got, ok := ParsePage(s); ok {
			t.Errorf("ParsePage(%q) = %d, want none", s, got)
		}
	}
}

// TestNames: the rules of an index name and of a section name.
func TestNames(t *testing.T) {
	for name, ok := range map[string]bool{"sitemap.xml": true, "sitemap_index.xml": true, "a-b_1.xml": true, ".xml": false, "x.y.xml": false, "index.XML": false, "sitemap-1.xml": false, "sitemap_index-2.xml": false} {
		if err := CheckIndexName(name); (err == nil) != ok {
			t.Errorf("CheckIndexName(%q) = %v", name, err)
		}
	}
	for name, ok := range map[string]bool{"news": true, "a-1_b": true, "_idx": false, "-a": false, "News": false, "abcdef": false} {
		if got := ValidSectionName(name, 5); got != ok {
			t.Errorf("ValidSectionName(%q, 5) = %v", name, got)
		}
	}
}
