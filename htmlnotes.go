package sitemap

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/freshmap/sitemap/internal/audit"
	"github.com/freshmap/sitemap/internal/crawllog"
	"github.com/freshmap/sitemap/internal/pagecheck"
)

// What the HTML view says live about a file, under its heading
// (htmlNoteList): who of the crawlers fetched it last and what they got
// (the crawl log), and what the last self-audit of its URLs found.

// crawlNotes are the crawl log's lines: "Googlebot (verified) fetched
// this file 2 h ago: 304", one per crawler family that did, latest first.
type crawlNotes struct {
	log  *crawllog.Log
	file func(docKey) crawllog.File // secStats.crawlFile
	now  func() time.Time
}

func (n crawlNotes) htmlNotes(k docKey) []string {
	var notes []string
	for _, f := range n.log.Fetches(n.file(k)) {
		if f.Crawler == "other" {
			continue
		}
		var about []string // "GPTBot (training)", "ClaudeBot (training; claimed, not verified by address)"
		if f.Purpose != "search" {
			about = append(about, f.Purpose)
		}
		switch {
		case f.Spoofed:
			about = append(about, "spoofed: not from its vendor's addresses")
		case !f.Verified:
			about = append(about, "claimed, not verified by address")
		}
		who := f.Crawler
		if len(about) > 0 {
			who += " (" + strings.Join(about, "; ") + ")"
		}
		notes = append(notes, fmt.Sprintf("%s fetched this file %s ago: %d", who, agoText(n.now().Sub(f.Time)), f.Status))
	}
	return notes
}

// auditNotes are the self-audit's lines about a file: what its last
// audit checked and found, with the first examples.
type auditNotes struct {
	audit *audit.Auditor[docKey]
	site  *site
}

func (n auditNotes) htmlNotes(k docKey) []string {
	if k.kind != docPage {
		return nil
	}
	af, ok := n.audit.FileAudit(n.site.fileName(k))
	if !ok {
		return nil
	}
	f := auditFile(af)
	var notes []string
	if len(f.Findings) == 0 {
		notes = []string{fmt.Sprintf("Self-audit: %d URLs checked, nothing found", f.Checked)}
	} else {
		var kinds []string
		for _, kind := range slices.Sorted(maps.Keys(f.Findings)) {
			kinds = append(kinds, fmt.Sprintf("%d %s", f.Findings[kind], findingText(kind)))
		}
		notes = []string{fmt.Sprintf("Self-audit: %d URLs checked: %s", f.Checked, strings.Join(kinds, ", "))}
	}
	if f.LeftOut > 0 {
		notes = append(notes, fmt.Sprintf("Self-audit: %d URLs left out of this file (noindex, or canonicalised to another URL)", f.LeftOut))
	}
	for _, e := range f.Examples {
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
