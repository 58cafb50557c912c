package sitemap

import (
	"bytes"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/freshmap/sitemap/internal/htmlview"
	"github.com/freshmap/sitemap/internal/testkit"
	"github.com/freshmap/sitemap/internal/xmlenc"
	"github.com/freshmap/sitemap/internal/xsdcheck"
)

const testInstruction = `<?xml-stylesheet type="text/xsl" href="/shop/sitemap.xsl"?>` + "\n"

// With Config.Stylesheet, sitemap.xsl is served at the base path by the
// middleware and by the bare handler, with a strong ETag and 304s; without
// it, the path is the application's.
func TestStylesheetServed(t *testing.T) {
	sm := newTestSitemap(t, Config{BaseURL: inBase, Stylesheet: true, CacheControl: "public, max-age=60"}, Section{Source: newFake(1, 1)})
	var seen []string
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.URL.Path)
		http.NotFound(w, r)
	})
	const path = "/shop/sitemap.xsl"
	for name, srv := range map[string]http.Handler{"middleware": sm.Handler(app), "handler": sm} {
		w := get(srv, path)
		h := w.Header()
		etag := h.Get("Etag")
		if w.Code != 200 || w.Body.String() != htmlview.Stylesheet || h.Get("Content-Type") != "text/xsl; charset=utf-8" ||
			!strings.HasPrefix(etag, `"`) || !strings.HasSuffix(etag, `"`) || h.Get("Cache-Control") != "public, max-age=60" {
			t.Errorf("%s: GET %d %v", name, w.Code, h)
		}
		if w := do(srv, http.MethodHead, path); w.Code != 200 || w.Body.Len() != 0 || w.Header().Get("Etag") != etag {
			t.Errorf("%s: HEAD %d %q", name, w.Code, w.Body.String())
		}
		if w := get(srv, path, "If-None-Match", etag); w.Code != http.StatusNotModified {
			t.Errorf("%s: If-None-Match: %d", name, w.Code)
		}
		if w := do(srv, http.MethodPost, path); w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != "GET, HEAD" {
			t.Errorf("%s: POST %d", name, w.Code)
		}
	}
	if len(seen) != 0 {
		t.Errorf("the application saw %q", seen)
	}

	off := newTestSitemap(t, Config{BaseURL: inBase}, Section{Source: newFake(1, 1)})
	if w := get(off, path); w.Code != 404 {
		t.Errorf("without Stylesheet, the handler: %d", w.Code)
	}
	if w := get(off.Handler(app), path); w.Code != 404 || len(seen) != 1 {
		t.Errorf("without Stylesheet, the middleware: %d, application saw %q", w.Code, seen)
	}
}

// Every index and sitemap file names the stylesheet right after the XML
// declaration, and stays valid; without the setting, none does.
func TestStylesheetInstruction(t *testing.T) {
	for _, on := range []bool{true, false} {
		src := FromSlice([]URL{{Loc: inBase + "a"}, {Loc: inBase + "b"}, {Loc: inBase + "c"}}, 2)
		sm := newTestSitemap(t, Config{BaseURL: inBase, Stylesheet: on}, Section{Name: "p", Source: src})
		head := xmlenc.XMLHeader
		if on {
			head += testInstruction
		}
		idx := get(sm, "/shop/sitemap_index.xml").Body.Bytes()
		page := testkit.Gunzip(t, get(sm, "/shop/sitemap-p-2.xml.gz").Body.Bytes())
		if !bytes.HasPrefix(idx, []byte(head+xmlenc.IndexRoot)) {
			t.Errorf("stylesheet %v: index starts %.120q", on, idx)
		}
		if !bytes.HasPrefix(page, []byte(head+`<urlset `)) {
			t.Errorf("stylesheet %v: page starts %.120q", on, page)
		}
		xsdcheck.Index(t, idx)
		xsdcheck.URLSet(t, page)
		if txt := get(sm, "/shop/sitemap-p-2.txt").Body.String(); strings.Count(txt, "\n") != 1 {
			t.Errorf("stylesheet %v: text form %q, want one URL", on, txt)
		}
	}
}

// The instruction counts toward a file's byte limit.
func TestStylesheetBytes(t *testing.T) {
	long := strings.Repeat("x", 100) // an entry longer than the instruction
	src := listSource(URL{Loc: testBase + "a" + long}, URL{Loc: testBase + "b" + long})
	whole := encodeSpec(t, src, pageSpec{base: testBase})
	if whole.err != nil || whole.st.urls != 2 {
		t.Fatalf("without: %v, %d URLs", whole.err, whole.st.urls)
	}
	pi := htmlview.StylesheetInstruction("/" + htmlview.StylesheetName)
	r := encodeSpec(t, src, pageSpec{base: testBase, maxBytes: int64(len(whole.doc)), stylesheet: pi})
	if r.err != nil || r.st.urls != 1 || len(r.doc) > len(whole.doc) || !bytes.HasPrefix(r.doc, []byte(xmlenc.XMLHeader+pi)) {
		t.Errorf("with the instruction: %v, %d URLs, %d bytes (limit %d)", r.err, r.st.urls, len(r.doc), len(whole.doc))
	}
	if len(r.rejected) != 1 || !errors.Is(r.rejected[0].err, ErrPageFull) {
		t.Errorf("rejected %v, want b with ErrPageFull", r.rejected)
	}
}
