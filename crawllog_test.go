package sitemap

import (
	"errors"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"reflect"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

const (
	googlebotUA = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
	bingbotUA   = "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)"
)

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
	if byKey := sm.crawls.file(pageKey(0, 1)); !reflect.DeepEqual(byKey, got) {
		t.Errorf("file(p-1) = %+v, want %+v", byKey, got)
	}
	if byKey := sm.crawls.file(indexFileKey(1)); len(byKey) != 1 {
		t.Errorf("file(index 1) = %+v", byKey)
	}
	if none := sm.crawls.file(pageKey(0, 3)); none != nil {
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
		uas = append(uas, c.ua)
	}
	aiRanges := func() (map[string][]netip.Prefix, error) { // the address in every family's ranges
		m := map[string][]netip.Prefix{}
		for _, name := range crawlerNames[:crawlerOther] {
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

// TestCrawlLogRecentRows: files whose rows share a slot of the table of
// rows last used (3,000 files in its 1,024 slots) are each logged in
// their own row, from several goroutines (run with -race).
func TestCrawlLogRecentRows(t *testing.T) {
	const files = 3000
	l := &crawlLog{ids: &crawlerIDs{}, max: files, counts: make([]crawlCounts, 3), sections: 1}
	l.rows.Store(&map[docKey]*crawlRow{})
	at := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 2 * files {
				p := int64((i*7+g*13)%files + 1)
				l.record(pageKey(0, p), crawlerSlot(g), at.Add(time.Duration(p)*time.Second).Unix(), false, 200, p, true)
			}
		})
	}
	wg.Wait()
	seen := map[uint64]bool{}
	for p := int64(1); p <= files; p++ {
		seen[recentSlot(pageKey(0, p))] = true
		got := l.file(pageKey(0, p))
		if len(got) != 4 {
			t.Fatalf("page %d: %d columns, want 4: %+v", p, len(got), got)
		}
		for _, f := range got {
			if f.Bytes != p || f.Fetches != 2 || !f.Time.Equal(at.Add(time.Duration(p)*time.Second)) {
				t.Fatalf("page %d: %+v", p, f)
			}
		}
	}
	if len(seen) > recentRows || len(seen) < recentRows/2 {
		t.Errorf("%d files in %d slots of %d", files, len(seen), recentRows)
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

// TestCrawlCellStore: a cell keeps its last fetch to the second: one
// that changes nothing within the second stores nothing but its count,
// one that changes anything is stored, and one answered earlier than
// the stored one and stored late does not replace it. Times before 1970
// and the zero time survive the packing.
func TestCrawlCellStore(t *testing.T) {
	var cell crawlCell
	if _, ok := cell.fetch(); ok {
		t.Fatal("a new cell has a fetch")
	}
	for i, c := range []struct {
		step   string
		sec    int64
		cond   bool
		status int
		bytes  int64
		want   CrawlFetch // but Fetches, which is i+1
	}{
		{"first", 100, false, 200, 5000, CrawlFetch{Time: time.Unix(100, 0), Status: 200, Bytes: 5000}},
		{"the same in the second", 100, false, 200, 5000, CrawlFetch{Time: time.Unix(100, 0), Status: 200, Bytes: 5000}},
		{"other bytes", 100, false, 200, 4000, CrawlFetch{Time: time.Unix(100, 0), Status: 200, Bytes: 4000}},
		{"a 304", 100, true, 304, 0, CrawlFetch{Time: time.Unix(100, 0), Status: 304, Conditional: true}},
		{"an earlier one, stored late", 99, false, 200, 7, CrawlFetch{Time: time.Unix(100, 0), Status: 304, Conditional: true}},
		{"the next second", 101, true, 304, 0, CrawlFetch{Time: time.Unix(101, 0), Status: 304, Conditional: true}},
	} {
		cell.store(c.sec, c.cond, c.status, c.bytes)
		c.want.Fetches = int64(i + 1)
		if f, ok := cell.fetch(); !ok || f != c.want {
			t.Errorf("%s: %+v, want %+v", c.step, f, c.want)
		}
	}
	for _, sec := range []int64{-1, time.Time{}.Unix(), 0, 1 << 40} {
		var c crawlCell
		c.store(sec, true, 503, 1)
		if f, _ := c.fetch(); f.Time.Unix() != sec || f.Status != 503 || !f.Conditional {
			t.Errorf("second %d: %+v", sec, f)
		}
	}
}

// TestCrawlLogConcurrentCell: goroutines logging fetches of one file by
// one column while others read the log (run with -race): a reader sees
// each last fetch whole (its bytes are its status's and second's), and
// counts that never go down; at the end, every fetch is counted, in the
// file's and the section's counts alike.
func TestCrawlLogConcurrentCell(t *testing.T) {
	l := &crawlLog{ids: &crawlerIDs{}, max: 10, counts: make([]crawlCounts, 3), sections: 1}
	l.rows.Store(&map[docKey]*crawlRow{})
	k, c := pageKey(0, 1), crawlerSlot(2*crawlerGoogle)
	at := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	const writers, each = 4, 20_000
	var wg sync.WaitGroup
	var done atomic.Bool
	for g := range writers {
		wg.Go(func() {
			for i := range each {
				sec := int64(i / 100)
				status := []int{200, 304}[(i+g)%2]
				l.record(k, c, at.Add(time.Duration(sec)*time.Second).Unix(), status == 304, status, sec*1000+int64(status), true)
			}
		})
	}
	var readers sync.WaitGroup
	for range 2 {
		readers.Go(func() {
			var fetches, counted int64
			for !done.Load() {
				got := l.file(k)
				if len(got) == 0 {
					continue
				}
				f := got[0]
				if sec := f.Time.Sub(at) / time.Second; f.Bytes != int64(sec)*1000+int64(f.Status) || f.Conditional != (f.Status == 304) {
					t.Errorf("a torn fetch: %+v", f)
					return
				}
				_, counts := l.section(0)
				var n int64
				for _, cc := range counts {
					n += cc.Fetches
				}
				if f.Fetches < fetches || n < counted {
					t.Errorf("counts went down: file %d → %d, section %d → %d", fetches, f.Fetches, counted, n)
					return
				}
				fetches, counted = f.Fetches, n
			}
		})
	}
	wg.Wait()
	done.Store(true)
	readers.Wait()
	got := l.file(k)
	if len(got) != 1 || got[0].Fetches != writers*each || !got[0].Time.Equal(at.Add((each-1)/100*time.Second)) {
		t.Errorf("after: %+v", got)
	}
	if tt := l.totals(); tt.verified != writers*each || tt.unverified != 0 || tt.byPurpose[purposeSearch] != writers*each {
		t.Errorf("totals %+v; want %d verified, 0 unverified, all of them search", tt, writers*each)
	}
}
