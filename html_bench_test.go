package sitemap

import (
	"net/http"
	"strconv"
	"testing"
	"time"
)

// htmlBench returns a Sitemap with Config.HTML whose page 1, of the first
// n benchURLs, is cached, and that page's entry.
func htmlBench(b *testing.B, n int) (*Sitemap, *entry) {
	return cachedSitemap(b, Config{BaseURL: benchBase, HTML: true}, Section{Source: FromSlice(benchURLs(n), 0)})
}

// BenchmarkHTMLView makes the HTML view of a cached page from its XML, as
// its first request does (then it is cached): decompress, parse, write
// the rows, cut into parts, compress. SetBytes is the XML's length;
// compare with BenchmarkServeBuild, which makes the same XML from the
// Source, and BenchmarkServeCached, which serves it.
func BenchmarkHTMLView(b *testing.B) {
	for _, n := range benchSizes {
		b.Run("urls="+strconv.Itoa(n), func(b *testing.B) {
			sm, e := htmlBench(b, n)
			b.ReportAllocs()
			b.SetBytes(e.size)
			var v *htmlView
			for b.Loop() {
				var err error
				if v, err = sm.site.pageHTML(pageKey(0, 1), e, time.Time{}); err != nil {
					b.Fatal(err)
				}
			}
			var html int64
			for _, p := range v.parts {
				html += p.bare.size
			}
			b.ReportMetric(float64(len(v.parts)), "parts")
			b.ReportMetric(float64(html), "html-bytes")
		})
	}
}

// BenchmarkHTMLServeCached serves the first part of a cached 50,000-URL
// page's HTML view, gzip-encoded, as BenchmarkServeCached serves the
// page's .xml.gz.
func BenchmarkHTMLServeCached(b *testing.B) {
	sm, e := htmlBench(b, MaxURLs)
	r := mustRequest("/sitemap-1.html", "Accept-Encoding", "gzip")
	w := &discard{h: http.Header{}}
	sm.ServeHTTP(w, r)
	serveLoop(b, sm, r, w, int64(len(e.html.Load().part(1).bare.gz)), http.StatusOK)
	if w.h.Get("Content-Encoding") != "gzip" {
		b.Fatal(w.h)
	}
}
