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

// htmlNotesBench returns a Sitemap whose page 1 (50,000 URLs) has its
// HTML view's part 1 ready with notes, as the crawl log and the
// self-audit give them, and that part's copy with notes.
func htmlNotesBench(b *testing.B) (*Sitemap, *entry) {
	sm, e := htmlBench(b, MaxURLs)
	sm.notes = htmlNoteList{notesFunc(func(k docKey) []string {
		return []string{"Googlebot fetched this file 2 h ago: 304", "Self-audit: 20 URLs checked, nothing found"}
	})}
	w := &discard{h: http.Header{}}
	sm.ServeHTTP(w, mustRequest("/sitemap-1.html", "Accept-Encoding", "gzip"))
	c := e.html.Load().part(1).noted.Load()
	if c == nil {
		b.Fatal("no copy with notes")
	}
	return sm, c.e
}

// BenchmarkHTMLServeNotes serves part 1 of a cached 50,000-URL page's
// HTML view with live notes, gzip-encoded: the notes asked of the crawl
// log and the audit, and the part's copy with those notes served as it is
// kept (it was gunzipped, spliced and served uncompressed per request).
// Compare with BenchmarkHTMLServeCached (no notes) and
// BenchmarkServeCached (the page's .xml.gz).
func BenchmarkHTMLServeNotes(b *testing.B) {
	sm, c := htmlNotesBench(b)
	r := mustRequest("/sitemap-1.html", "Accept-Encoding", "gzip")
	serveLoop(b, sm, r, &discard{h: http.Header{}}, int64(len(c.gz)), http.StatusOK)
}

// BenchmarkHTMLServeNotesLoopback serves the same over loopback HTTP,
// beside BenchmarkHTMLServeNotesLoopbackBaseline, a handler that writes
// the same bytes from memory in one write (the ceiling).
func BenchmarkHTMLServeNotesLoopback(b *testing.B) {
	sm, c := htmlNotesBench(b)
	loopbackBench(b, sm, "/sitemap-1.html", int64(len(c.gz)), "Accept-Encoding", "gzip")
}

func BenchmarkHTMLServeNotesLoopbackBaseline(b *testing.B) {
	_, c := htmlNotesBench(b)
	loopbackBench(b, writeBytes(c.gz, c.etagGzip[0], "text/html; charset=utf-8"), "/sitemap-1.html", int64(len(c.gz)), "Accept-Encoding", "gzip")
}
