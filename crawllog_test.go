package sitemap

import (
	"context"
	"errors"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/crawllog"
	"github.com/freshmap/sitemap/internal/testkit"
)

const (
	googlebotUA = testkit.GooglebotUA
	bingbotUA   = testkit.BingbotUA
	chromeUA    = testkit.ChromeUA
	spoofAddr   = testkit.SpoofAddr
)

// aiClients are a User-Agent of each AI family and addresses in and out
// of testdata/crawlers' ranges (testkit.AIClients).
var aiClients = testkit.AIClients

// testRangeFiles are testdata/crawlers' files, by family.
func testRangeFiles() map[string][]string {
	return testkit.CrawlerFiles(filepath.Join("testdata", "crawlers"))
}

// googleRanges gives Googlebot one published prefix (and 127.0.0.1, for
// the tests over a real server).
func googleRanges() (map[string][]netip.Prefix, error) {
	return map[string][]netip.Prefix{"Googlebot": {
		netip.MustParsePrefix("66.249.64.0/19"), netip.MustParsePrefix("127.0.0.1/32")}}, nil
}

// crawlSitemap serves 10 URLs in pages of 3 (sitemap-p-1 to -4), with
// Googlebot's ranges.
func crawlSitemap(t testing.TB, cfg Config) *Sitemap {
	if cfg.Crawlers.Ranges == nil && cfg.Crawlers.Files >= 0 {
		cfg.Crawlers.Ranges = googleRanges
	}
	return newTestSitemap(t, cfg, Section{Name: "p", Source: FromSlice(numbered(10), 3)})
}

// fetch serves path to a client with the User-Agent ua from addr.
func fetch(h http.Handler, path, ua, addr string, hdr ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, path, nil)
	r.Header.Set("User-Agent", ua)
	r.RemoteAddr = addr
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// crawlsOf returns the crawl log of file, failing if it has none.
func crawlsOf(t *testing.T, sm *Sitemap, file string) []CrawlFetch {
	t.Helper()
	for _, fc := range sm.CrawlLog() {
		if fc.File == file {
			return fc.Crawls
		}
	}
	t.Fatalf("no crawl log of %s in %+v", file, sm.CrawlLog())
	return nil
}

// TestCrawlLogSpoofed: a Googlebot User-Agent from an address outside
// Googlebot's ranges is logged apart, unverified, and never as Googlebot.
func TestCrawlLogSpoofed(t *testing.T) {
	var clock atomic.Int64 // read by background refreshes too
	clock.Store(time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC).UnixNano())
	sm := crawlSitemap(t, Config{TTL: 24 * time.Hour, Now: func() time.Time { return time.Unix(0, clock.Load()) }})
	for i := range 100 { // spoofed, from many addresses
		addr := "203.0." + strconv.Itoa(i) + ".7:4000"
		if w := fetch(sm, "/sitemap-p-1.xml.gz", googlebotUA, addr); w.Code != 200 {
			t.Fatal(w.Code)
		}
	}
	clock.Add(int64(time.Hour))
	clk := time.Unix(0, clock.Load())
	w := fetch(sm, "/sitemap-p-1.xml.gz", googlebotUA, "66.249.66.1:5000")
	etag := w.Header().Get("Etag")
	got := crawlsOf(t, sm, "sitemap-p-1.xml.gz")
	if len(got) != 2 {
		t.Fatalf("crawls %+v, want Googlebot verified and unverified", got)
	}
	v, u := got[0], got[1] // the latest first
	if v.Crawler != "Googlebot" || !v.Verified || v.Fetches != 1 || !v.Time.Equal(clk) || v.Status != 200 || v.Bytes != int64(w.Body.Len()) || v.Conditional {
		t.Errorf("verified: %+v", v)
	}
	if u.Crawler != "Googlebot" || u.Verified || u.Fetches != 100 {
		t.Errorf("unverified: %+v", u)
	}
	st := sm.Stats()
	if st.CrawlerFetches != 1 || st.CrawlerUnverified != 100 {
		t.Errorf("Stats: %d verified, %d unverified; want 1 and 100", st.CrawlerFetches, st.CrawlerUnverified)
	}

	// A conditional fetch answered 304, and an unverified Bingbot (no ranges).
	clock.Add(int64(time.Minute))
	if w := fetch(sm, "/sitemap-p-1.xml.gz", googlebotUA, "66.249.66.1:5000", "If-None-Match", etag); w.Code != 304 {
		t.Fatal(w.Code)
	}
	fetch(sm, "/sitemap-p-1.xml.gz", bingbotUA, "66.249.66.1:5000")
	fetch(sm, "/sitemap-p-1.xml.gz", "curl/8", "192.0.2.1:1")
	fetch(sm, "/sitemap_index.xml", googlebotUA, "66.249.66.1:5000")
	got = crawlsOf(t, sm, "sitemap-p-1.xml.gz")
	var g CrawlFetch
	names := map[string]bool{}
	for _, f := range got {
		names[f.Crawler+strconv.FormatBool(f.Verified)] = true
		if f.Crawler == "Googlebot" && f.Verified {
			g = f
		}
	}
	if g.Status != 304 || !g.Conditional || g.Bytes != 0 || g.Fetches != 2 {
		t.Errorf("the 304: %+v", g)
	}
	if !names["Bingbotfalse"] || !names["otherfalse"] || names["Bingbottrue"] || len(got) != 4 {
		t.Errorf("columns %v", names)
	}
	if idx := crawlsOf(t, sm, "sitemap_index.xml"); len(idx) != 1 || !idx[0].Verified {
		t.Errorf("the index: %+v", idx)
	}
	// The lookup the HTML view makes, by key.
	byKey := func(k docKey) []CrawlFetch {
		return crawlFetches(sm.crawls.Fetches(k.crawlFile(len(sm.site.sections))))
	}
	if byKey := byKey(pageKey(0, 1)); !reflect.DeepEqual(byKey, got) {
		t.Errorf("file(p-1) = %+v, want %+v", byKey, got)
	}
	if byKey := byKey(indexFileKey(1)); len(byKey) != 1 {
		t.Errorf("file(index 1) = %+v", byKey)
	}
	if none := byKey(pageKey(0, 3)); none != nil {
		t.Errorf("file(p-3), never fetched = %+v", none)
	}

	// SectionStats: the section's latest fetch per column, counts by status.
	for _, ss := range sm.SectionStats() {
		switch ss.Section {
		case "p":
			var n200, n304 int64
			for _, c := range ss.CrawlCounts {
				if c.Crawler == "Googlebot" && c.Verified {
					switch c.Status {
					case 200:
						n200 += c.Fetches
					case 304:
						n304 += c.Fetches
					}
				}
			}
			if n200 != 1 || n304 != 1 || len(ss.Crawls) != 4 {
				t.Errorf("section p: %d 200s, %d 304s, crawls %+v", n200, n304, ss.Crawls)
			}
		case "_index":
			if len(ss.Crawls) != 1 {
				t.Errorf("_index: %+v", ss.Crawls)
			}
		case "_other":
			if ss.Crawls != nil || ss.CrawlCounts != nil {
				t.Errorf("_other: %+v", ss)
			}
		}
	}
}

// TestCrawlLogOffByDefault: the zero Crawlers turns the crawl log off
// (issue 29: with the default Config a cached hit runs only what serving
// needs), as does a negative Files whatever else is set; any field set
// turns it on, Files alone by User-Agent.
func TestCrawlLogOffByDefault(t *testing.T) {
	for name, c := range map[string]struct {
		crawlers Crawlers
		on       bool
	}{
		"zero":             {Crawlers{}, false},
		"files":            {Crawlers{Files: 5}, true},
		"ranges":           {Crawlers{Ranges: googleRanges}, true},
		"resolver":         {Crawlers{Resolver: noResolver{}}, true},
		"address header":   {Crawlers{AddressHeader: "X-Forwarded-For"}, true},
		"verified only":    {Crawlers{VerifiedOnly: true, Ranges: googleRanges}, true},
		"negative files":   {Crawlers{Files: -1, Ranges: googleRanges, VerifiedOnly: true}, false},
		"negative, header": {Crawlers{Files: -1, AddressHeader: "X-Forwarded-For"}, false},
	} {
		sm := newTestSitemap(t, Config{Crawlers: c.crawlers}, Section{Name: "p", Source: FromSlice(numbered(10), 3)})
		if w := fetch(sm, "/sitemap-p-1.xml.gz", googlebotUA, "66.249.66.1:443"); w.Code != http.StatusOK {
			t.Fatalf("%s: %d", name, w.Code)
		}
		if on := sm.crawls != nil; on != c.on || (len(sm.CrawlLog()) == 1) != c.on {
			t.Errorf("%s: crawl log on %v (%d files logged), want %v", name, on, len(sm.CrawlLog()), c.on)
		}
		if st := sm.Stats(); !c.on && st.CrawlerFetches+st.CrawlerUnverified != 0 {
			t.Errorf("%s: off, yet Stats counts crawlers: %+v", name, st)
		}
	}
}

// noResolver answers every lookup with an error.
type noResolver struct{}

func (noResolver) LookupAddr(context.Context, string) ([]string, error) {
	return nil, errors.New("no DNS here")
}

func (noResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return nil, errors.New("no DNS here")
}

// confirmingResolver confirms every address as crawl.googlebot.com, which
// resolves back to it.
type confirmingResolver struct{}

func (confirmingResolver) LookupAddr(context.Context, string) ([]string, error) {
	return []string{"crawl.googlebot.com."}, nil
}

func (confirmingResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("192.0.2.50")}, nil
}

// TestCrawlDNSConfig: Crawlers.Resolver reaches the crawl log (its rules
// are internal/crawllog's TestCrawlDNS): a Googlebot claim from an
// address outside every range is verified once its lookup has answered,
// and Close ends the lookups' goroutine.
func TestCrawlDNSConfig(t *testing.T) {
	before := runtime.NumGoroutine()
	sm, err := New(Config{BaseURL: "https://example.com", Crawlers: Crawlers{Resolver: confirmingResolver{}}}, Section{Name: "p", Source: FromSlice(numbered(10), 3)})
	if err != nil {
		t.Fatal(err)
	}
	addr := "192.0.2.50:443" // one string: one keep-alive connection
	waitFor(t, func() bool {
		fetch(sm, "/sitemap-p-1.xml.gz", googlebotUA, addr)
		for _, f := range crawlsOf(t, sm, "sitemap-p-1.xml.gz") {
			if f.Crawler == "Googlebot" && f.Verified {
				return true
			}
		}
		return false
	})
	sm.Close()
	waitGoroutines(t, before)
}

// TestCrawlLogNotFound: a path that names no file makes no row, whoever
// asks, and the number of rows is bounded by Crawlers.Files.
func TestCrawlLogNotFound(t *testing.T) {
	sm := crawlSitemap(t, Config{Crawlers: Crawlers{Files: 2}})
	for _, p := range []string{"/sitemap-p-99.xml.gz", "/sitemap-q-1.xml.gz", "/sitemap-p-01.xml.gz", "/sitemap_index-2.xml"} {
		if w := fetch(sm, p, googlebotUA, "66.249.66.1:1"); w.Code != 404 {
			t.Errorf("%s: %d", p, w.Code)
		}
	}
	if got := sm.CrawlLog(); len(got) != 0 {
		t.Errorf("404s logged: %+v", got)
	}
	for _, p := range []string{"/sitemap-p-1.xml.gz", "/sitemap-p-2.xml", "/sitemap-p-3.txt", "/sitemap-p-4.xml.gz"} {
		if w := fetch(sm, p, googlebotUA, "66.249.66.1:1"); w.Code != 200 {
			t.Errorf("%s: %d", p, w.Code)
		}
	}
	got := sm.CrawlLog()
	if len(got) != 2 || got[0].File != "sitemap-p-1.xml.gz" || got[1].File != "sitemap-p-2.xml.gz" || got[0].Section != "p" {
		t.Errorf("crawl log %+v, want pages 1 and 2 (by their .xml.gz names)", got)
	}
	if n := sm.Stats().CrawlLogFull; n != 2 {
		t.Errorf("CrawlLogFull = %d, want 2", n)
	}
}

// TestCrawlLogVerifiedOnly: with VerifiedOnly, the sitemap files answer
// verified crawlers only, over a real server; robots.txt answers anyone.
func TestCrawlLogVerifiedOnly(t *testing.T) {
	for name, cfg := range map[string]Crawlers{
		"without ranges": {VerifiedOnly: true, Ranges: nil},
		"an unknown family": {Ranges: func() (map[string][]netip.Prefix, error) {
			return map[string][]netip.Prefix{"googlebot": nil}, nil
		}},
		"a failing Ranges": {Ranges: func() (map[string][]netip.Prefix, error) { return nil, errors.New("no file") }},
	} {
		if _, err := New(Config{BaseURL: "https://example.com", Crawlers: cfg}, Section{Source: FromSlice(numbered(1), 0)}); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v, want ErrConfig", name, err)
		}
	}
	sm := crawlSitemap(t, Config{Crawlers: Crawlers{VerifiedOnly: true, Ranges: googleRanges}})
	srv := httptest.NewServer(sm.Handler(http.NotFoundHandler()))
	defer srv.Close()
	for _, c := range []struct {
		path, ua string
		want     int
	}{
		{"/sitemap_index.xml", googlebotUA, 200}, // 127.0.0.1 is in the test's Googlebot ranges
		{"/sitemap-p-1.xml.gz", googlebotUA, 200},
		{"/sitemap-p-1.xml.gz", bingbotUA, 403}, // no ranges: never verified
		{"/sitemap-p-1.xml.gz", "Mozilla/5.0", 403},
		{"/sitemap_index.xml", "", 403},
		{"/sitemap-p-99.xml.gz", "Mozilla/5.0", 403}, // before the index is asked
		{"/robots.txt", "Mozilla/5.0", 200},
	} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+c.path, nil)
		req.Header.Set("User-Agent", c.ua)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s by %q: %d, want %d", c.path, c.ua, resp.StatusCode, c.want)
		}
	}
	if n := sm.Stats().CrawlerForbidden; n != 4 {
		t.Errorf("CrawlerForbidden = %d, want 4", n)
	}
	// A 403 makes no row: p-1 was logged by its 200, and its 403s kept apart.
	for _, f := range crawlsOf(t, sm, "sitemap-p-1.xml.gz") {
		if f.Crawler != "Googlebot" && f.Status != 403 {
			t.Errorf("%+v", f)
		}
	}
}

// TestCrawlLogMemoryFlat: a million requests from random User-Agents and
// addresses, for files that exist and paths that do not, leave the crawl
// log's memory as it was after the first thousand.
func TestCrawlLogMemoryFlat(t *testing.T) {
	n := 1_000_000
	if raceEnabled || testing.Short() {
		n = 50_000
	}
	sm := crawlSitemap(t, Config{TTL: time.Hour})
	rng := rand.New(rand.NewPCG(1, 2))
	uas := []string{googlebotUA, bingbotUA, "Mozilla/5.0 YandexBot/3.0", "Applebot/0.1", "DuckDuckBot/1.1", "Baiduspider", ""}
	paths := []string{"/sitemap_index.xml", "/sitemap-p-1.xml.gz", "/sitemap-p-2.xml", "/sitemap-p-4.txt", "/sitemap-p-5.xml.gz", "/sitemap-p-77.xml.gz"}
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	w := &recorder{header: http.Header{}}
	var ua [64]byte
	one := func() {
		if k := rng.IntN(len(uas) + 1); k < len(uas) {
			r.Header["User-Agent"] = []string{uas[k]}
		} else { // a random User-Agent
			for i := range ua {
				ua[i] = byte(' ' + rng.IntN(95))
			}
			r.Header["User-Agent"] = []string{string(ua[:rng.IntN(len(ua))])}
		}
		r.RemoteAddr = netip.AddrPortFrom(netip.AddrFrom4([4]byte{byte(rng.Uint32()), 249, byte(rng.Uint32()), byte(rng.Uint32())}), 443).String()
		p := paths[rng.IntN(len(paths))]
		r.URL.Path, r.RequestURI = p, p
		clear(w.header)
		sm.ServeHTTP(w, r)
	}
	for range 1000 {
		one()
	}
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heap()
	for range n {
		one()
	}
	after := heap()
	if after > before+256<<10 {
		t.Errorf("heap %d → %d bytes after %d requests, want flat", before, after, n)
	}
	if got := sm.CrawlLog(); len(got) != 4 { // index, p-1, p-2, p-4
		t.Errorf("%d files logged, want 4: %+v", len(got), got)
	}
	t.Logf("heap %d → %d bytes after %d requests", before, after, n)
}

// TestCrawlLogAllocs: a fetch of a file already logged allocates nothing
// more than the same fetch without the crawl log.
func TestCrawlLogAllocs(t *testing.T) {
	allocs := func(c Crawlers, ua string) float64 {
		sm := crawlSitemap(t, Config{TTL: time.Hour, Crawlers: c})
		r := httptest.NewRequest(http.MethodGet, "/sitemap-p-1.xml.gz", nil)
		r.Header.Set("User-Agent", ua)
		r.RemoteAddr = "66.249.66.1:443"
		w := &recorder{header: http.Header{}}
		sm.ServeHTTP(w, r)
		return testing.AllocsPerRun(100, func() { clear(w.header); sm.ServeHTTP(w, r) })
	}
	off := allocs(Crawlers{Files: -1}, googlebotUA)
	uas := []string{googlebotUA, bingbotUA, "Mozilla/5.0"}
	for _, c := range aiClients { // each AI family too (issue 30), verified or not
		uas = append(uas, c.UA)
	}
	aiRanges := func() (map[string][]netip.Prefix, error) { // the address in every family's ranges
		m := map[string][]netip.Prefix{}
		for _, name := range crawllog.Names() {
			m[name] = []netip.Prefix{netip.MustParsePrefix("66.249.64.0/19")}
		}
		return m, nil
	}
	for _, ua := range uas {
		for _, ranges := range []func() (map[string][]netip.Prefix, error){googleRanges, aiRanges} {
			if on := allocs(Crawlers{Ranges: ranges}, ua); on > off {
				t.Errorf("%.40q: %v allocations with the crawl log, %v without", ua, on, off)
			}
		}
	}
}

// TestCrawlLogConditional: a fetch is conditional when it has a
// non-empty If-None-Match or If-Modified-Since, whatever the answer.
func TestCrawlLogConditional(t *testing.T) {
	clk := testkit.NewClock(time.Now())
	sm := crawlSitemap(t, Config{TTL: time.Hour, Now: clk.Now})
	clk.Add(floorAhead) // a Last-Modified for If-Modified-Since
	w := fetch(sm, "/sitemap-p-1.xml.gz", googlebotUA, "66.249.66.1:1")
	etag, lm := w.Header().Get("Etag"), w.Header().Get("Last-Modified")
	for _, c := range []struct {
		hdr    []string
		status int
		cond   bool
	}{
		{nil, 200, false},
		{[]string{"If-None-Match", etag}, 304, true},
		{[]string{"If-None-Match", `"other"`}, 200, true},
		{[]string{"If-Modified-Since", lm}, 304, true},
		{[]string{"If-None-Match", ""}, 200, false},
		{[]string{"Range", "bytes=0-9"}, 206, false},
		{[]string{"If-Match", `"other"`}, 412, false},
	} {
		if w := fetch(sm, "/sitemap-p-1.xml.gz", googlebotUA, "66.249.66.1:1", c.hdr...); w.Code != c.status {
			t.Fatalf("%v: %d, want %d", c.hdr, w.Code, c.status)
		}
		if f := crawlsOf(t, sm, "sitemap-p-1.xml.gz")[0]; f.Status != c.status || f.Conditional != c.cond {
			t.Errorf("%v: %+v, want status %d, conditional %v", c.hdr, f, c.status, c.cond)
		}
	}
}

// TestCrawlFamilies: each family's example User-Agent from an address in
// its vendor's published ranges (testdata/crawlers, read with
// CrawlerRangeFiles), and the same User-Agent from an address outside
// them, over a whole Sitemap: verified, spoofed and unverifiable claims
// are logged apart, with the family's purpose, in CrawlLog, SectionStats
// and Stats; user-triggered fetches are counted apart from the crawlers'.
func TestCrawlFamilies(t *testing.T) {
	sm := crawlSitemap(t, Config{Crawlers: Crawlers{Ranges: CrawlerRangeFiles(testRangeFiles())}})
	want := map[string]CrawlFetch{} // by Crawler and check
	key := func(f CrawlFetch) string {
		return f.Crawler + "/" + map[bool]string{true: "verified"}[f.Verified] + map[bool]string{true: "spoofed"}[f.Spoofed]
	}
	var verified, spoofed, unverifiable int64
	var byPurpose = map[string]int64{}
	for _, c := range aiClients {
		if c.Addr != "" {
			if w := fetch(sm, "/sitemap-p-1.xml.gz", c.UA, c.Addr); w.Code != 200 {
				t.Fatalf("%s: %d", c.Family, w.Code)
			}
			want[c.Family+"/verified"] = CrawlFetch{Crawler: c.Family, Purpose: c.Purpose, Verified: true, Fetches: 1}
			verified++
			byPurpose[c.Purpose]++
		}
		for range 2 {
			fetch(sm, "/sitemap-p-1.xml.gz", c.UA, spoofAddr)
		}
		if c.Addr != "" { // the vendor publishes ranges: from elsewhere, a spoof
			want[c.Family+"/spoofed"] = CrawlFetch{Crawler: c.Family, Purpose: c.Purpose, Spoofed: true, Fetches: 2}
			spoofed += 2
		} else { // none to check against
			want[c.Family+"/"] = CrawlFetch{Crawler: c.Family, Purpose: c.Purpose, Fetches: 2}
			unverifiable += 2
			byPurpose[c.Purpose] += 2
		}
	}
	fetch(sm, "/sitemap-p-1.xml.gz", chromeUA, "192.0.2.1:443") // a browser at GPTBot's address: other
	want["other/"] = CrawlFetch{Crawler: "other", Fetches: 1}

	got := crawlsOf(t, sm, "sitemap-p-1.xml.gz")
	if len(got) != len(want) {
		t.Errorf("%d columns, want %d", len(got), len(want))
	}
	for _, f := range got {
		w, ok := want[key(f)]
		if !ok {
			t.Errorf("a column not wanted: %+v", f)
			continue
		}
		if f.Crawler != w.Crawler || f.Purpose != w.Purpose || f.Verified != w.Verified || f.Spoofed != w.Spoofed || f.Fetches != w.Fetches || f.Status != 200 {
			t.Errorf("%s: %+v, want %+v", key(f), f, w)
		}
	}
	st := sm.Stats()
	if st.CrawlerFetches != verified || st.CrawlerSpoofed != spoofed || st.CrawlerUnverified != spoofed+unverifiable {
		t.Errorf("Stats: %d verified, %d spoofed, %d unverified; want %d, %d, %d",
			st.CrawlerFetches, st.CrawlerSpoofed, st.CrawlerUnverified, verified, spoofed, spoofed+unverifiable)
	}
	if st.CrawlerSearch != byPurpose["search"] || st.CrawlerTraining != byPurpose["training"] || st.CrawlerUserTriggered != byPurpose["user-triggered"] {
		t.Errorf("Stats by purpose: search %d, training %d, user-triggered %d; want %v",
			st.CrawlerSearch, st.CrawlerTraining, st.CrawlerUserTriggered, byPurpose)
	}
	// Counted apart: ChatGPT-User, Perplexity-User and Google-Agent
	// verified, Claude-User and Meta-ExternalFetcher unverifiable (twice
	// each); the spoofs of any of them not at all.
	if st.CrawlerUserTriggered != 3+2*2 {
		t.Errorf("user-triggered %d, want 7", st.CrawlerUserTriggered)
	}
	for _, ss := range sm.SectionStats() {
		if ss.Section != "p" {
			continue
		}
		n := map[string]int64{}
		for _, c := range ss.CrawlCounts {
			n[key(CrawlFetch{Crawler: c.Crawler, Verified: c.Verified, Spoofed: c.Spoofed})] += c.Fetches
			if c.Crawler != "other" && c.Purpose == "" {
				t.Errorf("a count without its purpose: %+v", c)
			}
		}
		for k, w := range want {
			if n[k] != w.Fetches {
				t.Errorf("SectionStats: %s: %d fetches, want %d", k, n[k], w.Fetches)
			}
		}
	}
}

func TestCrawlerRangeFiles(t *testing.T) {
	got, err := CrawlerRangeFiles(testRangeFiles())()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(got["ChatGPT-User"]); n != 2 {
		t.Errorf("ChatGPT-User: %d prefixes, want 2", n)
	}
	two := map[string][]string{"GPTBot": {filepath.Join("testdata", "crawlers", "gptbot.json"), filepath.Join("testdata", "crawlers", "searchbot.json")}}
	if got, err := CrawlerRangeFiles(two)(); err != nil || len(got["GPTBot"]) != 3 {
		t.Errorf("two files of a family: %v, %v", got, err)
	}
	missing := filepath.Join("testdata", "crawlers", "none.json")
	if _, err := CrawlerRangeFiles(map[string][]string{"GPTBot": {missing}})(); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("a missing file: %v", err)
	}
	bad := filepath.Join("testdata", "crawlers", "README.md")
	if _, err := CrawlerRangeFiles(map[string][]string{"GPTBot": {bad}})(); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("a file that is no list of ranges: %v", err)
	}
}

// TestCrawlNotesPurpose: the HTML view's crawl notes say each family's
// purpose and whether its claim was verified, spoofed or unverifiable.
func TestCrawlNotesPurpose(t *testing.T) {
	at := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	sm := crawlSitemap(t, Config{Now: func() time.Time { return at }, Crawlers: Crawlers{Ranges: CrawlerRangeFiles(testRangeFiles())}})
	for _, c := range []struct{ ua, addr string }{
		{aiClients[0].UA, aiClients[0].Addr}, // GPTBot, verified
		{aiClients[9].UA, spoofAddr},         // ChatGPT-User, spoofed
		{aiClients[1].UA, spoofAddr},         // ClaudeBot: Anthropic publishes no ranges
		{googlebotUA, aiClients[14].Addr},    // Googlebot, verified
		{chromeUA, spoofAddr},                // a person: not noted
	} {
		fetch(sm, "/sitemap-p-1.xml.gz", c.ua, c.addr)
	}
	notes := crawlNotes{log: sm.crawls, sections: len(sm.site.sections), now: sm.docs.now}.htmlNotes(pageKey(0, 1))
	slices.Sort(notes)
	want := []string{
		"ChatGPT-User (user-triggered; spoofed: not from its vendor's addresses) fetched this file 0 s ago: 200",
		"ClaudeBot (training; claimed, not verified by address) fetched this file 0 s ago: 200",
		"GPTBot (training) fetched this file 0 s ago: 200",
		"Googlebot fetched this file 0 s ago: 200",
	}
	if !slices.Equal(notes, want) {
		t.Errorf("notes:\n%s\nwant:\n%s", strings.Join(notes, "\n"), strings.Join(want, "\n"))
	}
}

func TestReadCrawlerRanges(t *testing.T) {
	json := `{"creationTime": "2026-11-20T00:00:00.000000", "prefixes": [
		{"ipv6Prefix": "2001:4860:4801:10::/64"}, {"ipv4Prefix": "66.249.64.0/27"}]}`
	got, err := ReadCrawlerRanges(strings.NewReader(json))
	if err != nil || len(got) != 2 || got[1] != netip.MustParsePrefix("66.249.64.0/27") {
		t.Errorf("JSON: %v, %v", got, err)
	}
	got, err = ReadCrawlerRanges(strings.NewReader("# Applebot\n17.0.0.0/8\n\n  17.58.1.2 # one address\n2620:149::/32\n"))
	if err != nil || len(got) != 3 || got[1] != netip.MustParsePrefix("17.58.1.2/32") {
		t.Errorf("lines: %v, %v", got, err)
	}
	for _, bad := range []string{"", "  \n", "17.0.0.0/33\n", "not an address\n", `{"prefixes": [{"ipv4Prefix": "x"}]}`, `{"prefixes": `} {
		if got, err := ReadCrawlerRanges(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: %v, want an error", bad, got)
		} else if !strings.HasPrefix(err.Error(), "sitemap: crawler ranges: ") {
			t.Errorf("%q: error %q", bad, err)
		}
	}
}

// TestVerifiedOnlyPrivate: what VerifiedOnly gives a verified crawler
// carries no public cacheability, whatever Config.CacheControl is, in
// every representation; a shared cache in front keeps none of it
// (issue 30, point 8).
func TestVerifiedOnlyPrivate(t *testing.T) {
	for cc, want := range map[string]string{
		"":                    "private, max-age=900, stale-while-revalidate=3600",
		"-":                   "private",
		"public, s-maxage=60": "private",
	} {
		sm := crawlSitemap(t, Config{CacheControl: cc, Crawlers: Crawlers{VerifiedOnly: true, Ranges: googleRanges}})
		for _, path := range []string{"/sitemap_index.xml", "/sitemap-p-1.xml.gz", "/sitemap-p-1.xml", "/sitemap-p-1.txt"} {
			w := fetch(sm, path, googlebotUA, "66.249.66.1:443")
			if w.Code != 200 {
				t.Fatalf("%s: %d", path, w.Code)
			}
			got := w.Header().Get("Cache-Control")
			if got != want || strings.Contains(strings.ToLower(got), "public") {
				t.Errorf("CacheControl %q: %s: Cache-Control %q, want %q", cc, path, got, want)
			}
			if w := fetch(sm, path, googlebotUA, "192.0.2.1:443"); w.Code != 403 || w.Header().Get("Cache-Control") != "" {
				t.Errorf("CacheControl %q: %s, spoofed: %d, Cache-Control %q", cc, path, w.Code, w.Header().Get("Cache-Control"))
			}
		}
	}
	// Without VerifiedOnly, every client gets the same bytes: public.
	sm := crawlSitemap(t, Config{})
	if got := fetch(sm, "/sitemap-p-1.xml.gz", googlebotUA, "66.249.66.1:443").Header().Get("Cache-Control"); got != defaultCacheControl {
		t.Errorf("without VerifiedOnly: %q", got)
	}
}

// TestAddressHeaderPort: behind a proxy that writes the client's port
// into its header, a real Googlebot verifies and is served under
// VerifiedOnly (it got a 403 before issue 30).
func TestAddressHeaderPort(t *testing.T) {
	sm := crawlSitemap(t, Config{Crawlers: Crawlers{VerifiedOnly: true, Ranges: googleRanges, AddressHeader: "X-Forwarded-For"}})
	for xff, want := range map[string]int{
		"66.249.66.1:443":               200,
		"198.51.100.7, 66.249.66.1:443": 200,
		"66.249.66.1":                   200,
		"66.249.66.1:443, 198.51.100.7": 403, // the proxy added the last
		"":                              403,
	} {
		if w := fetch(sm, "/sitemap-p-1.xml.gz", googlebotUA, "10.0.0.1:5000", "X-Forwarded-For", xff); w.Code != want {
			t.Errorf("X-Forwarded-For %q: %d, want %d", xff, w.Code, want)
		}
	}
}
