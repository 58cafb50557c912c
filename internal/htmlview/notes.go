package htmlview

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/freshmap/sitemap/internal/pagecheck"
)

// The notes a view shows live under its heading, as plain text (escaped
// by AppendNotes): the crawl log's and the self-audit's.

// CrawlNote is the crawl log's line about a crawler family's last fetch
// of the file: "Googlebot (verified) fetched this file 2 h ago: 304".
// purpose is the family's ("search" is not said), verified and spoofed
// what its address showed, ago how long since, status what it got.
func CrawlNote(crawler, purpose string, verified, spoofed bool, ago time.Duration, status int) string {
	var about []string // "GPTBot (training)", "ClaudeBot (training; claimed, not verified by address)"
	if purpose != "search" {
		about = append(about, purpose)
	}
	switch {
	case spoofed:
		about = append(about, "spoofed: not from its vendor's addresses")
	case !verified:
		about = append(about, "claimed, not verified by address")
	}
	who := crawler
	if len(about) > 0 {
		who += " (" + strings.Join(about, "; ") + ")"
	}
	return fmt.Sprintf("%s fetched this file %s ago: %d", who, agoText(ago), status)
}

// Finding is one thing the self-audit found wrong with a URL: its kind
// (internal/pagecheck's), the URL, and what was seen.
type Finding struct {
	Kind, Loc, Detail string
}

// AuditNotes are the self-audit's lines about a file: what its last audit
// checked (checked URLs) and found (by kind), the URLs it left out, and
// the first examples.
func AuditNotes(checked int, findings map[string]int, leftOut int, examples []Finding) []string {
	var notes []string
	if len(findings) == 0 {
		notes = []string{fmt.Sprintf("Self-audit: %d URLs checked, nothing found", checked)}
	} else {
		var kinds []string
		for _, kind := range slices.Sorted(maps.Keys(findings)) {
			kinds = append(kinds, fmt.Sprintf("%d %s", findings[kind], findingText(kind)))
		}
		notes = []string{fmt.Sprintf("Self-audit: %d URLs checked: %s", checked, strings.Join(kinds, ", "))}
	}
	if leftOut > 0 {
		notes = append(notes, fmt.Sprintf("Self-audit: %d URLs left out of this file (noindex, or canonicalised to another URL)", leftOut))
	}
	for _, e := range examples {
		notes = append(notes, fmt.Sprintf("%s: %s (%s)", findingText(e.Kind), e.Loc, e.Detail))
	}
	return notes
}

// findingText names a kind of finding to a person: the lastmod drifts in
// words, the others as they are.
func findingText(kind string) string {
	switch kind {
	case pagecheck.LastmodBehind:
		return "lastmod behind the page"
	case pagecheck.LastmodAhead:
		return "lastmod ahead of the page"
	}
	return kind
}

// agoText says d to a person, to the largest unit: "40 s", "5 min",
// "2 h", "3 d".
func agoText(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%d s", max(0, int(d/time.Second)))
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h", int(d/time.Hour))
	}
	return fmt.Sprintf("%d d", int(d/(24*time.Hour)))
}
