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
)

// TestCrawlMemory measures what serving a big table costs: it builds the
// benchmarks' products table of SITEMAP_CRAWL_ROWS rows (see bench_test.go)
// in SQLite, and in PostgreSQL when its DSN is set, serves it through
// sitemap.New with a cache of SITEMAP_CRAWL_CACHE_MB MiB (a comma-separated
// list, default 64), and fetches the index and then every page once, in
// order, decompressing and discarding each as a crawler would. It logs the
// time of the whole crawl, of the index and of the first and last page
// (all built cold), the peak RSS of the process during the crawl, the Go
// heap in use after a GC, and the bytes the cache holds. The peak should
// follow the cache budget, not the table. Run it with -v and no timeout:
//
//	SITEMAP_CRAWL_ROWS=10000000 SITEMAP_CRAWL_CACHE_MB=16,128 go test -run TestCrawlMemory -v -timeout 0 ./adapters/sqlsource
//
// Without SITEMAP_CRAWL_ROWS it is skipped, so CI never runs it.
func TestCrawlMemory(t *testing.T) {
	s := os.Getenv("SITEMAP_CRAWL_ROWS")
	if s == "" {
		t.Skip("crawl measurement skipped: set SITEMAP_CRAWL_ROWS (such as 10000000) and optionally SITEMAP_CRAWL_CACHE_MB (such as 16,128) to run it, with -v -timeout 0")
	}
	rows, err := strconv.ParseInt(s, 10, 64)
	if err != nil || rows < 1 {
		t.Fatalf("SITEMAP_CRAWL_ROWS=%q: want a positive number", s)
	}
	caches := []int64{64}
	if s := os.Getenv("SITEMAP_CRAWL_CACHE_MB"); s != "" {
		caches = caches[:0]
		for _, f := range strings.Split(s, ",") {
			mb, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
			if err != nil || mb < 1 {
				t.Fatalf("SITEMAP_CRAWL_CACHE_MB=%q: want positive numbers of MiB, comma-separated", s)
			}
			caches = append(caches, mb)
		}
	}
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			bt := getBenchTable(t, name, rows)
			for _, mb := range caches {
				t.Run(fmt.Sprintf("cache=%dMiB", mb), func(t *testing.T) {
					crawlOnce(t, name, bt, rows, mb<<20)
				})
			}
		})
	}
}

// crawlOnce serves bt with a cache of cacheBytes and crawls it once.
func crawlOnce(t *testing.T, name string, bt *benchTable, rows, cacheBytes int64) {
	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://shop.example.com", CacheBytes: cacheBytes},
		sitemap.Section{Name: "products", Source: bt.src})
	if err != nil {
		t.Fatal(err)
	}
	defer sm.Close()
	srv := httptest.NewServer(sm)
	defer srv.Close()
	var c crawler

	// Measure from a clean heap: what building the table left behind is
	// given back, and the peak starts from the RSS of now.
	runtime.GC()
	debug.FreeOSMemory()
	rssBefore := memstat.RSS()
	memstat.ResetPeak()

	start := time.Now()
	index, err := c.fetchIndex(srv.URL + "/sitemap_index.xml")
	if err != nil {
		t.Fatal(err)
	}
	indexTime := time.Since(start)
	var first, last, slowest time.Duration
	for i, loc := range index {
		u, err := url.Parse(loc)
		if err != nil {
			t.Fatal(err)
		}
		began := time.Now()
		if err := c.fetchPage(srv.URL + u.Path); err != nil {
			t.Fatal(err)
		}
		took := time.Since(began)
		switch i {
		case 0:
			first = took
		case len(index) - 1:
			last = took
		}
		slowest = max(slowest, took)
	}
	total := time.Since(start)
	peak := memstat.PeakRSS()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	st := sm.Stats()

	wantURLs := rows - (rows+24)/50 // the rows with i % 50 == 25 are not published
	if int64(len(index)) != bt.pages || c.urls != wantURLs {
		t.Errorf("%d pages with %d URLs, want %d with %d", len(index), c.urls, bt.pages, wantURLs)
	}
	if st.CachedBytes > cacheBytes {
		t.Errorf("the cache holds %d bytes, more than its budget of %d", st.CachedBytes, cacheBytes)
	}
	t.Logf("%s, %d rows, cache %s: %d pages, %d URLs, %s of XML (%s gzip) in %v; index %v; first page %v, last %v, slowest %v",
		name, rows, mib(cacheBytes), len(index), c.urls, mib(c.xmlBytes), mib(c.gzipBytes), total.Round(time.Millisecond),
		indexTime.Round(time.Millisecond), first.Round(time.Millisecond), last.Round(time.Millisecond), slowest.Round(time.Millisecond))
	t.Logf("%s, %d rows, cache %s: peak RSS %s (%s before the crawl, +%s); Go heap in use after GC %s; cache holds %s in %d pages",
		name, rows, mib(cacheBytes), mib(peak), mib(rssBefore), mib(peak-rssBefore), mib(int64(ms.HeapInuse)), mib(st.CachedBytes), st.CachedDocuments)
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
	wire := &countingReader{r: resp.Body}
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
	c.gzipBytes += wire.n
	return nil
}

type countingReader struct {
	r io.Reader
	n int64
}

func (r *countingReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.n += int64(n)
	return n, err
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
