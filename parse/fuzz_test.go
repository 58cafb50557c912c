package parse

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/freshmap/sitemap/internal/testkit"
	"github.com/klauspost/compress/gzip"
)

// FuzzParse feeds arbitrary bytes, and mutations of the root package's
// golden documents (plain and gzip), to both readers: they never panic, keep
// within their limits, give every error a position, and yield nothing after
// an error that ends the document.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("../testdata/*.golden")
	for _, file := range files {
		doc, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(doc)
		f.Add(gzipBytes(doc))
	}
	f.Add([]byte(head + `<url><loc>x</loc><lastmod>2024-02-30</lastmod></url><url/></urlset>`))
	f.Add([]byte(`<!DOCTYPE urlset [<!ENTITY a "b">]><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"/>`))
	f.Add([]byte{0x1f, 0x8b})
	f.Add([]byte("https://example.com/a\n\n https://example.com/b \r\nhttp://x\n"))
	lim := Limits{MaxBytes: 8 << 10, MaxEntries: 5, MaxText: 256}
	f.Fuzz(func(t *testing.T, doc []byte) {
		in := &testkit.CountingReader{R: bytes.NewReader(doc)}
		n := 0
		check := func(err error) {
			if err == nil {
				n++
				return
			}
			var e *Error
			if !errors.As(err, &e) || e.Line < 1 || e.Column < 1 {
				t.Fatalf("error without a position: %#v", err)
			}
			if !errors.Is(err, ErrInvalid) {
				n = -1 << 30 // nothing may follow
			}
		}
		for _, err := range URLs(in, lim) {
			if n < 0 {
				t.Fatal("yield after an error that ends the document")
			}
			check(err)
		}
		if n > lim.MaxEntries {
			t.Fatalf("%d entries", n)
		}
		if !bytes.HasPrefix(doc, []byte{0x1f, 0x8b}) && in.N > lim.MaxBytes+16<<10+2 {
			t.Fatalf("read %d bytes", in.N)
		}
		n = 0
		for _, err := range Index(bytes.NewReader(doc), lim) {
			if n < 0 {
				t.Fatal("yield after an error that ends the document")
			}
			check(err)
		}
		if n > lim.MaxEntries {
			t.Fatalf("%d index entries", n)
		}
	})
}

func gzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}
