package sitemap

import (
	"encoding/xml"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
	"github.com/freshmap/sitemap/internal/xmlenc"
	"github.com/freshmap/sitemap/internal/xsdcheck"
)

// latestNow is the build time of the Latest tests.
var latestNow = time.Date(2025, 3, 4, 12, 0, 0, 0, time.UTC)

// articles are n news articles, the newest first, a minute apart, the
// first published at latestNow less skip minutes.
func articles(n, skip int) []URL {
	urls := make([]URL, n)
	for i := range urls {
		at := latestNow.Add(-time.Duration(skip+i) * time.Minute)
		urls[i] = URL{Loc: fmt.Sprintf("%snews/%d", testBase, skip+i), LastMod: at,
			News: &News{PublicationName: "The Example Times", Language: "en", PublicationDate: at, Title: fmt.Sprintf("Article %d", skip+i)}}
	}
	return urls
}

// newsSitemap serves src as a Latest news section "news".
func newsSitemap(t *testing.T, src Source, cfg Config) *Sitemap {
	t.Helper()
	if cfg.Now == nil {
		cfg.Now = func() time.Time { return latestNow }
	}
	return newTestSitemap(t, cfg, Section{Name: "news", Source: src, Extensions: ExtNews, Latest: true})
}

// urlsetLocs returns the locs of doc, a <urlset>, failing t if it does not
// parse.
func urlsetLocs(t *testing.T, doc string) []string {
	t.Helper()
	var set struct {
		XMLName xml.Name `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 urlset"`
		Locs    []string `xml:"url>loc"`
	}
	if err := xml.Unmarshal([]byte(doc), &set); err != nil {
		t.Fatalf("not a <urlset>: %v\n%s", err, doc)
	}
	return set.Locs
}

// indexLocs returns the locs the index of h lists.
func indexLocs(t *testing.T, h http.Handler) []string {
	t.Helper()
	w := get(h, "/sitemap_index.xml")
	if w.Code != http.StatusOK {
		t.Fatalf("index: %d", w.Code)
	}
	var idx struct {
		Locs []string `xml:"sitemap>loc"`
	}
	if err := xml.Unmarshal(w.Body.Bytes(), &idx); err != nil {
		t.Fatal(err)
	}
	return idx.Locs
}

// TestLatestEmptyListed (latest.go, rules 1 and 3): with no article, the
// news file is 200, an empty <urlset> declaring the news namespace, with
// validators and 304s as any file; and the index lists it. A paged
// section with the same Source is 404 and leaves no index (404).
func TestLatestEmptyListed(t *testing.T) {
	empty := &recentSource{fakeSource: newFake(0, 10)} // no page, no recent URL
	clk := testkit.NewClock(time.Now())
	sm := newTestSitemap(t, Config{Now: clk.Now}, Section{Name: "news", Source: empty, Extensions: ExtNews, Latest: true})
	clk.Add(floorAhead)
	if got, want := indexLocs(t, sm), []string{"https://example.com/sitemap-news-1.xml.gz"}; !slices.Equal(got, want) {
		t.Errorf("index lists %q, want %q", got, want)
	}
	w := get(sm, "/sitemap-news-1.xml")
	want := xmlenc.XMLHeader + `<urlset xmlns="` + xmlenc.NSSitemap + `" xmlns:news="` + xmlenc.NSNews + `">` + "\n" + xmlenc.URLSetEnd
	if w.Code != http.StatusOK || w.Body.String() != want {
		t.Fatalf("empty news file: %d\n%s\nwant 200\n%s", w.Code, w.Body, want)
	}
	if locs := urlsetLocs(t, w.Body.String()); len(locs) != 0 {
		t.Errorf("locs %q", locs)
	}
	etag, lm := w.Header().Get("Etag"), w.Header().Get("Last-Modified")
	if etag == "" || lm == "" {
		t.Errorf("no validators: ETag %q, Last-Modified %q", etag, lm)
	}
	if w := get(sm, "/sitemap-news-1.xml", "If-None-Match", etag); w.Code != http.StatusNotModified {
		t.Errorf("If-None-Match: %d, want 304", w.Code)
	}
	gz := get(sm, "/sitemap-news-1.xml.gz")
	if gz.Code != http.StatusOK || gz.Header().Get("Content-Type") != "application/gzip" {
		t.Errorf(".xml.gz: %d %q", gz.Code, gz.Header().Get("Content-Type"))
	}

	paged := newTestSitemap(t, Config{}, Section{Name: "news", Source: empty, Extensions: ExtNews})
	for _, path := range []string{"/sitemap-news-1.xml", "/sitemap_index.xml"} {
		if w := get(paged, path); w.Code != http.StatusNotFound {
			t.Errorf("paged, empty: %s is %d, want 404", path, w.Code)
		}
	}
}

// TestLatestOnePage (rule 1): page 2 of a Latest section is 404, however
// many articles there are, and its Source's Pages is not read.
func TestLatestOnePage(t *testing.T) {
	src := newRecent(articles(1500, 0)...)
	sm := newsSitemap(t, src, Config{})
	for path, want := range map[string]int{"/sitemap-news-1.xml.gz": 200, "/sitemap-news-2.xml.gz": 404, "/sitemap-news-0.xml.gz": 404} {
		if w := get(sm, path); w.Code != want {
			t.Errorf("%s: %d, want %d", path, w.Code, want)
		}
	}
	if n := src.pageCalls.Load(); n != 0 {
		t.Errorf("the Source's Pages was read %d times", n)
	}
}

// TestLatestNewest (rule 2): of 1,500 articles, the news file holds the
// newest 1,000, newest first, from one Recent call asking for 1,000.
func TestLatestNewest(t *testing.T) {
	all := articles(1500, 0)
	src := newRecent(all...)
	sm := newsSitemap(t, src, Config{NewsAnyAge: true})
	w := get(sm, "/sitemap-news-1.xml")
	locs := urlsetLocs(t, w.Body.String())
	if len(locs) != 1000 {
		t.Fatalf("%d URLs, want 1000", len(locs))
	}
	for i, loc := range locs {
		if loc != all[i].Loc {
			t.Fatalf("URL %d is %s, want %s", i, loc, all[i].Loc)
		}
	}
	if n := src.calls.Load(); n != 1 {
		t.Errorf("%d Recent calls, want 1", n)
	}
}

// TestLatestStableName (rules 2 and 5): as articles arrive, the file keeps
// its name, the index lists that name alone, and an Invalidate naming any
// page of the section (sqlsource's Watch gives the page of the row, 57
// here) rebuilds it: the new article is in it, under a new ETag and a
// later Last-Modified.
func TestLatestStableName(t *testing.T) {
	clk := testkit.NewClock(latestNow)
	src := newRecent(articles(1000, 3)...)
	sm := newTestSitemap(t, Config{Now: clk.Now}, Section{Name: "news", Source: src, Extensions: ExtNews, Latest: true})
	first := get(sm, "/sitemap-news-1.xml")
	want := []string{"https://example.com/sitemap-news-1.xml.gz"}
	if got := indexLocs(t, sm); !slices.Equal(got, want) {
		t.Fatalf("index lists %q, want %q", got, want)
	}
	for i := 2; i >= 0; i-- { // three articles arrive, one at a time (each rebuild at most once a second)
		clk.Add(2 * time.Second)
		src.set(articles(1000, i), nil)
		if err := sm.Invalidate("news", 57); err != nil {
			t.Fatal(err)
		}
		sm.docs.wg.Wait()
		w := get(sm, "/sitemap-news-1.xml")
		if locs := urlsetLocs(t, w.Body.String()); len(locs) != 1000 || locs[0] != fmt.Sprintf("%snews/%d", testBase, i) {
			t.Fatalf("after article %d arrived: %d URLs, the first %q", i, len(locs), locs[:1])
		}
		if got := indexLocs(t, sm); !slices.Equal(got, want) {
			t.Fatalf("after article %d arrived, the index lists %q", i, got)
		}
	}
	w := get(sm, "/sitemap-news-1.xml", "If-None-Match", first.Header().Get("Etag"))
	if w.Code != http.StatusOK || w.Header().Get("Etag") == first.Header().Get("Etag") {
		t.Errorf("the old ETag: %d, ETag %s", w.Code, w.Header().Get("Etag"))
	}
	was, _ := http.ParseTime(first.Header().Get("Last-Modified"))
	if lm, _ := http.ParseTime(w.Header().Get("Last-Modified")); !lm.After(was) {
		t.Errorf("Last-Modified %v, not after %v", lm, was)
	}
}

// TestLatestAgedOutQuiet (rule 4): the newest articles include some older
// than two days; they are left out with no report, and the file holds the
// others. With NewsAnyAge they are written.
func TestLatestAgedOutQuiet(t *testing.T) {
	all := articles(10, 48*60-5) // five within two days, five older
	var mu sync.Mutex
	var rejected []string
	onReject := func(_ string, _ int64, loc string, _ error) { mu.Lock(); rejected = append(rejected, loc); mu.Unlock() }
	sm := newTestSitemap(t, Config{Now: func() time.Time { return latestNow }, OnReject: onReject},
		Section{Name: "news", Source: newRecent(all...), Extensions: ExtNews, Latest: true})
	if locs := urlsetLocs(t, get(sm, "/sitemap-news-1.xml").Body.String()); len(locs) != 6 { // 5 minutes ago to exactly two days
		t.Errorf("%d URLs, want 6: %q", len(locs), locs)
	}
	mu.Lock()
	if len(rejected) != 0 {
		t.Errorf("reported %q", rejected)
	}
	mu.Unlock()
	any := newTestSitemap(t, Config{Now: func() time.Time { return latestNow }, NewsAnyAge: true},
		Section{Name: "news", Source: newRecent(all...), Extensions: ExtNews, Latest: true})
	if locs := urlsetLocs(t, get(any, "/sitemap-news-1.xml").Body.String()); len(locs) != 10 {
		t.Errorf("NewsAnyAge: %d URLs, want 10", len(locs))
	}
}

// TestLatestConfig: Latest needs a RecentLister; its page size is the
// section's (1,000 for news), not its Source's pages'.
func TestLatestConfig(t *testing.T) {
	_, err := New(Config{BaseURL: "https://example.com"}, Section{Name: "news", Source: newFake(3, 10), Latest: true})
	if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "RecentLister") {
		t.Errorf("a Source without Recent: %v", err)
	}
	sized := struct {
		*recentSource
		PageSizer
	}{newRecent(), sizeOf(10_000)}
	sm := newTestSitemap(t, Config{}, Section{Name: "news", Source: sized, Extensions: ExtNews, Latest: true})
	if got := sm.site.sections[0].pageSize; got != 1000 {
		t.Errorf("page size %d, want 1000", got)
	}
}

type sizeOf int

func (n sizeOf) PageSize() int { return int(n) }

// TestLatestEmptySchema documents the one exception to the sitemap
// schema (latest.go, rule 3): the empty news file fails validation
// against urlset-all.xsd, and only because <urlset> has no <url>; the
// same file with one article validates.
func TestLatestEmptySchema(t *testing.T) {
	if !xsdcheck.Available() {
		xsdcheck.URLSet(t, nil) // reports the missing tool, or fails under SITEMAP_REQUIRE_SERVICES
		return
	}
	empty := newsSitemap(t, newRecent(), Config{})
	rec := &errorRecorder{TB: t}
	xsdcheck.URLSet(rec, get(empty, "/sitemap-news-1.xml").Body.Bytes())
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "Missing child element(s)") || !strings.Contains(rec.errs[0], "{"+xmlenc.NSSitemap+"}url )") {
		t.Errorf("the empty file's validation: %q, want one error: the missing <url>", rec.errs)
	}
	one := newsSitemap(t, newRecent(articles(1, 0)...), Config{})
	xsdcheck.URLSet(t, get(one, "/sitemap-news-1.xml").Body.Bytes())
}

// errorRecorder is a testing.TB that keeps what Errorf reports instead
// of failing the test.
type errorRecorder struct {
	testing.TB
	errs []string
}

func (r *errorRecorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// TestLatestInvalidate (rule 5): Invalidate with no page, or any page,
// rebuilds the one file; a paged section ignores a page it does not have.
func TestLatestInvalidate(t *testing.T) {
	src := newRecent(articles(3, 0)...)
	clk := testkit.NewClock(latestNow)
	sm := newTestSitemap(t, Config{Now: clk.Now}, Section{Name: "news", Source: src, Extensions: ExtNews, Latest: true})
	get(sm, "/sitemap_index.xml")
	get(sm, "/sitemap-news-1.xml")
	for _, pages := range [][]int64{nil, {1}, {4, 9}} {
		calls := src.calls.Load()
		clk.Add(2 * time.Second)
		if err := sm.Invalidate("news", pages...); err != nil {
			t.Fatal(err)
		}
		sm.docs.wg.Wait()
		if got := src.calls.Load() - calls; got != 1 {
			t.Errorf("Invalidate(%v): %d Recent calls, want 1", pages, got)
		}
	}
}
