package htmlview

import (
	"slices"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/pagecheck"
)

// A crawl note names the family, its purpose unless search, and what its
// address showed; the time to the largest unit.
func TestCrawlNote(t *testing.T) {
	for _, c := range []struct {
		crawler, purpose  string
		verified, spoofed bool
		ago               time.Duration
		want              string
	}{
		{"Googlebot", "search", true, false, 2*time.Hour + time.Minute, "Googlebot fetched this file 2 h ago: 304"},
		{"GPTBot", "training", false, false, 40 * time.Second, "GPTBot (training; claimed, not verified by address) fetched this file 40 s ago: 304"},
		{"Bingbot", "search", false, true, 5 * time.Minute, "Bingbot (spoofed: not from its vendor's addresses) fetched this file 5 min ago: 304"},
		{"ClaudeBot", "training", true, false, 72 * time.Hour, "ClaudeBot (training) fetched this file 3 d ago: 304"},
		{"Googlebot", "search", true, false, -time.Second, "Googlebot fetched this file 0 s ago: 304"}, // a clock that went back
	} {
		if got := CrawlNote(c.crawler, c.purpose, c.verified, c.spoofed, c.ago, 304); got != c.want {
			t.Errorf("CrawlNote = %q, want %q", got, c.want)
		}
	}
}

// The audit's notes: the count and the findings by kind in order, the
// drifts in words, the URLs left out, then the examples.
func TestAuditNotes(t *testing.T) {
	if got := AuditNotes(3, nil, 0, nil); !slices.Equal(got, []string{"Self-audit: 3 URLs checked, nothing found"}) {
		t.Errorf("nothing found: %q", got)
	}
	got := AuditNotes(10, map[string]int{pagecheck.Status: 1, pagecheck.LastmodBehind: 2}, 4,
		[]Finding{{pagecheck.LastmodBehind, "https://example.com/a", "two dates"}, {pagecheck.Status, "https://example.com/b", "404"}})
	want := []string{
		"Self-audit: 10 URLs checked: 2 lastmod behind the page, 1 status",
		"Self-audit: 4 URLs left out of this file (noindex, or canonicalised to another URL)",
		"lastmod behind the page: https://example.com/a (two dates)",
		"status: https://example.com/b (404)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("notes\n%q\nwant\n%q", got, want)
	}
}
