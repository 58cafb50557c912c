package sitemap

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/freshmap/sitemap/internal/hreflang"
	"github.com/freshmap/sitemap/internal/xsdcheck"
)

// threeLanguages is English at the Source's own locs (also the
// x-default), German under /de and French under /fr/ (a slash at either
// end of a Prefix is ignored).
var threeLanguages = &Hreflang{
	Languages: []Language{{Tag: "en"}, {Tag: "de", Prefix: "/de"}, {Tag: "fr", Prefix: "fr/"}},
	XDefault:  "en",
}

// clusterSpec is the pageSpec of a section with Hreflang h.
func clusterSpec(t *testing.T, h *Hreflang, maxURLs int) pageSpec {
	t.Helper()
	c, err := h.cluster("t")
	if err != nil {
		t.Fatal(err)
	}
	return pageSpec{base: testBase, ext: ExtAlternates, cluster: c, maxURLs: maxURLs, now: testNow}
}

// TestHreflangCluster: each URL of the Source becomes one entry per
// language, every entry listing every language (itself included) and the
// x-default, in the order declared, with the URL's other fields; the
// file stays valid against the schema.
func TestHreflangCluster(t *testing.T) {
	r := encodeSpec(t, listSource(
		URL{Loc: testBase + "p/1", LastMod: day(2024, 5, 1), ChangeFreq: Weekly},
		URL{Loc: testBase}, // the home page: /de/ and /fr/
	), clusterSpec(t, threeLanguages, 10))
	if r.err != nil || len(r.rejected) != 0 || len(r.notices) != 0 {
		t.Fatalf("err %v, rejected %v, notices %v", r.err, r.rejected, r.notices)
	}
	links := func(path string) string {
		return `<xhtml:link rel="alternate" hreflang="en" href="https://example.com/` + path + `"/>` +
			`<xhtml:link rel="alternate" hreflang="de" href="https://example.com/de/` + path + `"/>` +
			`<xhtml:link rel="alternate" hreflang="fr" href="https://example.com/fr/` + path + `"/>` +
			`<xhtml:link rel="alternate" hreflang="x-default" href="https://example.com/` + path + `"/>`
	}
	want := ""
	for _, p := range []string{"", "de/", "fr/"} {
		want += `<url><loc>https://example.com/` + p + `p/1</loc><lastmod>2024-05-01T00:00:00Z</lastmod><changefreq>weekly</changefreq>` + links("p/1") + "</url>\n"
	}
	for _, p := range []string{"", "de/", "fr/"} {
		want += `<url><loc>https://example.com/` + p + `</loc>` + links("") + "</url>\n"
	}
	if body := string(r.doc); !strings.Contains(body, want) {
		t.Errorf("got\n%s\nwant the entries\n%s", body, want)
	}
	if r.st.urls != 6 {
		t.Errorf("%d entries, want 6", r.st.urls)
	}
	xsdcheck.URLSet(t, r.doc)
}

// TestHreflangClusterNoXDefault: without XDefault no x-default link is
// written, and the Source's loc need not be one of the languages.
func TestHreflangClusterNoXDefault(t *testing.T) {
	h := &Hreflang{Languages: []Language{{Tag: "en-GB", Prefix: "uk"}, {Tag: "en-US", Prefix: "us"}}}
	r := encodeSpec(t, listSource(URL{Loc: testBase + "a"}), clusterSpec(t, h, 10))
	want := `<url><loc>https://example.com/uk/a</loc>` +
		`<xhtml:link rel="alternate" hreflang="en-GB" href="https://example.com/uk/a"/>` +
		`<xhtml:link rel="alternate" hreflang="en-US" href="https://example.com/us/a"/></url>` + "\n" +
		`<url><loc>https://example.com/us/a</loc>` +
		`<xhtml:link rel="alternate" hreflang="en-GB" href="https://example.com/uk/a"/>` +
		`<xhtml:link rel="alternate" hreflang="en-US" href="https://example.com/us/a"/></url>` + "\n"
	if body := string(r.doc); !strings.Contains(body, want) || strings.Contains(body, "x-default") || strings.Contains(body, "<loc>https://example.com/a<") {
		t.Errorf("got\n%s\nwant the entries\n%s", body, want)
	}
}

// TestHreflangClusterOwnAlternates: a URL with Alternates of its own is
// written alone, as given.
func TestHreflangClusterOwnAlternates(t *testing.T) {
	own := URL{Loc: testBase + "only-en", Alternates: []Alternate{{Hreflang: "en", Href: testBase + "only-en"}}}
	r := encodeSpec(t, listSource(own), clusterSpec(t, threeLanguages, 10))
	want := `<url><loc>https://example.com/only-en</loc><xhtml:link rel="alternate" hreflang="en" href="https://example.com/only-en"/></url>` + "\n"
	if body := string(r.doc); !strings.Contains(body, want) || r.st.urls != 1 {
		t.Errorf("got\n%s\nwant the one entry\n%s", body, want)
	}
}

// TestHreflangClusterBadLoc: a loc that does not start with the base URL
// as written is reported once and not written; a language version whose
// loc breaks a rule (too long once prefixed) is reported alone, and the
// others drop its link.
func TestHreflangClusterBadLoc(t *testing.T) {
	for _, loc := range []string{"HTTPS://EXAMPLE.COM/p", "https://other.example/p", "/p"} {
		r := encodeSpec(t, listSource(URL{Loc: loc}, URL{Loc: anchorLoc}), clusterSpec(t, threeLanguages, 10))
		checkRejected(t, r, loc, "loc", hreflang.ErrBase)
		if r.err != nil || r.st.urls != 3 {
			t.Errorf("%s: err %v, %d entries, want the anchor's 3", loc, r.err, r.st.urls)
		}
	}
	// 2,047 characters fit in English, not under /de/ or /fr/.
	long := testBase + strings.Repeat("a", 2047-len(testBase))
	r := encodeSpec(t, listSource(URL{Loc: long}), clusterSpec(t, threeLanguages, 10))
	if r.err != nil || r.st.urls != 1 || len(r.rejected) != 2 {
		t.Fatalf("err %v, %d entries, rejected %v; want 1 entry and 2 rejections", r.err, r.st.urls, r.rejected)
	}
	for _, n := range r.notices { // the English entry, without the two links
		if !errors.Is(n.err, ErrElementDropped) {
			t.Errorf("notice %v, want a dropped link", n.err)
		}
	}
	if len(r.notices) != 2 || strings.Count(string(r.doc), "<xhtml:link") != 2 {
		t.Errorf("notices %v, doc\n%s\nwant the en and x-default links only", r.notices, r.doc)
	}
	// Strict: the first rejection fails the page.
	spec := clusterSpec(t, threeLanguages, 10)
	spec.strict = true
	if r := encodeSpec(t, listSource(URL{Loc: "/p"}), spec); !errors.Is(r.err, hreflang.ErrBase) {
		t.Errorf("strict: err %v, want hreflang.ErrBase", r.err)
	}
}

// TestHreflangClusterPageSize: the page size bounds the Source's URLs, not
// the entries, which may be that many times the number of languages.
func TestHreflangClusterPageSize(t *testing.T) {
	r := encodeSpec(t, listSource(numbered(3)...), clusterSpec(t, threeLanguages, 3))
	if r.err != nil || r.st.urls != 9 {
		t.Errorf("3 URLs at page size 3: err %v, %d entries, want 9", r.err, r.st.urls)
	}
	r = encodeSpec(t, listSource(numbered(4)...), clusterSpec(t, threeLanguages, 3))
	if !errors.Is(r.err, errOverPageSize) {
		t.Errorf("4 URLs at page size 3: err %v, want errOverPageSize", r.err)
	}
}

// TestHreflangConfig: New checks the declaration and the page size it
// allows.
func TestHreflangConfig(t *testing.T) {
	src := FromSlice([]URL{{Loc: "https://example.com/a"}}, 1000)
	sized := FromSlice(numbered(20_000), 0) // 50,000 a page, and more than one file's worth in 3 languages
	unsized := SourceFunc{PagesFunc: src.Pages, URLsFunc: src.URLs}
	for name, tc := range map[string]struct {
		sec  Section
		want string // in the error; "" for none
	}{
		"ok":                 {Section{Source: src, Hreflang: threeLanguages}, ""},
		"no languages":       {Section{Source: src, Hreflang: &Hreflang{}}, "no Languages"},
		"bad tag":            {Section{Source: src, Hreflang: &Hreflang{Languages: []Language{{Tag: "en_US"}}}}, "BCP 47"},
		"x-default language": {Section{Source: src, Hreflang: &Hreflang{Languages: []Language{{Tag: "x-default"}}}}, "x-default is not a language"},
		"tag twice":          {Section{Source: src, Hreflang: &Hreflang{Languages: []Language{{Tag: "de"}, {Tag: "DE", Prefix: "de"}}}}, "twice"},
		"prefix twice":       {Section{Source: src, Hreflang: &Hreflang{Languages: []Language{{Tag: "de", Prefix: "x"}, {Tag: "fr", Prefix: "/x/"}}}}, "same Prefix"},
		"bad prefix":         {Section{Source: src, Hreflang: &Hreflang{Languages: []Language{{Tag: "de", Prefix: "a/../b"}}}}, "Prefix"},
		"query prefix":       {Section{Source: src, Hreflang: &Hreflang{Languages: []Language{{Tag: "de", Prefix: "?lang=de"}}}}, "Prefix"},
		"unknown x-default":  {Section{Source: src, Hreflang: &Hreflang{Languages: []Language{{Tag: "de"}}, XDefault: "en"}}, "XDefault"},
		"news":               {Section{Source: src, Hreflang: threeLanguages, Extensions: ExtNews | ExtAlternates}, "news"},
		"no xhtml":           {Section{Source: src, Hreflang: threeLanguages, Extensions: ExtImage}, "ExtAlternates"},
		"page size":          {Section{Source: sized, Hreflang: threeLanguages}, "at most 16666"},
		"own page size":      {Section{Source: unsized, PageSize: 16_667, Hreflang: threeLanguages}, "at most 16666"},
		"page size fits":     {Section{Source: unsized, PageSize: 16_666, Hreflang: threeLanguages}, ""},
		"short list":         {Section{Source: FromSlice(numbered(16_666), 0), Hreflang: threeLanguages}, ""},
		"long list":          {Section{Source: FromSlice(numbered(16_667), 0), Hreflang: threeLanguages}, "at most 16666"},
	} {
		t.Run(name, func(t *testing.T) {
			sm, err := New(Config{BaseURL: "https://example.com"}, tc.sec)
			if err == nil {
				sm.Close()
			}
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("New: %v", err)
			case tc.want != "" && (!errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("New: %v, want ErrConfig saying %q", err, tc.want)
			}
		})
	}
	// A zero page size with no PageSizer: 50,000 / 3.
	sm := newTestSitemap(t, Config{}, Section{Source: unsized, Hreflang: threeLanguages})
	if got := sm.site.sections[0].pageSize; got != 16_666 {
		t.Errorf("page size %d, want 16666", got)
	}
}

// TestHreflangServed: through the handler, the file holds every language
// version, and the HTML view and URL count agree with it.
func TestHreflangServed(t *testing.T) {
	sm := newTestSitemap(t, Config{}, Section{Name: "p", Source: FromSlice(numbered(2), 0), Hreflang: threeLanguages})
	w := get(sm, "/sitemap-p-1.xml")
	if w.Code != http.StatusOK {
		t.Fatalf("status %d", w.Code)
	}
	if n := strings.Count(w.Body.String(), "<url>"); n != 6 {
		t.Errorf("%d entries, want 6:\n%s", n, w.Body)
	}
	xsdcheck.URLSet(t, w.Body.Bytes())
}

// FuzzCluster: whatever the languages and the loc, a page of a section with
// Hreflang is well-formed XML; the URL is written once per language or
// reported, each version once; and every version written lists itself.
func FuzzCluster(f *testing.F) {
	f.Add("https://example.com/p/1", "en", "", "de", "/de")
	f.Add("https://example.com/", "en-GB", "uk", "x-default", "x")
	f.Add("https://example.com/a?b=1&c=<2>", "fr", "fr/ca", "es-419", "es")
	f.Add("/relative", "de", "de", "de", "")
	f.Add("https://example.com/ü "+strings.Repeat("x", 2030), "zh-Hant-TW", "zh", "ja", "/ja/")
	f.Fuzz(func(t *testing.T, loc, tag1, prefix1, tag2, prefix2 string) {
		c, err := (&Hreflang{Languages: []Language{{Tag: tag1, Prefix: prefix1}, {Tag: tag2, Prefix: prefix2}}, XDefault: tag1}).cluster("f")
		if err != nil {
			return
		}
		spec := pageSpec{base: testBase, ext: ExtAlternates, cluster: c, maxURLs: 1}
		var rejected int
		spec.report = func(string, error) { rejected++ }
		var buf bytes.Buffer
		st, err := encodePage(context.Background(), listSource(URL{Loc: loc}), 1, &buf, &spec)
		if err != nil && !errors.Is(err, errEmptyPage) {
			t.Fatalf("encodePage: %v", err)
		}
		if st.urls+rejected != 2 && !(st.urls == 0 && rejected == 1) {
			t.Fatalf("%d written, %d rejected: want 2 in all, or the loc rejected once", st.urls, rejected)
		}
		if err != nil {
			return
		}
		var set struct {
			URLs []struct {
				Loc   string `xml:"loc"`
				Links []struct {
					Href string `xml:"href,attr"`
				} `xml:"link"`
			} `xml:"url"`
		}
		if err := xml.Unmarshal(buf.Bytes(), &set); err != nil {
			t.Fatalf("%v in\n%s", err, buf.Bytes())
		}
		seen := map[string]bool{}
		for _, u := range set.URLs {
			if seen[u.Loc] {
				t.Fatalf("%s written twice", u.Loc)
			}
			seen[u.Loc] = true
			if !slices.ContainsFunc(u.Links, func(l struct {
				Href string `xml:"href,attr"`
			}) bool {
				return l.Href == u.Loc
			}) {
				t.Fatalf("%s does not list itself: %+v", u.Loc, u.Links)
			}
		}
	})
}
