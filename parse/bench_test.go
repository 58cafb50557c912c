package parse

import (
	"bytes"
	"encoding/xml"
	"io"
	"strconv"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/klauspost/compress/gzip"
)

// benchDoc is a 50,000-URL document as the encoder writes it: every URL
// with lastmod, changefreq, priority, an image and two alternates.
func benchDoc(b *testing.B) []byte {
	urls := make([]sitemap.URL, sitemap.MaxURLs)
	t0 := time.Date(2024, 6, 1, 8, 30, 15, 0, time.UTC)
	for i := range urls {
		loc := "https://example.com/products/" + strconv.Itoa(i)
		urls[i] = sitemap.URL{Loc: loc, LastMod: t0.Add(time.Duration(i) * time.Minute), ChangeFreq: sitemap.Weekly, Priority: new(0.5),
			Images:     []sitemap.Image{{Loc: "https://cdn.example.net/img/" + strconv.Itoa(i) + ".jpg"}},
			Alternates: []sitemap.Alternate{{Hreflang: "en", Href: loc}, {Hreflang: "de", Href: loc + "?lang=de"}}}
	}
	page, _ := serve(b, urls, 0, sitemap.ExtImage|sitemap.ExtAlternates)
	zr, err := gzip.NewReader(bytes.NewReader(page(1)))
	if err != nil {
		b.Fatal(err)
	}
	doc, err := io.ReadAll(zr)
	if err != nil {
		b.Fatal(err)
	}
	return doc
}

// BenchmarkParse reads 50,000 URLs into sitemap.URL values, beside
// encoding/xml's plain Token loop over the same bytes.
func BenchmarkParse(b *testing.B) {
	doc := benchDoc(b)
	b.Run("parse", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		b.ReportAllocs()
		for b.Loop() {
			n := 0
			for _, err := range URLs(bytes.NewReader(doc), Limits{}) {
				if err != nil {
					b.Fatal(err)
				}
				n++
			}
			if n != sitemap.MaxURLs {
				b.Fatalf("%d URLs", n)
			}
		}
	})
	b.Run("xml.Token", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		b.ReportAllocs()
		for b.Loop() {
			d := xml.NewDecoder(bytes.NewReader(doc))
			for {
				if _, err := d.Token(); err == io.EOF {
					break
				} else if err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
