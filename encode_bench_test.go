package sitemap

import (
	"bytes"
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/gzpipe"
	"github.com/freshmap/sitemap/internal/testkit"
)

const (
	benchBase  = "https://shop.example.com/"
	benchLevel = 6 // the default of Config.GzipLevel
)

// benchURLs returns n product URLs of about 70 bytes, each with a lastmod;
// one in ten has a query with '&' to escape.
func benchURLs(n int) []URL {
	adjectives := []string{"organic", "vintage", "classic", "wireless", "stainless", "handmade", "compact", "premium"}
	nouns := []string{"cotton-t-shirt", "leather-wallet", "coffee-grinder", "desk-lamp", "water-bottle", "yoga-mat", "backpack"}
	colours := []string{"navy", "black", "olive", "sand", "red", "white"}
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	urls := make([]URL, n)
	for i := range urls {
		b := []byte(benchBase + "products/")
		b = append(b, adjectives[i%len(adjectives)]...)
		b = append(b, '-')
		b = append(b, nouns[i/len(adjectives)%len(nouns)]...)
		b = append(b, '-')
		b = append(b, colours[i/7%len(colours)]...)
		b = append(b, '-')
		b = strconv.AppendInt(b, int64(100_000+i), 10)
		if i%10 == 0 {
			b = append(b, "?size=m&ref=feed"...)
		}
		urls[i] = URL{Loc: string(b), LastMod: start.Add(time.Duration(i) * 37 * time.Second)}
	}
	return urls
}

var benchSizes = []int{1_000, 10_000, 50_000}

// benchDoc is the XML of a page of the first n benchURLs.
func benchDoc(b *testing.B, n int) (Source, pageSpec, []byte) {
	src := FromSlice(benchURLs(n), 0)
	spec := pageSpec{base: benchBase}
	var buf bytes.Buffer
	st, err := encodePage(context.Background(), src, 1, &buf, &spec)
	if err != nil || st.urls != n {
		b.Fatalf("encodePage: %v, %d of %d URLs", err, st.urls, n)
	}
	return src, spec, buf.Bytes()
}

// BenchmarkEncode writes the XML of a page into a reused buffer.
func BenchmarkEncode(b *testing.B) {
	for _, n := range benchSizes {
		b.Run("urls="+strconv.Itoa(n), func(b *testing.B) {
			src, spec, doc := benchDoc(b, n)
			var buf bytes.Buffer
			buf.Grow(len(doc))
			b.ReportAllocs()
			b.SetBytes(int64(len(doc)))
			cpu := testkit.StartCPU(b)
			for b.Loop() {
				buf.Reset()
				if _, err := encodePage(context.Background(), src, 1, &buf, &spec); err != nil {
					b.Fatal(err)
				}
			}
			cpu.Report()
		})
	}
}

// BenchmarkEncodeGzip streams the XML of a page into gzip, as a page is
// built to be served: through a gzipPipe, which compresses on a second
// goroutine while the page is encoded.
func BenchmarkEncodeGzip(b *testing.B) {
	for _, n := range benchSizes {
		b.Run("urls="+strconv.Itoa(n), func(b *testing.B) {
			src, spec, doc := benchDoc(b, n)
			var buf bytes.Buffer
			b.ReportAllocs()
			b.SetBytes(int64(len(doc)))
			cpu := testkit.StartCPU(b)
			for b.Loop() {
				buf.Reset()
				z := gzpipe.New(&buf, benchLevel, nil)
				if _, err := encodePage(context.Background(), src, 1, z, &spec); err != nil {
					b.Fatal(err)
				}
				if err := z.Close(); err != nil {
					b.Fatal(err)
				}
			}
			cpu.Report()
		})
	}
}

// BenchmarkGzipBaseline compresses the bytes BenchmarkEncode makes, at the
// same level: the floor BenchmarkEncodeGzip is measured against.
func BenchmarkGzipBaseline(b *testing.B) {
	for _, n := range benchSizes {
		b.Run("urls="+strconv.Itoa(n), func(b *testing.B) {
			_, _, doc := benchDoc(b, n)
			var buf bytes.Buffer
			b.ReportAllocs()
			b.SetBytes(int64(len(doc)))
			cpu := testkit.StartCPU(b)
			for b.Loop() {
				buf.Reset()
				z := gzpipe.Get(&buf, benchLevel)
				if _, err := z.Write(doc); err != nil {
					b.Fatal(err)
				}
				if err := z.Close(); err != nil {
					b.Fatal(err)
				}
				gzpipe.Put(z, benchLevel)
			}
			cpu.Report()
		})
	}
}
