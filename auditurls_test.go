package sitemap

import (
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/audit"
	"github.com/freshmap/sitemap/internal/pagecheck"
)

// TestAuditURLOf: the audit reads back each URL of a built file as
// written (XML-escaped, which is what a build's omit lookup sees), its
// location and its lastmod, a date alone as its UTC day.
func TestAuditURLOf(t *testing.T) {
	day := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	sm := newTestSitemap(t, Config{}, Section{Source: listSource(
		URL{Loc: "https://example.com/a?x=1&y='2'", LastMod: day, LastModDateOnly: true},
		URL{Loc: "https://example.com/b", LastMod: day.Add(90 * time.Minute)},
		URL{Loc: "https://example.com/c", ChangeFreq: Daily})})
	get(sm, "/sitemap-1.xml.gz")
	e, ok := cachedEntry(sm, pageKey(0, 1))
	if !ok {
		t.Fatal("not built")
	}
	heads, err := auditHeads(e.gz)
	if err != nil || len(heads) != 3 {
		t.Fatalf("auditHeads: %q, %v", heads, err)
	}
	want := []audit.URL{
		{Raw: "https://example.com/a?x=1&amp;y=&apos;2&apos;", Loc: "https://example.com/a?x=1&y='2'", Lastmod: pagecheck.Day(day)},
		{Raw: "https://example.com/b", Loc: "https://example.com/b", Lastmod: pagecheck.Instant(day.Add(90 * time.Minute))},
		{Raw: "https://example.com/c", Loc: "https://example.com/c"},
	}
	for i, h := range heads {
		if got := auditURLOf(h); got != want[i] {
			t.Errorf("auditURLOf(%q) = %+v, want %+v", h, got, want[i])
		}
	}
	// A location alone, as the audit asks for a URL it left out.
	if got := auditURLOf("<url><loc>" + want[0].Raw + "</loc>"); got != (audit.URL{Raw: want[0].Raw, Loc: want[0].Loc}) {
		t.Errorf("a location alone: %+v", got)
	}
}
