package sqlsource_test

import (
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/internal/memstat"
	"github.com/freshmap/sitemap/internal/testkit"
)

// BenchmarkCrawl measures what serving a big table costs: it builds the
// benchmarks' products table of SITEMAP_CRAWL_ROWS rows (see bench_test.go)
// in SQLite, and in PostgreSQL when SITEMAP_TEST_POSTGRES_DSN names a server
// that answers (see openServer), serves it through sitemap.New with a cache
// of SITEMAP_CRAWL_CACHE_MB MiB (a comma-separated list, default 64, a
// sub-benchmark each), and fetches the index and then every page once, in
// order, decompressing and discarding each as a crawler would. Each
// iteration is one such crawl of a new Sitemap, so every file is built
// cold; -benchtime 1x runs exactly one:
//
//	SITEMAP_CRAWL_ROWS=10000000 SITEMAP_CRAWL_CACHE_MB=16,128 go test -run '^$' -bench BenchmarkCrawl -benchtime 1x -timeout 0 ./adapters/sqlsource
//
// ns/op is the time of the whole crawl, MB/s its XML (uncompressed), and
// allocs/op those of the whole process during it. It reports, as means over
// the crawls, the time of the index and of the first, last and slowest page
// (index-ms, first-page-ms, last-page-ms, slowest-page-ms), and, as the
// largest seen in any crawl, the RSS before the crawl (RSS-before-MiB), the
// peak RSS of the process during it (peak-RSS-MiB), the Go heap in use after
// a GC (heap-MiB) and the bytes the cache holds (cached-MiB). The peak
// should follow the cache budget, not the table. It also logs the last
// crawl in words.
//
// Without SITEMAP_CRAWL_ROWS it is skipped.
func BenchmarkCrawl(b *testing.B) {
	s := os.Getenv("SITEMAP_CRAWL_ROWS")
	if s == "" {
		b.Skip("crawl measurement skipped: set SITEMAP_CRAWL_ROWS (such as 10000000) and optionally SITEMAP_CRAWL_CACHE_MB (such as 16,128) to run it, with -benchtime 1x -timeout 0")
	}
	rows, err := strconv.ParseInt(s, 10, 64)
	if err != nil || rows < 1 {
		b.Fatalf("SITEMAP_CRAWL_ROWS=%q: want a positive number", s)
	}
	caches := []int64{64}
	if s := os.Getenv("SITEMAP_CRAWL_CACHE_MB"); s != "" {
		caches = caches[:0]
		for _, f := range strings.Split(s, ",") {
			mb, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
			if err != nil || mb < 1 {
				b.Fatalf("SITEMAP_CRAWL_CACHE_MB=%q: want positive numbers of MiB, comma-separated", s)
			}
			caches = append(caches, mb)
		}
	}
	tables := newBenchTables(b, rows)
	for _, name := range []string{"sqlite", "postgres"} {
		b.Run(name, func(b *testing.B) {
			bt := tables.get(b, name)
			for _, mb := range caches {
				b.Run(fmt.Sprintf("cache=%dMiB", mb), func(b *testing.B) {
					benchCrawl(b, name, bt, rows, mb<<20)
				})
			}
		})
	}
}

// crawlResult is what one crawl of a Sitemap saw and cost.
type crawlResult struct {
	pages, urls, xmlBytes, gzipBytes   int64
	total, index, first, last, slowest time.Duration
	rssBefore, peakRSS, heap, cached   int64
	cachedDocs                         int
}

// benchCrawl serves bt with a cache of cacheBytes and crawls it once an
// iteration, each with a new Sitemap, timing only the crawl.
func benchCrawl(b *testing.B, name string, bt *benchTable, rows, cacheBytes int64) {
	var (
		c                               crawler
		r                               crawlResult
		index, first, last, slowest     time.Duration
		rssBefore, peakRSS, heap, cache int64
	)
	wantURLs := rows - (rows+24)/50 // the rows with i % 50 == 25 are not published
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		r = crawlOnce(b, &c, bt, cacheBytes)
		b.StartTimer()
		if r.pages != bt.pages || r.urls != wantURLs {
			b.Errorf("%d pages with %d URLs, want %d with %d", r.pages, r.urls, bt.pages, wantURLs)
		}
		if r.cached > cacheBytes {
			b.Errorf("the cache holds %d bytes, more than its budget of %d", r.cached, cacheBytes)
		}
		index, first, last, slowest = index+r.index, first+r.first, last+r.last, slowest+r.slowest
		rssBefore, peakRSS, heap, cache = max(rssBefore, r.rssBefore), max(peakRSS, r.peakRSS), max(heap, r.heap), max(cache, r.cached)
	}
	b.SetBytes(r.xmlBytes)
	n := float64(b.N)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / n }
	mb := func(v int64) float64 { return float64(v) / (1 << 20) }
	b.ReportMetric(ms(index), "index-ms")
	b.ReportMetric(ms(first), "first-page-ms")
	b.ReportMetric(ms(last), "last-page-ms")
	b.ReportMetric(ms(slowest), "slowest-page-ms")
	b.ReportMetric(mb(rssBefore), "RSS-before-MiB")
	b.ReportMetric(mb(peakRSS), "peak-RSS-MiB")
	b.ReportMetric(mb(heap), "heap-MiB")
	b.ReportMetric(mb(cache), "cached-MiB")
	b.Logf("%s, %d rows, cache %s: %d pages, %d URLs, %s of XML (%s gzip) in %v; index %v; first page %v, last %v, slowest %v",
		name, rows, mib(cacheBytes), r.pages, r.urls, mib(r.xmlBytes), mib(r.gzipBytes), r.total.Round(time.Millisecond),
		r.index.Round(time.Millisecond), r.first.Round(time.Millisecond), r.last.Round(time.Millisecond), r.slowest.Round(time.Millisecond))
	b.Logf("%s, %d rows, cache %s: peak RSS %s (%s before the crawl, +%s); Go heap in use after GC %s; cache holds %s in %d pages",
		name, rows, mib(cacheBytes), mib(r.peakRSS), mib(r.rssBefore), mib(r.peakRSS-r.rssBefore), mib(r.heap), mib(r.cached), r.cachedDocs)
}

// crawlOnce serves bt through a new Sitemap with a cache of cacheBytes and
// crawls it once with c. It is called with b's timer stopped, and runs it
// only while it crawls.
func crawlOnce(b *testing.B, c *crawler, bt *benchTable, cacheBytes int64) crawlResult {
	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://shop.example.com", CacheBytes: cacheBytes},
		sitemap.Section{Name: "products", Source: bt.src})
	if err != nil {
		b.Fatal(err)
	}
	defer sm.Close()
	srv := httptest.NewServer(sm)
	defer srv.Close()
	c.urls, c.xmlBytes, c.gzipBytes = 0, 0, 0

	// Measure from a clean heap: what building the table and the crawls
	// before left behind is given back, and the peak starts from the RSS
	// of now.
	runtime.GC()
	debug.FreeOSMemory()
	r := crawlResult{rssBefore: memstat.RSS()}
	memstat.ResetPeak()

	b.StartTimer()
	start := time.Now()
	index, err := c.fetchIndex(srv.URL + "/sitemap_index.xml")
	if err != nil {
		b.Fatal(err)
	}
	r.index = time.Since(start)
	for i, loc := range index {
		u, err := url.Parse(loc)
		if err != nil {
			b.Fatal(err)
		}
		began := time.Now()
		if err := c.fetchPage(srv.URL + u.Path); err != nil {
			b.Fatal(err)
		}
		took := time.Since(began)
		switch i {
		case 0:
			r.first = took
		case len(index) - 1:
			r.last = took
		}
		r.slowest = max(r.slowest, took)
	}
	r.total = time.Since(start)
	b.StopTimer()

	r.peakRSS = memstat.PeakRSS()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	st := sm.Stats()
	r.pages, r.urls, r.xmlBytes, r.gzipBytes = int64(len(index)), c.urls, c.xmlBytes, c.gzipBytes
	r.heap, r.cached, r.cachedDocs = int64(ms.HeapInuse), st.CachedBytes, st.CachedDocuments
	return r
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// crawler fetches sitemap files one after another with buffers it reuses,
// so that its own memory stays small and constant next to the server's.
type crawler struct {
	client    http.Client
	zr        *gzip.Reader
	buf       []byte
	count     urlCounter
	urls      int64
	xmlBytes  int64
	gzipBytes int64
}

// fetchIndex returns the locs of the sitemap index at u.
func (c *crawler) fetchIndex(u string) ([]string, error) {
	resp, err := c.client.Get(u)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	var idx struct {
		Locs []string `xml:"sitemap>loc"`
	}
	if err := xml.NewDecoder(resp.Body).Decode(&idx); err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	return idx.Locs, nil
}

// fetchPage fetches the .xml.gz file at u, decompresses it and discards it,
// counting its URLs and bytes.
func (c *crawler) fetchPage(u string) error {
	resp, err := c.client.Get(u)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	wire := &testkit.CountingReader{R: resp.Body}
	if c.zr == nil {
		if c.zr, err = gzip.NewReader(wire); err != nil {
			return fmt.Errorf("GET %s: %w", u, err)
		}
	} else if err := c.zr.Reset(wire); err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	if c.buf == nil {
		c.buf = make([]byte, 64<<10)
	}
	c.count = urlCounter{}
	n, err := io.CopyBuffer(&c.count, c.zr, c.buf)
	if err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	c.urls += int64(c.count.urls)
	c.xmlBytes += n
	c.gzipBytes += wire.N
	return nil
}

// urlCounter counts the <url> tags of a document written to it in pieces.
type urlCounter struct {
	urls int
	tail [2 * (len(urlTag) - 1)]byte // the stream's last bytes, then room for p's first
	n    int                         // bytes of tail in use, at most len(urlTag)-1
}

const urlTag = "<url>"

func (c *urlCounter) Write(p []byte) (int, error) {
	k := len(urlTag) - 1
	// A tag split between two writes starts in the tail and ends in p.
	joined := append(c.tail[:c.n], p[:min(len(p), k)]...)
	c.urls += bytes.Count(joined, []byte(urlTag)) + bytes.Count(p, []byte(urlTag))
	end := joined
	if len(p) >= k {
		end = p
	}
	c.n = copy(c.tail[:], end[len(end)-min(len(end), k):])
	return len(p), nil
}

func TestURLCounter(t *testing.T) {
	doc := []byte(strings.Repeat("<urlset><url><loc>x</loc></url>\n", 7) + "<url>")
	for _, size := range []int{1, 2, 3, 4, 5, 7, 100} {
		var c urlCounter
		for p := doc; len(p) > 0; p = p[min(len(p), size):] {
			c.Write(p[:min(len(p), size)])
		}
		if c.urls != 8 {
			t.Errorf("written %d bytes at a time: %d URLs, want 8", size, c.urls)
		}
	}
}
