package htmlview

import (
	"bytes"
	"compress/gzip"
	"strings"
	"testing"
	"time"
)

func gzipOf(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	return b.Bytes()
}

// IsURLSet tells a one-file sitemap from an index, and says no to bytes
// that are not gzip.
func TestIsURLSet(t *testing.T) {
	const head = `<?xml version="1.0" encoding="UTF-8"?>` + "\n"
	if !IsURLSet(gzipOf(t, head+`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"></urlset>`)) {
		t.Error("a <urlset> is not one")
	}
	if IsURLSet(gzipOf(t, head+`<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"></sitemapindex>`)) {
		t.Error("an index is a <urlset>")
	}
	if IsURLSet([]byte("<urlset")) {
		t.Error("bytes that are not gzip are a <urlset>")
	}
}

// The intros link the file shown, escaped, and say its dates and the
// way back to the index's view only when there are some.
func TestIntros(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.FixedZone("x", 3600))
	if got := string(IndexIntro("sitemap_index.xml", time.Time{})); strings.Contains(got, "last modified") || !strings.Contains(got, `<a href="sitemap_index.xml">sitemap_index.xml</a>`) {
		t.Errorf("index intro without a date: %s", got)
	}
	if got := string(IndexIntro("sitemap_index.xml", at)); !strings.Contains(got, "last modified") || !strings.Contains(got, "2026-03-01T11:00:00Z") {
		t.Errorf("index intro: %s", got)
	}
	page := string(PageIntro("sitemap-a&b-1.xml.gz", at, "sitemap_index.html"))
	for _, want := range []string{`<a href="sitemap-a&amp;b-1.xml.gz">sitemap-a&amp;b-1.xml.gz</a>`, "listed in the index with lastmod", "2026-03-01T11:00:00Z", `<a href="sitemap_index.html">All sitemap files</a>`} {
		if !strings.Contains(page, want) {
			t.Errorf("page intro %s lacks %s", page, want)
		}
	}
	if single := string(PageIntro("sitemap.xml", time.Time{}, "")); strings.Contains(single, "All sitemap files") || strings.Contains(single, "lastmod") {
		t.Errorf("a one-file sitemap's intro: %s", single)
	}
}
