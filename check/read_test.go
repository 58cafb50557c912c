package check_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap/check"
	"github.com/freshmap/sitemap/internal/testkit"
)

// TestReadOnce: Read takes each document, plain or gzip, as a stream it
// reads once, to its end and no further, and still finds what needs the
// token pass beside the parser's: element-order at its position, and the
// line of an entry the parser read without error (a duplicate's). The
// checker used to hold the whole document and read it twice (parse, then
// order.go's own decoder), which a stream cannot give.
func TestReadOnce(t *testing.T) {
	doc := urlset(
		u(loc("a")),
		u("<lastmod>2025-01-01</lastmod>"+loc("b")), // line 4: lastmod before loc
		u(loc("a")), // line 5: a duplicate, found by the entry's line
	)
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte(doc))
	w.Close()
	for name, data := range map[string][]byte{"plain": []byte(doc), "gzip": gz.Bytes()} {
		c := check.New(check.Options{Now: func() time.Time { return now }})
		in := &testkit.CountingReader{R: bytes.NewReader(data)}
		if kind, _ := c.Read("s.xml", fileLoc, in); kind != check.URLSet {
			t.Errorf("%s: kind %v", name, kind)
		}
		c.Finish()
		if in.N != int64(len(data)) {
			t.Errorf("%s: read %d bytes of %d", name, in.N, len(data))
		}
		var got []string
		for _, f := range c.Report().Findings {
			got = append(got, fmt.Sprintf("%s %d:%d", f.Rule, f.Line, f.Column))
		}
		if want := "element-order 4:35 loc-duplicate 5:0"; strings.Join(got, " ") != want {
			t.Errorf("%s: findings %q, want %q", name, got, want)
		}
	}
}

// BenchmarkDocument checks one file of 50,000 URLs with four hreflang
// alternates each, like the demo's products, as gzip: one pass of the
// parser and the order rule, and the rules across files.
func BenchmarkDocument(b *testing.B) {
	urls := many(50_000, func(i int) string {
		return u(loc(fmt.Sprintf("p/%d", i)) + "<lastmod>2025-01-01</lastmod>" + alt("en", fmt.Sprintf("p/%d", i)) +
			alt("de", fmt.Sprintf("de/p/%d", i)) + alt("fr", fmt.Sprintf("fr/p/%d", i)) + alt("es", fmt.Sprintf("es/p/%d", i)))
	})
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte(urlset(urls...)))
	w.Close()
	b.SetBytes(int64(len(urlset(urls...))))
	b.ReportAllocs()
	for b.Loop() {
		c := check.New(check.Options{Now: func() time.Time { return now }})
		c.Document("s.xml", fileLoc, gz.Bytes())
		c.Finish()
	}
}
