package audit

import (
	"bytes"
	"compress/gzip"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/pagecheck"
)

// Heads keeps each <url>'s loc and lastmod as written; ParseHead reads
// the location unescaped and a date alone as its UTC day. (The root's
// TestAuditURLOf reads a file the encoder built.)
func TestHeads(t *testing.T) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n" +
		"<url><loc>https://example.com/a?x=1&amp;y=2</loc><lastmod>2025-03-01</lastmod><changefreq>daily</changefreq></url>\n" +
		"<url><loc>https://example.com/b</loc><lastmod>2025-03-01T01:30:00Z</lastmod></url>\n" +
		"<url><loc>https://example.com/c</loc></url>\n</urlset>\n"))
	zw.Close()
	heads, err := Heads(b.Bytes())
	if err != nil || len(heads) != 3 {
		t.Fatalf("Heads: %q, %v", heads, err)
	}
	day := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	want := []URL{
		{Raw: "https://example.com/a?x=1&amp;y=2", Loc: "https://example.com/a?x=1&y=2", Lastmod: pagecheck.Day(day)},
		{Raw: "https://example.com/b", Loc: "https://example.com/b", Lastmod: pagecheck.Instant(day.Add(90 * time.Minute))},
		{Raw: "https://example.com/c", Loc: "https://example.com/c"},
	}
	for i, h := range heads {
		if got := ParseHead(h); got != want[i] {
			t.Errorf("ParseHead(%q) = %+v, want %+v", h, got, want[i])
		}
	}
	if _, err := Heads([]byte("not gzip")); err == nil {
		t.Error("Heads of bytes that are no gzip: no error")
	}
}
