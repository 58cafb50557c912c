package gzsplice

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/freshmap/sitemap/internal/testkit"
)

// splicedSitemap is a <urlset> of 6,000 URLs kept as segments (the XML
// declaration and opening tag, runs of 1,000 URLs, the closing tag), with
// one run compressed again after a change and spliced in: the file that
// real readers must take as they take any gzip file.
func splicedSitemap(t *testing.T) (gz, xml []byte) {
	r := rand.New(rand.NewPCG(11, 12))
	url := func(i int) []byte {
		return fmt.Appendf(nil, "<url><loc>https://shop.example.com/p/%d?v=%x&amp;c=1</loc><lastmod>2026-11-%02d</lastmod></url>\n", i, r.Uint32(), 1+r.IntN(28))
	}
	runs := [][]byte{[]byte(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")}
	for s := range 6 {
		var b []byte
		for i := range 1000 {
			b = append(b, url(s*1000+i)...)
		}
		runs = append(runs, b)
	}
	runs = append(runs, []byte("</urlset>\n"))
	segs := segmentsOf(t, runs, 6)
	runs[3] = append(url(999999), runs[3][len(url(0)):]...) // a change inside one run
	segs[3], _ = NewSegment(runs[3], 6)
	return Join(nil, segs), bytes.Join(runs, nil)
}

// TestReaders: a spliced file is decoded to the same bytes by the readers
// that crawlers and tools use (testkit.Readers).
func TestReaders(t *testing.T) {
	gz, xml := splicedSitemap(t)
	testkit.Readers(t, gz, xml, 6000, "https://shop.example.com/p/999999", "https://shop.example.com/p/5999")
}
