package sitemap

import (
	"context"
	"iter"
	"net/http"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/htmlview"
	"github.com/freshmap/sitemap/internal/testkit"
)

// TestHTMLNotesKept: a part's copy with notes is made once per change of
// its notes and kept, counted in the cache's budget: the same notes give
// the same entry (no gzip, no gunzip per request), with an ETag over the
// part and notes that validates a 304, and other notes a new one. The
// notes are asked once a second at most.
func TestHTMLNotesKept(t *testing.T) {
	clk := testkit.NewClock(time.Date(2025, 6, 2, 12, 0, 0, 0, time.UTC))
	sm, _ := htmlTestSitemap(t, Config{Now: clk.Now})
	bare := get(sm, "/sitemap-products-1.html")
	note := "Self-audit: 2 URLs checked, nothing found"
	var asked atomic.Int64
	sm.notes = htmlNoteList{notesFunc(func(k docKey) []string { asked.Add(1); return []string{note} })}
	if get(sm, "/sitemap-products-1.html").Body.String() != bare.Body.String() {
		t.Error("notes asked twice in one second")
	}
	clk.Add(time.Second)
	first := get(sm, "/sitemap-products-1.html", "Accept-Encoding", "gzip")
	e := mustEntry(t, sm, pageKey(0, 1))
	c := e.html.Load().part(1).noted.Load()
	if c == nil {
		t.Fatal("no copy with notes kept")
	}
	if _, bytes := sm.docs.cache.Usage(); bytes != sumCost(sm) || e.cost() != int64(len(e.gz))+htmlCost(e.html.Load()) ||
		htmlCost(e.html.Load()) != int64(len(e.html.Load().part(1).bare.gz)+len(c.e.gz)) {
		t.Errorf("cache bytes %d, the entry's cost %d", bytes, e.cost())
	}
	body := string(testkit.Gunzip(t, first.Body.Bytes()))
	if !strings.Contains(body, "<li>"+note+"</li>") || first.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("%v\n%s", first.Header(), body)
	}
	if plain := get(sm, "/sitemap-products-1.html").Body.String(); plain != body {
		t.Error("the plain copy with notes differs from the gzip-encoded one")
	}
	if strings.Replace(body, "<ul class=\"notes\">\n<li>"+note+"</li>\n</ul>\n", "", 1) != bare.Body.String() {
		t.Errorf("the notes changed more than their list:\n%s\n----\n%s", body, bare.Body)
	}
	allocs := testing.AllocsPerRun(20, func() { get(sm, "/sitemap-products-1.html", "Accept-Encoding", "gzip") })
	if sm.docs.cache.Usage(); e.html.Load().part(1).noted.Load() != c {
		t.Error("the same notes made the copy again")
	}
	etag := first.Header().Get("Etag")
	if w := get(sm, "/sitemap-products-1.html", "Accept-Encoding", "gzip", "If-None-Match", etag); w.Code != http.StatusNotModified {
		t.Errorf("If-None-Match of the copy with notes: %d", w.Code)
	}
	t.Logf("%v allocations a request with notes kept", allocs)

	for range plainHot + 1 { // hot: a plain copy of the part with notes, counted with the page
		get(sm, "/sitemap-products-1.html")
	}
	if c.e.plain.Load() == nil || cacheCopies(sm) != e.copyCost() || e.copyCost() != int64(len(c.e.plain.Load().xml)) {
		t.Errorf("plain copy %v, copies %d, the entry's %d", c.e.plain.Load() != nil, cacheCopies(sm), e.copyCost())
	}

	if n := asked.Load(); n != 1 {
		t.Errorf("the notes were asked %d times in one second", n)
	}
	note = "Googlebot fetched this file 5 min ago: 200"
	clk.Add(time.Second)
	w := get(sm, "/sitemap-products-1.html", "Accept-Encoding", "gzip", "If-None-Match", etag)
	if w.Code != http.StatusOK || w.Header().Get("Etag") == etag || !strings.Contains(string(testkit.Gunzip(t, w.Body.Bytes())), note) {
		t.Errorf("other notes: %d %v", w.Code, w.Header())
	}
	if _, bytes := sm.docs.cache.Usage(); bytes != sumCost(sm) {
		t.Errorf("cache bytes %d after the notes changed, the entries' cost %d", bytes, sumCost(sm))
	}
	if cacheCopies(sm) != 0 || e.copyCost() != 0 {
		t.Errorf("the old notes' plain copy is still counted: %d, %d", cacheCopies(sm), e.copyCost())
	}
}

// TestHTMLIndexCountsAtOnce: a file's URL count shows in the index's
// HTML view as soon as the file is built, not at the next index build;
// and the XML link opens the .xml, not the .xml.gz (which downloads).
func TestHTMLIndexCountsAtOnce(t *testing.T) {
	sm, _ := htmlTestSitemap(t, Config{})
	rows := htmlRows(get(sm, "/sitemap_index.html").Body.String())
	if len(rows) != 3 || rows[0][3] != "" {
		t.Fatalf("before any page build: %q", rows)
	}
	idx := mustEntry(t, sm, indexKey)
	get(sm, "/sitemap-products-1.xml.gz")
	rows = htmlRows(get(sm, "/sitemap_index.html").Body.String())
	if rows[0][3] != "2" || rows[1][3] != "" {
		t.Errorf("after page 1's build: %q", rows)
	}
	if !strings.Contains(rows[0][5], `href="https://example.com/sitemap-products-1.xml"`) {
		t.Errorf("XML link %q", rows[0][5])
	}
	if mustEntry(t, sm, indexKey) != idx {
		t.Error("the index was rebuilt")
	}
	v := idx.html.Load()
	get(sm, "/sitemap_index.html")
	if idx.html.Load() != v {
		t.Error("the view was made again with no count changed")
	}
	if _, bytes := sm.docs.cache.Usage(); bytes != sumCost(sm) {
		t.Errorf("cache bytes %d, the entries' cost %d", bytes, sumCost(sm))
	}
}

// sumCost is the cost of every cached entry of sm.
func sumCost(sm *Sitemap) int64 {
	var n int64
	for _, k := range sm.docs.cache.Keys() {
		if sl, ok := sm.docs.cache.Peek(k); ok {
			n += sl.e.cost()
		}
	}
	return n
}

var htmlDateRE = regexp.MustCompile(`listed in the index with lastmod <time datetime="([^"]+)"`)

// TestHTMLDatesAgree: the HTML index and a file's view give the file the
// same date, the <lastmod> the index lists, in a first process and after
// a restart, with and without a clock file (without one, the file's
// Last-Modified after a restart is the process's start, and the view
// showed that while the index showed the Source's lastmod).
func TestHTMLDatesAgree(t *testing.T) {
	for _, durable := range []bool{false, true} {
		clk := testkit.NewClock(time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC))
		cfg := Config{BaseURL: "https://example.com", HTML: true, Now: clk.Now}
		if durable {
			cfg.ClockFile = filepath.Join(t.TempDir(), "clocks")
		}
		src := FromSlice([]URL{{Loc: "https://example.com/a", LastMod: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)}}, 0)
		for run := range 2 {
			sm, err := New(cfg, Section{Source: src})
			if err != nil {
				t.Fatal(err)
			}
			get(sm, "/sitemap-1.xml.gz")
			idx := htmlRows(get(sm, "/sitemap_index.html").Body.String())
			page := htmlDateRE.FindStringSubmatch(get(sm, "/sitemap-1.html").Body.String())
			if len(idx) != 1 || page == nil || !strings.Contains(idx[0][4], `datetime="`+page[1]+`"`) {
				t.Errorf("clock file %v, run %d: the index says %q, the file's view %q", durable, run, idx, page)
			}
			sm.Close()
			clk.Add(time.Hour)
		}
	}
}

// TestHTMLIndexCountsLarge: an index's view of more than one part is made
// again for a new count at most once a second.
func TestHTMLIndexCountsLarge(t *testing.T) {
	clk := testkit.NewClock(time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC))
	n := int64(htmlview.PartRows + 1)
	src := FromRange(func(context.Context) (int64, error) { return n, nil }, func(ctx context.Context, lo, hi int64) iter.Seq2[URL, error] {
		return func(yield func(URL, error) bool) {
			for i := lo; i < hi; i++ {
				if !yield(URL{Loc: "https://example.com/p/" + strconv.FormatInt(i, 10)}, nil) {
					return
				}
			}
		}
	}, 1)
	sm := newTestSitemap(t, Config{HTML: true, Now: clk.Now}, Section{Source: src})
	count := func() string { return htmlRows(get(sm, "/sitemap_index.html").Body.String())[0][3] }
	if c := count(); c != "" {
		t.Fatalf("before any page build: %q", c)
	}
	if w := get(sm, "/sitemap_index.part2.html"); w.Code != http.StatusOK {
		t.Fatalf("part 2: %d", w.Code)
	}
	get(sm, "/sitemap-1.xml.gz")
	if c := count(); c != "" {
		t.Errorf("made again within the second: %q", c)
	}
	clk.Add(time.Second)
	if c := count(); c != "1" {
		t.Errorf("a second later: %q, want 1", c)
	}
}

// cacheCopies is the bytes of plain copies sm's cache counts.
func cacheCopies(sm *Sitemap) int64 {
	_, _, copies, _ := sm.docs.cache.Budget()
	return copies
}
