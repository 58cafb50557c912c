package sitemap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
	"github.com/freshmap/sitemap/internal/xmlenc"
	"github.com/freshmap/sitemap/internal/xsdcheck"
)

func TestIndexErrors(t *testing.T) {
	src := newFake(10, 10)
	src.pagesErr = errors.New("aggregate failed")
	sm := newTestSitemap(t, Config{}, Section{Source: src})
	if w := get(sm, "/sitemap_index.xml"); w.Code != 503 {
		t.Errorf("failing Pages = %d", w.Code)
	}
	empty := newTestSitemap(t, Config{}, Section{Source: FromSlice(nil, 0)})
	if w := get(empty, "/sitemap_index.xml"); w.Code != 404 {
		t.Errorf("empty catalogue index = %d, want 404 (an empty index is not valid)", w.Code)
	}
	disorder := newTestSitemap(t, Config{}, Section{Source: SourceFunc{
		PagesFunc: func(context.Context) iter.Seq2[PageInfo, error] {
			return func(yield func(PageInfo, error) bool) {
				_ = yield(PageInfo{Number: 2}, nil) && yield(PageInfo{Number: 1}, nil)
			}
		},
		URLsFunc: func(context.Context, int64) iter.Seq2[URL, error] { return func(func(URL, error) bool) {} },
	}})
	if w := get(disorder, "/sitemap_index.xml"); w.Code != 503 {
		t.Errorf("pages out of order = %d", w.Code)
	}
}

// pagesSource is a Source of the given pages, each holding one URL.
func pagesSource(infos func(n int64) (PageInfo, bool)) Source {
	return SourceFunc{
		PagesFunc: func(context.Context) iter.Seq2[PageInfo, error] {
			return func(yield func(PageInfo, error) bool) {
				for n := int64(1); ; n++ {
					info, ok := infos(n)
					if !ok || !yield(info, nil) {
						return
					}
				}
			}
		},
		URLsFunc: func(_ context.Context, n int64) iter.Seq2[URL, error] {
			return func(yield func(URL, error) bool) { yield(URL{Loc: fmt.Sprintf("https://example.com/%d", n)}, nil) }
		},
	}
}

// TestIndexFiles serves an index of more pages than one index file may
// list: the first 50,000 are in sitemap_index.xml, the rest in
// sitemap_index-2.xml, each with its own validators and clock, and
// robots.txt names both.
func TestIndexFiles(t *testing.T) {
	const pages = MaxURLs + 3
	clk := testkit.NewClock(time.Date(2025, 2, 3, 4, 5, 6, 0, time.UTC))
	sm := newTestSitemap(t, Config{Now: clk.Now}, Section{Name: "big", Source: pagesSource(func(n int64) (PageInfo, bool) {
		info := PageInfo{Number: n}
		if n%2 == 1 {
			info.LastMod = time.Date(2024, 1, 1, 0, 0, int(n-1), 0, time.UTC)
		}
		return info, n <= pages
	})})
	clk.Add(floorAhead)
	w := get(sm, "/sitemap_index.xml")
	doc := w.Body.Bytes()
	if !bytes.HasPrefix(doc, []byte(xmlenc.IndexStart+"<sitemap><loc>https://example.com/sitemap-big-1.xml.gz</loc><lastmod>2024-01-01T00:00:00Z</lastmod></sitemap>\n"+
		"<sitemap><loc>https://example.com/sitemap-big-2.xml.gz</loc></sitemap>\n")) { // no lastmod known: none
		t.Errorf("index starts %.300q", doc)
	}
	if n := decodeAll(t, doc); n != MaxURLs {
		t.Errorf("the first index file lists %d pages, want %d", n, MaxURLs)
	}
	xsdcheck.Index(t, doc)
	w2 := get(sm, "/sitemap_index-2.xml")
	if w2.Code != 200 || decodeAll(t, w2.Body.Bytes()) != 3 || !strings.Contains(w2.Body.String(), fmt.Sprintf("sitemap-big-%d.xml.gz", pages)) {
		t.Errorf("second index file: %d\n%s", w2.Code, w2.Body)
	}
	xsdcheck.Index(t, w2.Body.Bytes())
	for _, r := range []*httptest.ResponseRecorder{w, w2} {
		if r.Header().Get("Etag") == "" || r.Header().Get("Last-Modified") == "" {
			t.Errorf("an index file without validators: %v", r.Header())
		}
	}
	if w.Header().Get("Etag") == w2.Header().Get("Etag") {
		t.Error("two index files share an ETag")
	}
	if w := get(sm, "/sitemap_index-2.xml", "If-None-Match", w2.Header().Get("Etag")); w.Code != http.StatusNotModified {
		t.Errorf("If-None-Match on the second index file: %d", w.Code)
	}
	for _, p := range []string{"/sitemap_index-3.xml", "/sitemap_index-1.xml", "/sitemap_index-02.xml", "/sitemap_index-2.xml.gz"} {
		if w := get(sm, p); w.Code != 404 {
			t.Errorf("%s = %d, want 404", p, w.Code)
		}
	}
	robots := get(sm, "/robots.txt").Body.String()
	if !strings.Contains(robots, "Sitemap: https://example.com/sitemap_index.xml\nSitemap: https://example.com/sitemap_index-2.xml\n") {
		t.Errorf("robots.txt does not name both index files:\n%s", robots)
	}
	if w := get(sm, fmt.Sprintf("/sitemap-big-%d.xml.gz", pages)); w.Code != 200 {
		t.Errorf("a page of the second index file = %d", w.Code)
	}
}

// TestIndexBillions: 3,000,000,000 URLs make 60,000 pages, listed by two
// index files, without reading a URL; the last page is served.
func TestIndexBillions(t *testing.T) {
	const total = 3_000_000_000
	var reads atomic.Int64
	src := FromRange(func(context.Context) (int64, error) { return total, nil },
		func(_ context.Context, lo, hi int64) iter.Seq2[URL, error] {
			reads.Add(1)
			return func(yield func(URL, error) bool) {
				for i := lo; i < hi; i++ {
					if !yield(URL{Loc: "https://example.com/item/" + strconv.FormatInt(i, 10)}, nil) {
						return
					}
				}
			}
		}, 0)
	sm := newTestSitemap(t, Config{}, Section{Name: "items", Source: src})
	if n := decodeAll(t, get(sm, "/sitemap_index.xml").Body.Bytes()); n != MaxURLs {
		t.Errorf("first index file: %d pages", n)
	}
	second := get(sm, "/sitemap_index-2.xml").Body.Bytes()
	if n := decodeAll(t, second); n != 10_000 {
		t.Errorf("second index file: %d pages, want 10,000", n)
	}
	if !bytes.Contains(second, []byte("<loc>https://example.com/sitemap-items-60000.xml.gz</loc>")) || reads.Load() != 0 {
		t.Errorf("the last page is not listed, or URLs were read (%d reads)", reads.Load())
	}
	w := get(sm, "/sitemap-items-60000.xml")
	if w.Code != 200 || !strings.Contains(w.Body.String(), "<loc>https://example.com/item/2999999999</loc>") || reads.Load() != 1 {
		t.Errorf("the last page: %d, %d reads", w.Code, reads.Load())
	}
}

// TestIndexLastModOutOfRange: a page lastmod that cannot be written is
// ignored (and logged), the page stays listed, undated.
func TestIndexLastModOutOfRange(t *testing.T) {
	var logs bytes.Buffer
	now := func() time.Time { return time.Date(2025, 2, 3, 4, 5, 6, 0, time.UTC) }
	sm := newTestSitemap(t, Config{Now: now, Logger: slog.New(slog.NewTextHandler(&logs, nil))}, Section{Source: pagesSource(func(n int64) (PageInfo, bool) {
		return PageInfo{Number: n, LastMod: day(10000, 1, 1)}, n == 1
	})})
	w := get(sm, "/sitemap_index.xml")
	if want := "<sitemap><loc>https://example.com/sitemap-1.xml.gz</loc></sitemap>"; !strings.Contains(w.Body.String(), want) {
		t.Errorf("index:\n%s\nwant %s", w.Body, want)
	}
	if !strings.Contains(logs.String(), "lastmod out of range") {
		t.Error("not logged")
	}
}

// TestListXML: with Config.ListXML the index lists the .xml files, for
// clients that do not unzip; each is served, plain to such a client and
// gzip-encoded to one that accepts it.
func TestListXML(t *testing.T) {
	sm := newTestSitemap(t, Config{ListXML: true}, Section{Name: "p", Source: newFake(25, 10)})
	idx := get(sm, "/sitemap_index.xml").Body.String()
	if strings.Contains(idx, ".xml.gz") || strings.Count(idx, "<loc>https://example.com/sitemap-p-") != 3 {
		t.Fatalf("index:\n%s", idx)
	}
	for n := 1; n <= 3; n++ {
		loc := fmt.Sprintf("https://example.com/sitemap-p-%d.xml", n)
		if !strings.Contains(idx, "<loc>"+loc+"</loc>") {
			t.Errorf("%s not listed", loc)
		}
		path := strings.TrimPrefix(loc, "https://example.com")
		plain := get(sm, path)
		if plain.Code != 200 || plain.Header().Get("Content-Encoding") != "" || !strings.Contains(plain.Body.String(), "<urlset") {
			t.Errorf("%s without Accept-Encoding: %d %q", path, plain.Code, plain.Header().Get("Content-Encoding"))
		}
		if gz := get(sm, path, "Accept-Encoding", "gzip"); gz.Header().Get("Content-Encoding") != "gzip" || !bytes.Equal(testkit.Gunzip(t, gz.Body.Bytes()), plain.Body.Bytes()) {
			t.Errorf("%s with Accept-Encoding: gzip is not the same XML gzip-encoded", path)
		}
	}
	xsdcheck.Index(t, []byte(idx))
}
