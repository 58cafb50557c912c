package xmlenc

import (
	"bytes"
	"strconv"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
	"github.com/freshmap/sitemap/urlset"
)

// benchURLs returns n product URLs of about 70 bytes under base, each with
// a lastmod; one in ten has a query with '&' to escape. They are the
// root's benchmark URLs, so the figures compare with its BenchmarkEncode,
// which writes the same page through a Source.
func benchURLs(base string, n int) []urlset.URL {
	adjectives := []string{"organic", "vintage", "classic", "wireless", "stainless", "handmade", "compact", "premium"}
	nouns := []string{"cotton-t-shirt", "leather-wallet", "coffee-grinder", "desk-lamp", "water-bottle", "yoga-mat", "backpack"}
	colours := []string{"navy", "black", "olive", "sand", "red", "white"}
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	urls := make([]urlset.URL, n)
	for i := range urls {
		b := []byte(base + "products/")
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
		urls[i] = urlset.URL{Loc: string(b), LastMod: start.Add(time.Duration(i) * 37 * time.Second)}
	}
	return urls
}

// BenchmarkEncoder writes a <urlset> of n URLs with an Encoder into a
// reused buffer: the writer alone, without a Source or a page's rules.
func BenchmarkEncoder(b *testing.B) {
	const base = "https://shop.example.com/"
	for _, n := range []int{1_000, 10_000, 50_000} {
		b.Run("urls="+strconv.Itoa(n), func(b *testing.B) {
			urls := benchURLs(base, n)
			var buf bytes.Buffer
			write := func() {
				buf.Reset()
				e := Get()
				defer Put(e)
				e.Reset(&buf, URLSet, 0, base, 0, 0, "")
				for i := range urls {
					if err := e.Add(&urls[i]); err != nil {
						b.Fatal(err)
					}
				}
				if err := e.Close(); err != nil || e.Count() != n {
					b.Fatalf("%v, %d of %d URLs", err, e.Count(), n)
				}
			}
			write()
			b.ReportAllocs()
			b.SetBytes(int64(buf.Len()))
			cpu := testkit.StartCPU(b)
			for b.Loop() {
				write()
			}
			cpu.Report()
		})
	}
}
