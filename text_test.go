package sitemap

import (
	"net/http"
	"strings"
	"testing"

	"github.com/freshmap/sitemap/internal/testkit"
)

// TestText serves a page's plain-text form: the locations the XML holds,
// one a line, unescaped, made from the cached XML without a Source read,
// with validators of its own and the page's Last-Modified.
func TestText(t *testing.T) {
	src := FromSlice([]URL{
		{Loc: "https://example.com/a?x=1&y='2'"},
		{Loc: "HTTPS://EXAMPLE.COM/ümlat"},
		{Loc: "https://example.org/elsewhere"}, // rejected: not in the XML, not in the text
		{Loc: "https://example.com/b", Images: []Image{{Loc: "https://example.com/i.jpg", Caption: "two\n<url><loc>https://example.com/fake</loc>"}}},
	}, 0)
	sm := newTestSitemap(t, Config{}, Section{Name: "p", Source: src})
	xml := get(sm, "/sitemap-p-1.xml")
	reads := sm.Stats().Builds
	w := get(sm, "/sitemap-p-1.txt")
	want := "https://example.com/a?x=1&y='2'\nhttps://example.com/%C3%BCmlat\nhttps://example.com/b\n"
	if w.Code != 200 || w.Body.String() != want {
		t.Fatalf("text: %d\n%q\nwant\n%q", w.Code, w.Body.String(), want)
	}
	if ct := w.Header().Get("Content-Type"); ct != "text/plain; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if w.Header().Get("Etag") == "" || w.Header().Get("Etag") == xml.Header().Get("Etag") {
		t.Errorf("text ETag %q, XML ETag %q", w.Header().Get("Etag"), xml.Header().Get("Etag"))
	}
	if w.Header().Get("Last-Modified") != xml.Header().Get("Last-Modified") {
		t.Errorf("text Last-Modified %q, the page's %q", w.Header().Get("Last-Modified"), xml.Header().Get("Last-Modified"))
	}
	if sm.Stats().Builds != reads {
		t.Error("the text form read the Source")
	}
	gz := get(sm, "/sitemap-p-1.txt", "Accept-Encoding", "gzip")
	if gz.Header().Get("Content-Encoding") != "gzip" || string(testkit.Gunzip(t, gz.Body.Bytes())) != want || gz.Header().Get("Vary") != "Accept-Encoding" {
		t.Errorf("gzip-encoded text: %v", gz.Header())
	}
	if w := get(sm, "/sitemap-p-1.txt", "If-None-Match", w.Header().Get("Etag")); w.Code != http.StatusNotModified {
		t.Errorf("If-None-Match on the text: %d", w.Code)
	}
	if n, b := sm.docs.cache.Usage(); n != 2 || b != int64(len(mustEntry(t, sm, pageKey(0, 1)).gz)+len(mustEntry(t, sm, pageKey(0, 1)).text.Load().gz))+mustEntry(t, sm, indexKey).cost() {
		t.Errorf("cache usage %d entries, %d bytes: the text is not counted", n, b)
	}
	for _, p := range []string{"/sitemap-p-2.txt", "/sitemap_index.txt", "/sitemap-p-1.txt.gz", "/sitemap-p-01.txt"} {
		if w := get(sm, p); w.Code != http.StatusNotFound {
			t.Errorf("%s = %d, want 404", p, w.Code)
		}
	}
}

func mustEntry(t *testing.T, sm *Sitemap, k docKey) *entry {
	t.Helper()
	e, ok := cachedEntry(sm, k)
	if !ok {
		t.Fatalf("%v not cached", k)
	}
	return e
}

// TestTextLongLines: an entry longer than the reader's buffer (many
// images) is skipped over correctly, and the next entry is found.
func TestTextLongLines(t *testing.T) {
	imgs := make([]Image, 1000)
	for i := range imgs {
		imgs[i] = Image{Loc: "https://cdn.example.com/" + strings.Repeat("x", 100) + ".jpg"}
	}
	sm := newTestSitemap(t, Config{}, Section{Source: FromSlice([]URL{
		{Loc: "https://example.com/1", Images: imgs},
		{Loc: "https://example.com/2", Images: imgs},
		{Loc: "https://example.com/3"},
	}, 0)})
	if got := get(sm, "/sitemap-1.txt").Body.String(); got != "https://example.com/1\nhttps://example.com/2\nhttps://example.com/3\n" {
		t.Errorf("text:\n%q", got)
	}
}
