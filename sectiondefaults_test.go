package sitemap

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// TestSectionDefaults: a section's ChangeFreq and Priority are written for
// a URL with none of its own; a URL's own value wins, and one that breaks
// a rule is left out with no default in its place.
func TestSectionDefaults(t *testing.T) {
	spec := pageSpec{base: testBase, ext: ExtNone, changeFreq: Weekly, priority: new(0.4)}
	r := encodeSpec(t, listSource(
		URL{Loc: testBase + "a"},
		URL{Loc: testBase + "b", ChangeFreq: Daily, Priority: new(0.0)},
		URL{Loc: testBase + "c", ChangeFreq: "sometimes", Priority: new(1.5)},
	), spec)
	if r.err != nil {
		t.Fatal(r.err)
	}
	for _, want := range []string{
		`<url><loc>https://example.com/a</loc><changefreq>weekly</changefreq><priority>0.4</priority></url>`,
		`<url><loc>https://example.com/b</loc><changefreq>daily</changefreq><priority>0.0</priority></url>`,
		`<url><loc>https://example.com/c</loc></url>`,
	} {
		if !strings.Contains(string(r.doc), want) {
			t.Errorf("missing %s in\n%s", want, r.doc)
		}
	}
	if len(r.notices) != 2 {
		t.Errorf("notices %v, want c's changefreq and priority", r.notices)
	}
	// No defaults: nothing written.
	r = encodeSpec(t, listSource(URL{Loc: testBase + "a"}), pageSpec{base: testBase, ext: ExtNone})
	if strings.Contains(string(r.doc), "changefreq") || strings.Contains(string(r.doc), "priority") {
		t.Errorf("no defaults wrote\n%s", r.doc)
	}
}

// TestSectionDefaultsServed: through New, the defaults reach every file of
// their section only, and New copies the Priority it is given.
func TestSectionDefaultsServed(t *testing.T) {
	p := 0.8
	sm := newTestSitemap(t, Config{},
		Section{Name: "a", Source: FromSlice([]URL{{Loc: "https://example.com/a"}}, 0), ChangeFreq: Monthly, Priority: &p},
		Section{Name: "b", Source: FromSlice([]URL{{Loc: "https://example.com/b"}}, 0)},
	)
	p = 0.1 // after New: no effect
	if body := get(sm, "/sitemap-a-1.xml").Body.String(); !strings.Contains(body, "<changefreq>monthly</changefreq><priority>0.8</priority>") {
		t.Errorf("section a:\n%s", body)
	}
	if body := get(sm, "/sitemap-b-1.xml").Body.String(); strings.Contains(body, "changefreq") || strings.Contains(body, "priority") {
		t.Errorf("section b got a's defaults:\n%s", body)
	}
}

// TestSectionDefaultsConfig: New refuses defaults that break the rules.
func TestSectionDefaultsConfig(t *testing.T) {
	src := FromSlice([]URL{{Loc: "https://example.com/a"}}, 0)
	for name, sec := range map[string]Section{
		"changefreq":   {Source: src, ChangeFreq: "Weekly"},
		"priority":     {Source: src, Priority: new(1.01)},
		"negative":     {Source: src, Priority: new(-0.1)},
		"NaN priority": {Source: src, Priority: new(math.NaN())},
	} {
		if _, err := New(Config{BaseURL: "https://example.com"}, sec); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: New: %v, want ErrConfig", name, err)
		}
	}
}

// TestSectionExtNone: a section with Extensions ExtNone declares only the
// sitemap namespace (it declared every default extension before).
func TestSectionExtNone(t *testing.T) {
	sm := newTestSitemap(t, Config{}, Section{Source: FromSlice([]URL{{Loc: "https://example.com/a"}}, 0), Extensions: ExtNone})
	body := get(sm, "/sitemap-1.xml").Body.String()
	if !strings.Contains(body, `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`) {
		t.Errorf("got\n%s", body)
	}
}
