package sitemap

import (
	"context"
	"encoding/xml"
	"errors"
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

var _ RecentLister = (*recentSource)(nil)

// recentSource is a fakeSource that also lists recent URLs: urls as they
// are (the Source's order), at most n, or err.
type recentSource struct {
	*fakeSource
	mu    sync.Mutex
	urls  []URL
	err   error
	calls atomic.Int64
	// block, if set, is waited on by every Recent call before it yields.
	block chan struct{}
}

func (r *recentSource) set(urls []URL, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.urls, r.err = urls, err
}

func (r *recentSource) Recent(ctx context.Context, n int) iter.Seq2[URL, error] {
	return func(yield func(URL, error) bool) {
		r.calls.Add(1)
		if r.block != nil {
			<-r.block
		}
		r.mu.Lock()
		urls, err := r.urls, r.err
		r.mu.Unlock()
		if err != nil {
			yield(URL{}, err)
			return
		}
		for i, u := range urls {
			if i == n || !yield(u, nil) {
				return
			}
		}
	}
}

var feedT0 = time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)

// recentURLs are n URLs, the newest first, a minute apart.
func recentURLs(n int) []URL {
	urls := make([]URL, n)
	for i := range urls {
		urls[i] = URL{Loc: "https://example.com/p/" + string(rune('a'+i%26)) + "?i=" + strings.Repeat("x", i) + "&k='1'",
			LastMod: feedT0.Add(-time.Duration(i) * time.Minute)}
	}
	return urls
}

func newRecent(urls ...URL) *recentSource {
	return &recentSource{fakeSource: newFake(10, 10), urls: urls}
}

// atomFeed is an Atom feed as RFC 4287 defines it, for checking.
type atomFeed struct {
	XMLName xml.Name   `xml:"http://www.w3.org/2005/Atom feed"`
	ID      string     `xml:"http://www.w3.org/2005/Atom id"`
	Title   string     `xml:"http://www.w3.org/2005/Atom title"`
	Updated string     `xml:"http://www.w3.org/2005/Atom updated"`
	Links   []atomLink `xml:"http://www.w3.org/2005/Atom link"`
	Authors []string   `xml:"http://www.w3.org/2005/Atom author>name"`
	Entries []struct {
		ID      string     `xml:"http://www.w3.org/2005/Atom id"`
		Title   string     `xml:"http://www.w3.org/2005/Atom title"`
		Updated string     `xml:"http://www.w3.org/2005/Atom updated"`
		Links   []atomLink `xml:"http://www.w3.org/2005/Atom link"`
	} `xml:"http://www.w3.org/2005/Atom entry"`
}

type atomLink struct {
	Rel  string `xml:"rel,attr"`
	Type string `xml:"type,attr"`
	Href string `xml:"href,attr"`
}

// checkAtom parses doc and checks the rules of RFC 4287 that a feed of
// ours must keep, and that it is the feed at selfURL; it returns the feed.
func checkAtom(t *testing.T, doc []byte, selfURL string) atomFeed {
	t.Helper()
	var f atomFeed
	if err := xml.Unmarshal(doc, &f); err != nil {
		t.Fatalf("feed does not parse: %v\n%s", err, doc)
	}
	updated := func(what, s string) time.Time {
		t.Helper()
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Errorf("%s updated %q is not RFC 3339: %v", what, s, err)
		}
		return tm
	}
	// §4.1.1: a feed has exactly one id, title and updated; an author
	// unless every entry has one; a self link (recommended).
	if f.ID != selfURL || f.Title == "" || len(f.Authors) != 1 || f.Authors[0] == "" {
		t.Errorf("feed id %q, title %q, authors %q; want id %q, a title and an author", f.ID, f.Title, f.Authors, selfURL)
	}
	feedUpdated := updated("feed", f.Updated)
	var self int
	for _, l := range f.Links {
		if l.Rel == "self" {
			self++
			if l.Href != selfURL || l.Type != "application/atom+xml" {
				t.Errorf("self link %+v, want href %q", l, selfURL)
			}
		}
	}
	if self != 1 {
		t.Errorf("%d self links, want 1", self)
	}
	seen := map[string]bool{}
	var prev time.Time
	for i, e := range f.Entries {
		// §4.1.2: id, title, updated; with no content, an alternate link.
		if e.ID == "" || e.Title == "" || seen[e.ID] {
			t.Errorf("entry %d: id %q (seen before: %v), title %q", i, e.ID, seen[e.ID], e.Title)
		}
		seen[e.ID] = true
		if len(e.Links) != 1 || e.Links[0].Href != e.ID || (e.Links[0].Rel != "" && e.Links[0].Rel != "alternate") {
			t.Errorf("entry %d: links %+v, want one alternate link to %q", i, e.Links, e.ID)
		}
		u := updated("entry", e.Updated)
		if i > 0 && u.After(prev) {
			t.Errorf("entry %d updated %v after the entry before it (%v): not newest first", i, u, prev)
		}
		if u.After(feedUpdated) {
			t.Errorf("entry %d updated %v after the feed's %v", i, u, feedUpdated)
		}
		prev = u
	}
	return f
}

// TestFeedRoutes: the feed names, and 404 for every other .atom path.
func TestFeedRoutes(t *testing.T) {
	named := newTestSitemap(t, Config{FeedEntries: 10},
		Section{Name: "products", Source: newRecent(recentURLs(3)...)},
		Section{Name: "pages", Source: newFake(3, 10)}) // no RecentLister: no feed
	unnamed := newTestSitemap(t, Config{FeedEntries: 10}, Section{Source: newRecent(recentURLs(3)...)})
	off := newTestSitemap(t, Config{}, Section{Name: "products", Source: newRecent(recentURLs(3)...)})
	for _, c := range []struct {
		sm   *Sitemap
		path string
		want int
	}{
		{named, "/sitemap-products.atom", 200},
		{named, "/sitemap-pages.atom", 404},
		{named, "/sitemap-nope.atom", 404},
		{named, "/sitemap-products-1.atom", 404},
		{named, "/sitemap-.atom", 404},
		{named, "/sitemap.atom", 404},
		{named, "/sitemap-products.atom.gz", 404},
		{unnamed, "/sitemap.atom", 200},
		{unnamed, "/sitemap-.atom", 404},
		{unnamed, "/sitemap-1.atom", 404},
		{off, "/sitemap-products.atom", 404},
	} {
		h := c.sm.Handler(http.NotFoundHandler())
		if w := get(h, c.path); w.Code != c.want {
			t.Errorf("%s: status %d, want %d", c.path, w.Code, c.want)
		}
	}
	if w := do(named, http.MethodPost, "/sitemap-products.atom"); w.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST: status %d, want 405", w.Code)
	}
}

// TestFeedDocument: the feed keeps RFC 4287's rules; entries are the
// canonical URLs, escaped, newest first whatever the Source's order,
// each once; URLs the sitemap refuses or without LastMod are reported.
func TestFeedDocument(t *testing.T) {
	urls := recentURLs(5)
	urls[1], urls[3] = urls[3], urls[1] // a Source out of order
	urls = append(urls,
		URL{Loc: "https://example.com/no-lastmod"},
		URL{Loc: "https://other.example/p", LastMod: feedT0},
		URL{Loc: "HTTPS://EXAMPLE.com/b\u00fccher", LastMod: feedT0.Add(-time.Hour), News: &News{Title: "News <&> \"t\""}},
		urls[0], // twice
	)
	var mu sync.Mutex
	var rejected []string
	clk := testkit.NewClock(time.Now())
	sm := newTestSitemap(t, Config{FeedEntries: 100, FeedAuthor: "Shop & Co", Now: clk.Now,
		OnReject: func(sec string, page int64, loc string, err error) {
			mu.Lock()
			defer mu.Unlock()
			rejected = append(rejected, sec+"/"+string(rune('0'+page))+" "+loc)
		}},
		Section{Name: "products", Source: newRecent(urls...)})
	clk.Add(floorAhead)
	w := get(sm, "/sitemap-products.atom")
	if w.Code != 200 {
		t.Fatalf("status %d", w.Code)
	}
	f := checkAtom(t, w.Body.Bytes(), "https://example.com/sitemap-products.atom")
	if f.Title != "products: recently changed" || f.Authors[0] != "Shop & Co" {
		t.Errorf("title %q, author %q", f.Title, f.Authors[0])
	}
	if len(f.Entries) != 6 {
		t.Fatalf("%d entries, want 6 (5, and the news)", len(f.Entries))
	}
	if e := f.Entries[0]; e.ID != urls[0].Loc || e.Updated != "2025-03-04T05:06:07Z" || e.Title != urls[0].Loc {
		t.Errorf("first entry %+v, want %s at %v", e, urls[0].Loc, feedT0)
	}
	if e := f.Entries[5]; e.ID != "https://example.com/b%C3%BCcher" || e.Title != `News <&> "t"` {
		t.Errorf("news entry %+v", e)
	}
	if f.Updated != "2025-03-04T05:06:07Z" {
		t.Errorf("feed updated %s, want the newest entry's", f.Updated)
	}
	// With no clock kept across restarts, the first Last-Modified of a
	// process is after its start, not the entries' (clock.go, rule 3).
	if got, _ := http.ParseTime(w.Header().Get("Last-Modified")); !got.After(feedT0) {
		t.Errorf("Last-Modified %q, want one after the start", w.Header().Get("Last-Modified"))
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"products/0 https://example.com/no-lastmod", "products/0 https://other.example/p"}; strings.Join(rejected, "|") != strings.Join(want, "|") {
		t.Errorf("rejected %q, want %q", rejected, want)
	}
}

// TestFeedBounded: at most FeedEntries entries, even from a Source that
// yields more; an empty feed is a valid feed.
func TestFeedBounded(t *testing.T) {
	src := newRecent(recentURLs(30)...)
	greedy := &recentSource{fakeSource: src.fakeSource}
	sm := newTestSitemap(t, Config{FeedEntries: 7}, Section{Name: "a", Source: src}, Section{Name: "b", Source: greedy})
	f := checkAtom(t, get(sm, "/sitemap-a.atom").Body.Bytes(), "https://example.com/sitemap-a.atom")
	if len(f.Entries) != 7 {
		t.Errorf("%d entries, want 7", len(f.Entries))
	}
	w := get(sm, "/sitemap-b.atom")
	if f := checkAtom(t, w.Body.Bytes(), "https://example.com/sitemap-b.atom"); w.Code != 200 || len(f.Entries) != 0 {
		t.Errorf("empty feed: status %d, %d entries", w.Code, len(f.Entries))
	}
	if _, err := New(Config{BaseURL: "https://example.com", FeedEntries: 1001}, Section{Source: src}); !errors.Is(err, ErrConfig) {
		t.Errorf("FeedEntries 1001: %v, want ErrConfig", err)
	}
	if _, err := New(Config{BaseURL: "https://example.com", FeedEntries: 5}, Section{Source: newFake(1, 1)}); err != nil {
		t.Errorf("feeds on, no section with one: %v, want no error", err)
	}
}

// TestFeedHTTP: headers, gzip negotiation, strong ETags per
// representation, 304 from the cache, robots.txt naming the feed.
func TestFeedHTTP(t *testing.T) {
	src := newRecent(recentURLs(4)...)
	clk := testkit.NewClock(time.Now())
	sm := newTestSitemap(t, Config{FeedEntries: 10, Now: clk.Now}, Section{Name: "products", Source: src})
	clk.Add(floorAhead)
	srv := httptest.NewServer(sm.Handler(http.NotFoundHandler()))
	defer srv.Close()
	fetch := func(hdr ...string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/sitemap-products.atom", nil)
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		res, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	gz := fetch("Accept-Encoding", "gzip")
	plain := fetch("Accept-Encoding", "identity")
	for _, res := range []*http.Response{gz, plain} {
		h := res.Header
		if res.StatusCode != 200 || h.Get("Content-Type") != "application/atom+xml; charset=utf-8" ||
			h.Get("Vary") != "Accept-Encoding" || h.Get("X-Robots-Tag") != "noindex" ||
			!strings.HasPrefix(h.Get("Etag"), `"`) || h.Get("Last-Modified") != gz.Header.Get("Last-Modified") || h.Get("Last-Modified") == "" {
			t.Errorf("status %d, headers %v", res.StatusCode, h)
		}
	}
	if gz.Header.Get("Content-Encoding") != "gzip" || plain.Header.Get("Content-Encoding") != "" ||
		gz.Header.Get("Etag") == plain.Header.Get("Etag") {
		t.Errorf("gzip: %v; plain: %v", gz.Header, plain.Header)
	}
	for _, res := range []*http.Response{gz, plain} {
		ae := "identity"
		if res == gz {
			ae = "gzip"
		}
		if r := fetch("Accept-Encoding", ae, "If-None-Match", res.Header.Get("Etag")); r.StatusCode != http.StatusNotModified {
			t.Errorf("If-None-Match %s: status %d, want 304", res.Header.Get("Etag"), r.StatusCode)
		}
	}
	if r := fetch("If-Modified-Since", gz.Header.Get("Last-Modified")); r.StatusCode != http.StatusNotModified {
		t.Errorf("If-Modified-Since: status %d, want 304", r.StatusCode)
	}
	if n := src.calls.Load(); n != 1 {
		t.Errorf("%d Recent calls, want 1", n)
	}
	robots := get(sm.Handler(http.NotFoundHandler()), "/robots.txt").Body.String()
	if !strings.Contains(robots, "Sitemap: https://example.com/sitemap_index.xml\nSitemap: https://example.com/sitemap-products.atom\n") {
		t.Errorf("robots.txt does not name the feed:\n%s", robots)
	}
}

// TestFeedCache: one Recent call per TTL; a stale feed is served while
// one rebuild runs; many cold requests share one build; Invalidate
// outdates the feed.
func TestFeedCache(t *testing.T) {
	clk := testkit.NewClock(feedT0)
	src := newRecent(recentURLs(3)...)
	src.block = make(chan struct{})
	sm := newTestSitemap(t, Config{FeedEntries: 10, Now: clk.Now, TTL: time.Minute}, Section{Name: "products", Source: src})
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if w := get(sm, "/sitemap-products.atom"); w.Code != 200 {
				t.Errorf("status %d", w.Code)
			}
		})
	}
	waitFor(t, func() bool { return src.calls.Load() == 1 })
	time.Sleep(20 * time.Millisecond) // let the others join
	close(src.block)
	wg.Wait()
	if n := src.calls.Load(); n != 1 {
		t.Fatalf("%d Recent calls for 20 cold requests, want 1", n)
	}
	clk.Add(59 * time.Second)
	get(sm, "/sitemap-products.atom")
	if n := src.calls.Load(); n != 1 {
		t.Fatalf("%d Recent calls within TTL, want 1", n)
	}
	src.set(recentURLs(2), nil) // a URL left the feed
	clk.Add(2 * time.Second)
	old := get(sm, "/sitemap-products.atom") // stale: served, rebuilt behind
	waitFor(t, func() bool { return src.calls.Load() == 2 })
	waitFor(t, func() bool { return get(sm, "/sitemap-products.atom").Header().Get("Etag") != old.Header().Get("Etag") })
	w := get(sm, "/sitemap-products.atom")
	f := checkAtom(t, w.Body.Bytes(), "https://example.com/sitemap-products.atom")
	// The bytes changed, the newest entry did not: the clock moved past
	// the one served before.
	if len(f.Entries) != 2 || f.Updated != feedT0.Add(61*time.Second).Format(time.RFC3339) ||
		w.Header().Get("Last-Modified") != feedT0.Add(61*time.Second).Format(http.TimeFormat) {
		t.Errorf("%d entries, updated %s, Last-Modified %s", len(f.Entries), f.Updated, w.Header().Get("Last-Modified"))
	}
	if err := sm.Invalidate("products"); err != nil {
		t.Fatal(err)
	}
	get(sm, "/sitemap-products.atom")
	waitFor(t, func() bool { return src.calls.Load() == 3 })
}

// TestFeedError: a failing Recent is a 503 without validators, cached
// nowhere, not retried before RetryAfter, then built again.
func TestFeedError(t *testing.T) {
	clk := testkit.NewClock(feedT0)
	src := newRecent()
	src.set(nil, errors.New("db down"))
	sm := newTestSitemap(t, Config{FeedEntries: 10, Now: clk.Now}, Section{Name: "products", Source: src})
	for range 3 {
		w := get(sm, "/sitemap-products.atom")
		if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "60" ||
			w.Header().Get("Etag") != "" || w.Header().Get("Last-Modified") != "" || w.Header().Get("Cache-Control") != "" {
			t.Errorf("status %d, headers %v; want 503 with Retry-After and no validators", w.Code, w.Header())
		}
	}
	if n := src.calls.Load(); n != 1 {
		t.Errorf("%d Recent calls within RetryAfter, want 1", n)
	}
	if st := sm.Stats(); st.BuildErrors != 1 {
		t.Errorf("%d build errors, want 1", st.BuildErrors)
	}
	src.set(recentURLs(2), nil)
	clk.Add(61 * time.Second)
	if w := get(sm, "/sitemap-products.atom"); w.Code != 200 || src.calls.Load() != 2 {
		t.Errorf("after RetryAfter: status %d, %d calls", w.Code, src.calls.Load())
	}
}
