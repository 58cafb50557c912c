package parse

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestIndex reads an index's entries; a bad lastmod or a missing loc is an
// error for that entry only, and a <urlset> is not an index.
func TestIndex(t *testing.T) {
	doc := `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>https://example.com/sitemap-1.xml.gz</loc><lastmod>2004-10-01T18:23:17+00:00</lastmod></sitemap>
<sitemap><loc>https://example.com/sitemap-2.xml.gz</loc><lastmod>2004-10-01T18:23</lastmod></sitemap>
<sitemap><lastmod>2005-01-01</lastmod></sitemap>
<sitemap><loc>https://example.com/sitemap-3.xml.gz</loc></sitemap>
</sitemapindex>`
	var locs []string
	var lines []int
	for s, err := range Index(strings.NewReader(doc), Limits{}) {
		locs = append(locs, s.Loc)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v", err)
			}
			lines = append(lines, e.Line)
		} else if s.Loc == "https://example.com/sitemap-1.xml.gz" && !s.LastMod.Equal(time.Date(2004, 10, 1, 18, 23, 17, 0, time.UTC)) {
			t.Errorf("lastmod %v", s.LastMod)
		}
	}
	if len(locs) != 4 || locs[3] != "https://example.com/sitemap-3.xml.gz" || len(lines) != 2 || lines[0] != 4 || lines[1] != 5 {
		t.Errorf("entries %q, errors on lines %v", locs, lines)
	}
	_, errs := collect(Index(strings.NewReader(head+"</urlset>"), Limits{}))
	if len(errs) != 1 || !errors.Is(errs[0], ErrRoot) {
		t.Errorf("urlset as index: %v", errs)
	}
}
