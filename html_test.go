package sitemap

import (
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/htmlview"
	"github.com/freshmap/sitemap/internal/readback"
	"github.com/freshmap/sitemap/internal/testkit"
)

// htmlTestSitemap serves a products section of 3 URLs (2 a page) with
// images, alternates and a video, and a news section, with Config.HTML on.
func htmlTestSitemap(t *testing.T, cfg Config) (*Sitemap, *fakeCounter) {
	at := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	products := &fakeCounter{Source: FromSlice([]URL{
		{Loc: "https://example.com/p/1?a=1&b=2", LastMod: at,
			Images:     []Image{{Loc: "https://example.com/i/1.jpg", Caption: "A dog & a <cat>"}, {Loc: "https://example.com/i/2.jpg"}},
			Alternates: []Alternate{{Hreflang: "en", Href: "https://example.com/p/1?a=1&b=2"}, {Hreflang: "de", Href: "https://example.com/de/p/1"}},
			Videos: []Video{{ThumbnailLoc: "https://example.com/t.jpg", Title: "Grilling <steaks>", Description: "d",
				ContentLoc: "https://example.com/v.mp4", Duration: 90 * time.Second}}},
		{Loc: "https://example.com/p/2", LastMod: at.Add(time.Hour)},
		{Loc: "https://example.com/p/3"},
	}, 2)}
	news := FromSlice([]URL{{Loc: "https://example.com/n/1", News: &News{PublicationName: "The Times", Language: "en",
		PublicationDate: at, Title: "Merger \"talks\""}}}, 10)
	cfg.HTML, cfg.NewsAnyAge = true, true
	clk := testkit.NewClock(at.Add(24 * time.Hour))
	if cfg.Now == nil {
		cfg.Now = clk.Now
	}
	sm := newTestSitemap(t, cfg, Section{Name: "products", Source: products},
		Section{Name: "news", Source: news, Extensions: ExtNews})
	clk.Add(floorAhead) // past the floor of the start: the files have a Last-Modified
	return sm, products
}

// fakeCounter counts a Source's page reads.
type fakeCounter struct {
	Source
	reads int
}

func (f *fakeCounter) URLs(ctx context.Context, page int64) iter.Seq2[URL, error] {
	f.reads++
	return f.Source.URLs(ctx, page)
}

var (
	htmlRowRE  = regexp.MustCompile(`(?s)<tr><td>\d+</td>.*?</tr>`)
	htmlCellRE = regexp.MustCompile(`(?s)<t[dh][^>]*>(.*?)</t[dh]>`)
)

// htmlRows returns the table rows of an HTML view, each as its cells.
func htmlRows(body string) [][]string {
	var rows [][]string
	for _, r := range htmlRowRE.FindAllString(body, -1) {
		var cells []string
		for _, c := range htmlCellRE.FindAllStringSubmatch(r, -1) {
			cells = append(cells, c[1])
		}
		rows = append(rows, cells)
	}
	return rows
}

// TestHTMLPage serves a page's HTML view: made from the cached XML with
// no Source read, escaped, with the page's Last-Modified, its own ETag,
// 304s, noindex, and every fact of its URLs.
func TestHTMLPage(t *testing.T) {
	sm, products := htmlTestSitemap(t, Config{})
	xml := get(sm, "/sitemap-products-1.xml")
	reads := products.reads
	w := get(sm, "/sitemap-products-1.html")
	if w.Code != 200 || w.Header().Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("%d %v\n%s", w.Code, w.Header(), w.Body)
	}
	if products.reads != reads {
		t.Error("the HTML view read the Source")
	}
	h := w.Header()
	if h.Get("X-Robots-Tag") != "noindex" || !strings.HasPrefix(h.Get("Content-Security-Policy"), "default-src 'none'") || h.Get("Last-Modified") != xml.Header().Get("Last-Modified") ||
		h.Get("Etag") == "" || h.Get("Etag") == xml.Header().Get("Etag") {
		t.Errorf("headers %v, the XML's %v", h, xml.Header())
	}
	body := w.Body.String()
	for _, want := range []string{
		`<html lang="en">`, `<title>Sitemap file sitemap-products-1.xml.gz</title>`, `<th scope="col">URL</th>`,
		`<th scope="row"><a href="https://example.com/p/1?a=1&amp;b=2">https://example.com/p/1?a=1&amp;b=2</a></th>`,
		`<a href="https://example.com/i/1.jpg">A dog &amp; a &lt;cat&gt;</a>`,
		`<a href="https://example.com/de/p/1" hreflang="de">de</a>`,
		`Video: <a href="https://example.com/v.mp4">Grilling &lt;steaks&gt;</a>, 90 s`,
		`<time datetime="2025-06-01T12:00:00Z">2025-06-01T12:00:00Z</time>`,
		`<a href="sitemap-products-1.xml.gz">`, `<a href="sitemap_index.html">`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("no %s in\n%s", want, body)
		}
	}
	if strings.Contains(body, "<script") || strings.Contains(body, "<cat>") || strings.Contains(body, `rel="next"`) {
		t.Errorf("a script, unescaped text or a part link:\n%s", body)
	}
	if rows := htmlRows(body); len(rows) != 2 || len(rows[0]) != 6 || !strings.Contains(rows[1][1], "/p/2") {
		t.Errorf("rows %q", rows)
	}
	news := get(sm, "/sitemap-news-1.html").Body.String()
	if !strings.Contains(news, "News: <cite>Merger &quot;talks&quot;</cite>, The Times (en), <time") {
		t.Errorf("no news facts:\n%s", news)
	}
	for hdr, v := range map[string]string{"If-None-Match": h.Get("Etag"), "If-Modified-Since": h.Get("Last-Modified")} {
		if w := get(sm, "/sitemap-products-1.html", hdr, v); w.Code != http.StatusNotModified {
			t.Errorf("%s: %d, want 304", hdr, w.Code)
		}
	}
	gz := get(sm, "/sitemap-products-1.html", "Accept-Encoding", "gzip")
	if gz.Header().Get("Content-Encoding") != "gzip" || string(testkit.Gunzip(t, gz.Body.Bytes())) != body {
		t.Errorf("gzip-encoded view: %v", gz.Header())
	}
	e := mustEntry(t, sm, pageKey(0, 1))
	if e.html.Load() == nil || e.cost() != int64(len(e.gz))+htmlCost(e.html.Load()) {
		t.Error("the view is not counted in the cache")
	}
	if products.reads != reads {
		t.Errorf("%d Source reads for the view and its 304s", products.reads-reads)
	}
}

// TestHTMLIndex serves the index's view: each file with its section, URL
// count (once built here), lastmod and links.
func TestHTMLIndex(t *testing.T) {
	sm, products := htmlTestSitemap(t, Config{})
	get(sm, "/sitemap-products-1.xml.gz")
	reads := products.reads
	w := get(sm, "/sitemap_index.html")
	if w.Code != 200 || products.reads != reads {
		t.Fatalf("%d, %d reads\n%s", w.Code, products.reads-reads, w.Body)
	}
	rows := htmlRows(w.Body.String())
	if len(rows) != 3 {
		t.Fatalf("rows %q", rows)
	}
	want := [][]string{
		{"1", `<a href="sitemap-products-1.html">sitemap-products-1.xml.gz</a>`, "products", "2"},
		{"2", `<a href="sitemap-products-2.html">sitemap-products-2.xml.gz</a>`, "products", ""},
		{"3", `<a href="sitemap-news-1.html">sitemap-news-1.xml.gz</a>`, "news", ""},
	}
	for i, r := range want {
		for j, c := range r {
			if rows[i][j] != c {
				t.Errorf("row %d cell %d = %q, want %q", i+1, j+1, rows[i][j], c)
			}
		}
		if !strings.Contains(rows[i][5], `<a href="https://example.com/sitemap-`) || i == 0 && !strings.Contains(rows[i][4], "<time") {
			t.Errorf("row %d: %q", i+1, rows[i])
		}
	}
	if w := get(sm, "/sitemap_index.html", "If-None-Match", w.Header().Get("Etag")); w.Code != http.StatusNotModified {
		t.Errorf("If-None-Match: %d", w.Code)
	}
	if strings.Contains(get(sm, "/sitemap_index.xml").Body.String(), ".html") {
		t.Error("the XML index lists an HTML view")
	}
}

// TestHTMLRoutes: only the canonical names of existing parts are served,
// and nothing with Config.HTML off.
func TestHTMLRoutes(t *testing.T) {
	sm, _ := htmlTestSitemap(t, Config{})
	for path, want := range map[string]int{
		"/sitemap-products-1.html":        200,
		"/sitemap-products-2.html":        200,
		"/sitemap_index.html":             200,
		"/sitemap-products-3.html":        404, // no such page
		"/sitemap-products-1.part2.html":  404, // one part only
		"/sitemap-products-1.part1.html":  404, // the first part has no number
		"/sitemap-products-1.part02.html": 404,
		"/sitemap-products-01.html":       404,
		"/sitemap_index.part2.html":       404,
		"/sitemap_index-2.html":           404,
		"/sitemap-products.html":          404,
		"/sitemap-products-1.xml.html":    404,
		"/sitemap-news.html":              404,
	} {
		if w := get(sm, path); w.Code != want {
			t.Errorf("%s = %d, want %d", path, w.Code, want)
		}
	}
	off := newTestSitemap(t, Config{}, Section{Name: "products", Source: newFake(3, 2)})
	app := off.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) }))
	if w := get(app, "/sitemap-products-1.html"); w.Code != http.StatusTeapot {
		t.Errorf("HTML off: %d, want the application's answer", w.Code)
	}
	on := sm.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) }))
	if w := get(on, "/sitemap-products-1.html"); w.Code != 200 {
		t.Errorf("HTML on, through the middleware: %d", w.Code)
	}
	if w := do(sm, http.MethodPost, "/sitemap-products-1.html"); w.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", w.Code)
	}
}

// TestHTMLIndexable sends no noindex with Config.HTMLIndexable, on the
// view only.
func TestHTMLIndexable(t *testing.T) {
	sm, _ := htmlTestSitemap(t, Config{HTMLIndexable: true})
	if h := get(sm, "/sitemap-products-1.html").Header(); h.Get("X-Robots-Tag") != "" {
		t.Errorf("X-Robots-Tag %q on an indexable view", h.Get("X-Robots-Tag"))
	}
	if h := get(sm, "/sitemap-products-1.xml").Header(); h.Get("X-Robots-Tag") != "noindex" {
		t.Error("the XML lost its noindex")
	}
}

// TestHTMLParts cuts a 50,000-URL page into parts under 2 MB, linked
// in order, which together hold every URL once, with no Source read.
func TestHTMLParts(t *testing.T) {
	urls := make([]URL, 50_000)
	for i := range urls {
		// Long locations, so that parts are cut by size, not rows.
		urls[i] = URL{Loc: "https://example.com/" + strings.Repeat("x", 300) + "/" + strconv.Itoa(i) + "?a=1&b=2"}
	}
	src := &fakeCounter{Source: FromSlice(urls, 0)}
	sm := newTestSitemap(t, Config{HTML: true}, Section{Source: src})
	get(sm, "/sitemap-1.xml.gz")
	seen, parts := 0, 0
	for path := "/sitemap-1.html"; path != ""; parts++ {
		w := get(sm, path)
		body := w.Body.String()
		if w.Code != 200 || len(body) > htmlview.MaxPart {
			t.Fatalf("%s: %d, %d bytes", path, w.Code, len(body))
		}
		first := regexp.MustCompile(`<tr><td>(\d+)</td>`).FindStringSubmatch(body)
		if first == nil || first[1] != strconv.Itoa(seen+1) {
			t.Fatalf("%s starts at row %q, want %d", path, first, seen+1)
		}
		seen += strings.Count(body, "<tr><td>")
		prev := regexp.MustCompile(`<link rel="prev" href="([^"]+)">`).FindStringSubmatch(body)
		if (parts == 0) != (prev == nil) || prev != nil && "/"+prev[1] != htmlPartPath(parts) {
			t.Errorf("%s: prev %q", path, prev)
		}
		path = ""
		if m := regexp.MustCompile(`<a rel="next" href="([^"]+)">`).FindStringSubmatch(body); m != nil {
			path = "/" + m[1]
		}
	}
	if seen != 50_000 || parts < 8 {
		t.Errorf("%d rows in %d parts, want 50,000 in at least 8", seen, parts)
	}
	t.Logf("50,000 URLs of %d bytes: %d parts", len("https://example.com/")+300+10, parts)
	if src.reads != 1 {
		t.Errorf("%d Source reads, want the XML's 1", src.reads)
	}
	if w := get(sm, htmlPartPath(parts+1)); w.Code != 404 {
		t.Errorf("the part after the last: %d", w.Code)
	}
}

func htmlPartPath(n int) string { return "/" + htmlPartName("sitemap-1", n) }

// notesFunc is an htmlNoter of a function.
type notesFunc func(k docKey) []string

func (f notesFunc) htmlNotes(k docKey) []string { return f(k) }

// TestHTMLNotes splices what a noter says (the crawl log's and the
// audit's hook) into a part, escaped, bounded, validated by an ETag that
// names them and with no Last-Modified.
func TestHTMLNotes(t *testing.T) {
	clk := testkit.NewClock(time.Date(2025, 6, 2, 12, 0, 0, 0, time.UTC))
	sm, _ := htmlTestSitemap(t, Config{Now: clk.Now})
	clk.Add(floorAhead) // past the floor of the start: the files have a Last-Modified
	plain := get(sm, "/sitemap-products-1.html")
	clk.Add(time.Second) // the notes are asked once a second
	note := "Googlebot fetched this file 2 h ago: 304 <b>"
	sm.notes = htmlNoteList{notesFunc(func(k docKey) []string {
		if k == pageKey(0, 1) {
			return []string{note, strings.Repeat("<", htmlview.NotesMax/3)}
		}
		return nil
	})}
	w := get(sm, "/sitemap-products-1.html")
	body := w.Body.String()
	if !strings.Contains(body, "<li>Googlebot fetched this file 2 h ago: 304 &lt;b&gt;</li>") || strings.Contains(body, "&lt;&lt;") ||
		strings.Contains(body, htmlview.NotesMarker) {
		t.Errorf("notes:\n%s", body)
	}
	if len(body) > len(plain.Body.String())+htmlview.NotesMax+64 {
		t.Errorf("%d bytes of notes", len(body)-len(plain.Body.String()))
	}
	h := w.Header()
	if h.Get("Last-Modified") != "" || h.Get("Etag") == plain.Header().Get("Etag") || h.Get("X-Robots-Tag") != "noindex" {
		t.Errorf("headers %v", h)
	}
	if w := get(sm, "/sitemap-products-1.html", "If-None-Match", h.Get("Etag")); w.Code != http.StatusNotModified {
		t.Errorf("If-None-Match: %d", w.Code)
	}
	if w := get(sm, "/sitemap-products-2.html"); w.Header().Get("Etag") == "" || w.Header().Get("Last-Modified") == "" {
		t.Errorf("a file without notes: %v", w.Header())
	}
}

// TestHTMLTakesBuildSlot: making a view takes a build slot (MaxBuilds),
// and a client that leaves while it waits for one makes nothing.
func TestHTMLTakesBuildSlot(t *testing.T) {
	sm, _ := htmlTestSitemap(t, Config{MaxBuilds: 1})
	get(sm, "/sitemap-products-1.xml.gz")
	if err := sm.docs.slots.acquire(t.Context(), pageKey(1, 1), false); err != nil { // the one slot, taken
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	w := httptest.NewRecorder()
	sm.ServeHTTP(w, httptest.NewRequestWithContext(ctx, http.MethodGet, "/sitemap-products-1.html", nil))
	if w.Body.Len() != 0 || mustEntry(t, sm, pageKey(0, 1)).html.Load() != nil { // the client left: no answer
		t.Errorf("a view made without a build slot: %d %s", w.Code, w.Body)
	}
	sm.docs.slots.release()
	if w := get(sm, "/sitemap-products-1.html"); w.Code != http.StatusOK {
		t.Errorf("with the slot free: %d", w.Code)
	}
}

// TestHTMLRepeated: 100,000 requests for parts that do not exist, or for
// the one that does, make one view, and leave the cache and the
// goroutines as they were.
func TestHTMLRepeated(t *testing.T) {
	sm, _ := htmlTestSitemap(t, Config{})
	get(sm, "/sitemap-products-1.html")
	entries, bytes := sm.docs.cache.Usage()
	before := runtime.NumGoroutine()
	v := mustEntry(t, sm, pageKey(0, 1)).html.Load()
	for i := range 100_000 {
		path := "/sitemap-products-1.part" + strconv.Itoa(2+i) + ".html"
		if i%2 == 0 {
			path = "/sitemap-products-1.html"
		}
		if w := get(sm, path); w.Code != http.StatusOK && w.Code != http.StatusNotFound {
			t.Fatalf("%s: %d", path, w.Code)
		}
	}
	// The part, asked for plain often, has a plain copy now, once.
	if e, b := sm.docs.cache.Usage(); e != entries || b != bytes+v.parts[0].bare.ownCopy() || mustEntry(t, sm, pageKey(0, 1)).html.Load() != v {
		t.Errorf("cache %d entries, %d bytes, want %d, %d and the same view", e, b, entries, bytes+v.parts[0].bare.ownCopy())
	}
	waitGoroutines(t, before)
}

// TestHTMLReadBack reads every <url> of the golden files with eachURL:
// as many as encoding/xml finds, and htmlview.ReadURL (by hand where it can) reads them as
// encoding/xml reads them. A caption that holds a line break and what
// looks like a <url> stays in its element.
func TestHTMLReadBack(t *testing.T) {
	golden, _ := filepath.Glob("testdata/*.golden")
	caption := encodeURLs(t, URL{Loc: "https://example.com/b", Images: []Image{{Loc: "https://example.com/i.jpg",
		Caption: "two\n<url><loc>https://example.com/fake</loc></url>\n"}}}, URL{Loc: "https://example.com/c?a=1&b='2'"})
	long := URL{Loc: "https://example.com/long"} // a line longer than eachURL's 64 KiB buffer
	for i := range 300 {
		long.Images = append(long.Images, Image{Loc: "https://example.com/" + strings.Repeat("i", 300) + strconv.Itoa(i)})
	}
	longDoc := encodeURLs(t, URL{Loc: "https://example.com/a"}, long, URL{Loc: "https://example.com/z"})
	docs := map[string][]byte{"caption": caption.doc, "long": longDoc.doc}
	for _, g := range golden {
		b, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		docs[g] = b
	}
	for name, doc := range docs {
		if !bytes.Contains(doc, []byte("<urlset")) {
			continue
		}
		gz, _, err := compress(1, func(w io.Writer) error { _, err := w.Write(doc); return err })
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		err = readback.EachURL(gz, func(elem []byte) error {
			n++
			var want, got htmlview.URL
			if err := xml.Unmarshal(elem, &want); err != nil {
				return err
			}
			if err := htmlview.ReadURL(elem, &got); err != nil {
				return err
			}
			if got.Loc != want.Loc || got.LastMod != want.LastMod || len(got.Images) != len(want.Images) ||
				len(got.Alternates) != len(want.Alternates) || len(got.Videos) != len(want.Videos) || (got.News == nil) != (want.News == nil) {
				t.Errorf("%s: ReadURL read %+v, encoding/xml %+v", name, got, want)
			}
			return nil
		})
		if want := decodeAll(t, doc); err != nil || n != want {
			t.Errorf("%s: %d elements, want %d: %v", name, n, want, err)
		}
		t.Logf("%s: %d <url>", name, n)
	}
}

// TestHTMLWithoutClock: a copy that loses its Last-Modified (built alone,
// or from before the Store's era) loses the view made under it, whose
// parts carry that Last-Modified.
func TestHTMLWithoutClock(t *testing.T) {
	sm, _ := htmlTestSitemap(t, Config{})
	if w := get(sm, "/sitemap-products-1.html"); w.Header().Get("Last-Modified") == "" {
		t.Fatal("no Last-Modified")
	}
	e := mustEntry(t, sm, pageKey(0, 1))
	if e.html.Load() == nil || e.renewed(e.built).html.Load() == nil || e.withoutClock().html.Load() != nil {
		t.Error("the view is not kept by renewed, or kept without its clock")
	}
}

// TestHTMLNotesCrawlAndAudit: the HTML view of a file says which crawler
// fetched it last and what it got, and what the last self-audit found.
func TestHTMLNotesCrawlAndAudit(t *testing.T) {
	clk := testkit.NewClock(time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC))
	sm := newTestSitemap(t, Config{HTML: true, Now: clk.Now, Audit: &Audit{Share: 1}, Crawlers: Crawlers{Files: 10}},
		Section{Source: FromSlice([]URL{{Loc: "https://example.com/"}, {Loc: "https://example.com/gone"}}, 0)})
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/gone" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`<!doctype html><title>home</title>`))
	})
	h := sm.Handler(app)
	r := httptest.NewRequest(http.MethodGet, "/sitemap-1.xml.gz", nil)
	r.Header.Set("User-Agent", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)")
	h.ServeHTTP(httptest.NewRecorder(), r)
	waitFor(t, func() bool { return len(sm.Audit().Files) == 1 })
	clk.Add(2 * time.Hour)

	w := testkit.Fetch(h, "/sitemap-1.html")
	if w.Code != http.StatusOK {
		t.Fatalf("GET /sitemap-1.html: %d", w.Code)
	}
	body := w.Body.String()
	for _, want := range []string{
		"Googlebot (claimed, not verified by address) fetched this file 2 h ago: 200",
		"Self-audit: 2 URLs checked: 1 status",
		"status: https://example.com/gone (404)",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the HTML view does not say %q", want)
		}
	}
	if w.Header().Get("Last-Modified") != "" {
		t.Error("a view with live notes has a Last-Modified: the notes change without the file")
	}
}
