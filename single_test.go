package sitemap

import (
	"context"
	"errors"
	"iter"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/freshmap/sitemap/internal/testkit"
	"github.com/freshmap/sitemap/internal/xsdcheck"
)

// TestSingleFile: with SingleFile, the index's name (and sitemap.xml)
// serves one <urlset> of every section's URLs, each section by its own
// extensions, valid by the schemas; robots.txt names it; its HTML view
// lists its URLs; an Invalidate rebuilds it.
func TestSingleFile(t *testing.T) {
	var extra atomic.Bool
	pages := FromSeq(func(yield func(URL) bool) {
		yield(URL{Loc: "https://example.com/"})
		if extra.Load() {
			yield(URL{Loc: "https://example.com/new"})
		}
	}, 10)
	products := FromSlice([]URL{
		{Loc: "https://example.com/p/1", Images: []Image{{Loc: "https://example.com/1.jpg"}}},
		{Loc: "https://example.com/p/2", Alternates: []Alternate{{Hreflang: "de", Href: "https://example.com/de/p/2"}}},
	}, 100)
	sm := newTestSitemap(t, Config{SingleFile: true, HTML: true},
		Section{Name: "pages", Source: pages, Extensions: ExtNone}, Section{Name: "products", Source: products, Extensions: ExtImage})
	h := sm.Handler(http.NotFoundHandler())
	w := get(h, "/sitemap_index.xml")
	body := w.Body.String()
	if w.Code != http.StatusOK || !strings.Contains(body, `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image=`) ||
		strings.Contains(body, "xmlns:xhtml") || strings.Contains(body, "<sitemapindex") || strings.Count(body, "<url>") != 3 ||
		!strings.Contains(body, "<image:loc>https://example.com/1.jpg</image:loc>") || strings.Contains(body, "xhtml:link") {
		t.Fatalf("%d\n%s", w.Code, body)
	}
	if xsdcheck.Available() {
		xsdcheck.URLSet(t, w.Body.Bytes())
	}
	if root := get(h, "/sitemap.xml"); root.Body.String() != body || root.Header().Get("Etag") != w.Header().Get("Etag") {
		t.Errorf("sitemap.xml: %d", root.Code)
	}
	if robots := get(h, "/robots.txt").Body.String(); strings.Count(robots, "Sitemap: ") != 1 || !strings.Contains(robots, "Sitemap: https://example.com/sitemap_index.xml\n") {
		t.Errorf("robots.txt:\n%s", robots)
	}
	view := get(h, "/sitemap_index.html").Body.String()
	if rows := htmlRows(view); len(rows) != 3 || !strings.Contains(rows[2][1], "/p/2") || !strings.Contains(view, "Sitemap file sitemap_index.xml") {
		t.Errorf("the HTML view: %q\n%s", rows, view)
	}
	extra.Store(true)
	if err := sm.Invalidate("pages", 1); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		return strings.Contains(get(h, "/sitemap_index.xml").Body.String(), "https://example.com/new")
	})
	if w := get(h, "/sitemap-products-1.xml"); w.Code != http.StatusOK {
		t.Errorf("a page file at its own name: %d", w.Code)
	}
}

// growing is a Source of n URLs in pages of size, n read at each call.
type growing struct {
	n    *atomic.Int64
	size int64
}

func (g growing) PageSize() int { return int(g.size) }

func (g growing) Pages(ctx context.Context) iter.Seq2[PageInfo, error] {
	return func(yield func(PageInfo, error) bool) {
		for p := int64(1); (p-1)*g.size < g.n.Load(); p++ {
			if !yield(PageInfo{Number: p, Version: strconv.FormatInt(g.n.Load(), 10)}, nil) {
				return
			}
		}
	}
}

func (g growing) URLs(ctx context.Context, page int64) iter.Seq2[URL, error] {
	return func(yield func(URL, error) bool) {
		for i := (page-1)*g.size + 1; i <= min(page*g.size, g.n.Load()); i++ {
			if !yield(URL{Loc: "https://example.com/p/" + strconv.FormatInt(i, 10)}, nil) {
				return
			}
		}
	}
}

// TestSingleFileGrows: a site that grows past one file (a second page)
// gets an index of its files at the same name, which lists files that
// are served, with a warning; once it fits again, one file again.
func TestSingleFileGrows(t *testing.T) {
	var n atomic.Int64
	n.Store(3)
	logs := &testkit.SyncBuffer{}
	sm := newTestSitemap(t, Config{SingleFile: true, Logger: slog.New(slog.NewTextHandler(logs, nil))}, Section{Source: growing{n: &n, size: 3}})
	if body := get(sm, "/sitemap_index.xml").Body.String(); strings.Count(body, "<url>") != 3 {
		t.Fatalf("3 URLs:\n%s", body)
	}
	n.Store(4)
	sm.InvalidateAll()
	var body string
	waitFor(t, func() bool {
		body = get(sm, "/sitemap_index.xml").Body.String()
		return strings.Contains(body, "<sitemapindex")
	})
	if !strings.Contains(body, "<loc>https://example.com/sitemap-2.xml.gz</loc>") || strings.Count(body, "<sitemap>") != 2 {
		t.Fatalf("4 URLs:\n%s", body)
	}
	for _, p := range []string{"/sitemap-1.xml", "/sitemap-2.xml"} {
		if w := get(sm, p); w.Code != http.StatusOK {
			t.Errorf("GET %s: %d", p, w.Code)
		}
	}
	if !strings.Contains(logs.String(), "does not fit one file") {
		t.Errorf("no warning logged:\n%s", logs)
	}
	n.Store(2)
	sm.InvalidateAll()
	waitFor(t, func() bool {
		body = get(sm, "/sitemap_index.xml").Body.String()
		return strings.Contains(body, "<urlset") && strings.Count(body, "<url>") == 2
	})
}

// TestSingleFileBytes: URLs past the byte limit of one file mean the site
// outgrew it, with Strict too: an index of files, not a file cut short.
func TestSingleFileBytes(t *testing.T) {
	for _, strict := range []bool{false, true} {
		var n atomic.Int64
		n.Store(20)
		sm := newTestSitemap(t, Config{SingleFile: true, Strict: strict}, Section{Source: growing{n: &n, size: 50}})
		sm.site.singleMax = 800 // about 15 URLs
		body := get(sm, "/sitemap_index.xml").Body.String()
		if !strings.Contains(body, "<sitemapindex") || !strings.Contains(body, "sitemap-1.xml.gz") {
			t.Errorf("strict %v: %s", strict, body)
		}
		if w := get(sm, "/sitemap-1.xml"); w.Code != http.StatusOK || strings.Count(w.Body.String(), "<url>") != 20 {
			t.Errorf("strict %v: the file: %d", strict, w.Code)
		}
	}
}

// TestSingleFileChecked: New refuses sections that cannot fit one file.
func TestSingleFileChecked(t *testing.T) {
	a := FromSlice([]URL{{Loc: "https://example.com/a"}}, 0) // a page size of 50,000
	b := FromSlice([]URL{{Loc: "https://example.com/b"}}, 10)
	for name, secs := range map[string][]Section{
		"two of 50,000": {{Name: "a", Source: a}, {Name: "b", Source: b}},
		"over by one":   {{Name: "a", Source: FromSlice(nil, MaxURLs-9)}, {Name: "b", Source: b}},
		"a Latest file": {{Name: "b", Source: b}, {Name: "news", Source: newRecent(), Latest: true, Extensions: ExtNews}},
	} {
		_, err := New(Config{BaseURL: "https://example.com", SingleFile: true}, secs...)
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "SingleFile") {
			t.Errorf("%s: %v", name, err)
		}
	}
	sm, err := New(Config{BaseURL: "https://example.com", SingleFile: true}, Section{Name: "a", Source: FromSlice(nil, MaxURLs-10)}, Section{Name: "b", Source: b})
	if err != nil {
		t.Fatal(err)
	}
	sm.Close()
}
