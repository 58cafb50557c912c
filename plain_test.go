package sitemap

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"iter"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"github.com/freshmap/sitemap/internal/gzread"
	"github.com/freshmap/sitemap/internal/testkit"
)

// wideSource yields n URLs on page 1, each loc padded to locLen bytes.
func wideSource(n, locLen int) Source {
	lastmod := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	return SourceFunc{
		PagesFunc: func(context.Context) iter.Seq2[PageInfo, error] {
			return func(yield func(PageInfo, error) bool) { yield(PageInfo{Number: 1, LastMod: lastmod}, nil) }
		},
		URLsFunc: func(_ context.Context, page int64) iter.Seq2[URL, error] {
			return func(yield func(URL, error) bool) {
				if page != 1 {
					return
				}
				for i := range n {
					loc := "https://shop.example.com/products/" + strconv.Itoa(i) + "-"
					loc += strings.Repeat("organic-cotton-t-shirt-navy-", locLen/28+1)[:max(locLen-len(loc), 0)]
					if !yield(URL{Loc: loc, LastMod: lastmod}, nil) {
						return
					}
				}
			}
		},
	}
}

// plainPage returns a Sitemap whose page 1 (/sitemap-1.xml) is n wide
// URLs, cached, with its entry and XML. Its plain copies are off: plain
// XML is decompressed as it is served (plainCopies turns them on).
func plainPage(t testing.TB, n, locLen int) (*Sitemap, *entry, []byte) {
	t.Helper()
	clk := testkit.NewClock(time.Now())
	sm := newTestSitemap(t, Config{BaseURL: "https://shop.example.com", TTL: time.Hour, Now: clk.Now}, Section{Source: wideSource(n, locLen)})
	clk.Add(floorAhead) // the first clock is the Date: served as Last-Modified
	plainCopies(sm, false)
	if w := get(sm, "/sitemap-1.xml.gz"); w.Code != 200 {
		t.Fatalf("warm-up: %d", w.Code)
	}
	e, ok := cachedEntry(sm, pageKey(0, 1))
	if !ok {
		t.Fatal("page not cached")
	}
	xml := testkit.Gunzip(t, e.gz)
	if e.size != int64(len(xml)) {
		t.Fatalf("entry size %d, XML %d bytes", e.size, len(xml))
	}
	return sm, e, xml
}

// plainCopies turns sm's plain copies on, with their share of the budget,
// or off.
func plainCopies(sm *Sitemap, on bool) {
	sm.docs.cache.SetCopies(on)
}

// inflation counts the plain responses' decompression since it was taken.
type inflation struct{ streams, bytes int64 }

func inflationNow() inflation { return inflation{gzread.Streams.Load(), gzread.Inflated.Load()} }

func (a inflation) since() inflation {
	b := inflationNow()
	return inflation{b.streams - a.streams, b.bytes - a.bytes}
}

func TestPlainBodySeeker(t *testing.T) {
	var data []byte
	for i := range 40_000 { // 470 KB: several windows and deflate blocks
		data = fmt.Appendf(data, "<url><loc>https://example.com/%d</loc></url>\n", i*7919%100_003)
	}
	gz, sum, err := compress(6, func(w io.Writer) error { _, err := w.Write(data); return err })
	if err != nil {
		t.Fatal(err)
	}
	e := newEntry(gz, sum, 6, time.Time{}, time.Time{})
	b := gzread.Get(e.gz, e.size)
	defer gzread.Put(b)

	before := inflationNow()
	if n, err := b.Seek(0, io.SeekEnd); n != int64(len(data)) || err != nil {
		t.Fatalf("Seek(0, end) = %d, %v; want %d", n, err, len(data))
	}
	if n, err := b.Seek(0, io.SeekStart); n != 0 || err != nil {
		t.Fatalf("Seek(0, start) = %d, %v", n, err)
	}
	if d := before.since(); d != (inflation{}) {
		t.Errorf("seeking decompressed: %+v", d)
	}
	// Reads of every size, seeks from each whence, forward and back.
	if err := iotest.TestReader(b, data); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		off    int64
		whence int
		want   int64
	}{ // each after reading to the end
		{300_000, io.SeekStart, 300_000},
		{-10, io.SeekEnd, int64(len(data)) - 10},
		{100 - int64(len(data)), io.SeekCurrent, 100},
		{5, io.SeekEnd, int64(len(data)) + 5},
	} {
		if n, err := b.Seek(tc.off, tc.whence); n != tc.want || err != nil {
			t.Fatalf("Seek(%d, %d) = %d, %v; want %d", tc.off, tc.whence, n, err, tc.want)
		}
		got, err := io.ReadAll(b)
		if want := data[min(tc.want, int64(len(data))):]; err != nil || !bytes.Equal(got, want) {
			t.Fatalf("after Seek(%d, %d): read %d bytes, %v; want %d", tc.off, tc.whence, len(got), err, len(want))
		}
	}
	if _, err := b.Seek(-1, io.SeekStart); err == nil {
		t.Error("a negative position was accepted")
	}
	if b.Err() != nil {
		t.Errorf("error recorded: %v", b.Err())
	}
}

func TestPlainGet(t *testing.T) {
	sm, e, xml := plainPage(t, 20_000, 60)
	before := inflationNow()
	w := get(sm, "/sitemap-1.xml")
	if w.Code != 200 || !bytes.Equal(w.Body.Bytes(), xml) {
		t.Fatalf("GET: %d, %d bytes; want the %d bytes of XML", w.Code, w.Body.Len(), len(xml))
	}
	h := w.Header()
	if h.Get("Content-Length") != strconv.Itoa(len(xml)) || h.Get("Content-Encoding") != "" ||
		h.Get("Etag") != e.etagPlain[0] || h.Get("Vary") != "Accept-Encoding" || h.Get("Content-Type") != "application/xml; charset=utf-8" {
		t.Errorf("headers: %v", h)
	}
	if d := before.since(); d != (inflation{1, e.size}) {
		t.Errorf("decompression %+v, want one stream of %d bytes", d, e.size)
	}
	if got := sm.Stats().BytesServed; got < int64(len(xml)) {
		t.Errorf("BytesServed = %d, want at least %d", got, len(xml))
	}
}

// TestPlainNoInflate: HEAD and 304 on .xml answer from the entry, with
// no decompression at all.
func TestPlainNoInflate(t *testing.T) {
	sm, e, xml := plainPage(t, 20_000, 60)
	lm := get(sm, "/sitemap-1.xml.gz").Header().Get("Last-Modified")
	for _, tc := range []struct {
		method string
		hdr    []string
		want   int
	}{
		{http.MethodHead, nil, 200},
		{http.MethodHead, []string{"Range", "bytes=100-199"}, 206},
		{http.MethodHead, []string{"Range", "bytes=0-9,20-29"}, 200},
		{http.MethodGet, []string{"If-None-Match", e.etagPlain[0]}, 304},
		{http.MethodGet, []string{"If-None-Match", `"x", W/` + e.etagPlain[0]}, 304},
		{http.MethodGet, []string{"If-Modified-Since", lm}, 304},
		{http.MethodHead, []string{"If-None-Match", e.etagPlain[0]}, 304},
		{http.MethodGet, []string{"If-Match", `"other"`}, 412},
		{http.MethodGet, []string{"Range", "bytes=99999999-"}, 416},
	} {
		t.Run(fmt.Sprint(tc.method, tc.hdr), func(t *testing.T) {
			before := inflationNow()
			w := do(sm, tc.method, "/sitemap-1.xml", tc.hdr...)
			if w.Code != tc.want || w.Body.Len() != 0 && tc.want != 416 {
				t.Fatalf("status %d with %d body bytes, want %d", w.Code, w.Body.Len(), tc.want)
			}
			if d := before.since(); d != (inflation{}) {
				t.Errorf("decompressed %+v", d)
			}
			want := map[int]string{200: strconv.Itoa(len(xml)), 206: "100"}[tc.want]
			if got := w.Header().Get("Content-Length"); got != want {
				t.Errorf("Content-Length %q, want %q", got, want)
			}
		})
	}
}

func TestPlainRange(t *testing.T) {
	sm, _, xml := plainPage(t, 20_000, 60)
	size := int64(len(xml))
	for rng, want := range map[string][2]int64{ // Range → [first, last] byte
		"bytes=0-0":                          {0, 0},
		"bytes=10-19":                        {10, 19},
		"bytes=1000000-1065535":              {1_000_000, 1_065_535},
		"bytes=-100":                         {size - 100, size - 1},
		"bytes=2000000-":                     {2_000_000, size - 1},
		fmt.Sprintf("bytes=%d-", size-1):     {size - 1, size - 1},
		fmt.Sprintf("bytes=5-%d", size+1000): {5, size - 1},
	} {
		t.Run(rng, func(t *testing.T) {
			before := inflationNow()
			w := get(sm, "/sitemap-1.xml", "Range", rng)
			first, last := want[0], want[1]
			if w.Code != http.StatusPartialContent || !bytes.Equal(w.Body.Bytes(), xml[first:last+1]) {
				t.Fatalf("status %d, %d bytes; want 206 with bytes %d-%d", w.Code, w.Body.Len(), first, last)
			}
			if got, want := w.Header().Get("Content-Range"), fmt.Sprintf("bytes %d-%d/%d", first, last, size); got != want {
				t.Errorf("Content-Range %q, want %q", got, want)
			}
			if got := w.Header().Get("Content-Length"); got != strconv.FormatInt(last-first+1, 10) {
				t.Errorf("Content-Length %q for %d bytes", got, last-first+1)
			}
			// Decompressed up to the range's end, and no further.
			if d := before.since(); d != (inflation{1, last + 1}) {
				t.Errorf("decompression %+v, want one stream of %d bytes", d, last+1)
			}
		})
	}
}

// TestPlainMultiRange: several ranges on .xml get the whole XML (200), in
// one decompression, whatever their order; and so does the gzip file
// (TestMultiRange).
func TestPlainMultiRange(t *testing.T) {
	sm, _, xml := plainPage(t, 20_000, 60)
	many := "bytes=" + strings.Repeat("2000000-2000000,", 500) + "0-0"
	for _, rng := range []string{"bytes=0-9,20-29", "bytes=20-29,0-9", "bytes=-10,0-9", "bytes=0-9,", many} {
		before := inflationNow()
		w := get(sm, "/sitemap-1.xml", "Range", rng)
		if w.Code != 200 || !bytes.Equal(w.Body.Bytes(), xml) || w.Header().Get("Content-Range") != "" ||
			w.Header().Get("Content-Length") != strconv.Itoa(len(xml)) {
			t.Errorf("%.40s: status %d, %d bytes, %v; want the whole XML", rng, w.Code, w.Body.Len(), w.Header())
		}
		if d := before.since(); d != (inflation{1, int64(len(xml))}) {
			t.Errorf("%.40s: decompression %+v, want one stream of the page", rng, d)
		}
	}
	w := get(sm, "/sitemap-1.xml.gz", "Range", "bytes=20-29,0-9")
	if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "application/gzip" {
		t.Errorf(".xml.gz multi-range: %d %v", w.Code, w.Header())
	}
}

// serveRecover serves a request on h, returning what it panicked with.
func serveRecover(h http.Handler, r *http.Request) (w *httptest.ResponseRecorder, p any) {
	w = httptest.NewRecorder()
	defer func() { p = recover() }()
	h.ServeHTTP(w, r)
	return w, nil
}

// TestPlainCorrupt: a cached page that fails to decompress (it cannot
// happen unless memory is corrupted) never ends in a 200 or 206 for bytes
// that are not the page: a 500 without validators if nothing was sent
// yet, else the connection is cut.
func TestPlainCorrupt(t *testing.T) {
	sm, e, _ := plainPage(t, 20_000, 60)
	k := pageKey(0, 1)
	breakEntry := func(gz []byte, size int64) {
		b := e.renewed(e.built)
		b.gz, b.size = gz, size
		sm.docs.cache.Add(k, newSlot(b, 0))
	}
	crc := bytes.Clone(e.gz)
	crc[len(crc)-8] ^= 0xff
	for _, tc := range []struct {
		name   string
		gz     []byte
		size   int64
		hdr    []string
		abort  bool
		wanted int
	}{
		{"bad header", []byte("not gzip at all, not at all"), e.size, nil, false, 500},
		{"bad header, range", []byte("not gzip at all, not at all"), e.size, []string{"Range", "bytes=100-199"}, false, 500},
		{"truncated", e.gz[:len(e.gz)/2], e.size, nil, true, 0},
		{"truncated, range past the cut", e.gz[:len(e.gz)/2], e.size, []string{"Range", "bytes=-100"}, false, 500},
		{"checksum", crc, e.size, nil, true, 0},
		{"shorter than recorded", e.gz, e.size + 10, nil, true, 0},
		{"longer than recorded", e.gz, e.size - 10, nil, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			breakEntry(tc.gz, tc.size)
			r := mustRequest("/sitemap-1.xml", tc.hdr...)
			w, p := serveRecover(sm, r)
			if tc.abort {
				if p != http.ErrAbortHandler {
					t.Fatalf("panic %v, want http.ErrAbortHandler (status %d, %d bytes)", p, w.Code, w.Body.Len())
				}
				return
			}
			if p != nil || w.Code != tc.wanted {
				t.Fatalf("status %d, panic %v; want %d", w.Code, p, tc.wanted)
			}
			for _, h := range []string{"Etag", "Last-Modified", "Cache-Control", "Content-Range", "Vary"} {
				if v := w.Header().Get(h); v != "" {
					t.Errorf("%d carries %s: %q", w.Code, h, v)
				}
			}
		})
	}
	// On the wire, the cut body is an error for the client, not a page.
	breakEntry(e.gz[:len(e.gz)/2], e.size)
	srv := httptest.NewServer(sm)
	defer srv.Close()
	res, err := http.Get(srv.URL + "/sitemap-1.xml")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if body, err := io.ReadAll(res.Body); err == nil {
		t.Errorf("a truncated page was read whole: %d %d bytes", res.StatusCode, len(body))
	}
}

// TestPlainAllocs: a plain response allocates a few small objects, not
// the page nor a decompressor (both pooled).
func TestPlainAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items")
	}
	sm, _, _ := plainPage(t, 5_000, 60)
	r := mustRequest("/sitemap-1.xml")
	w := &discard{h: http.Header{}}
	sm.ServeHTTP(w, r) // fill the pools
	var before, after runtime.MemStats
	const n = 50
	runtime.ReadMemStats(&before)
	for range n {
		clear(w.h)
		sm.ServeHTTP(w, r)
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > 4<<10 {
		t.Errorf("a plain response allocates %d bytes, budget 4 KiB", per)
	}
}

// smallBuffers shrinks the kernel send buffer of every accepted connection,
// so that a handler writing to a client that does not read blocks within
// a few dozen KiB.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetWriteBuffer(16 << 10)
	}
	return c, err
}

// TestPlainConcurrentMemory: 300 clients that stop reading a cached 8 MB
// page as plain XML, all at once over a real server, raise the Go heap by
// less than 64 MiB: streamed, each holds a decompressor and a copy
// buffer, not the page; with plain copies on, the first plainHot hold
// those, and the others share the one copy that the next makes (counted
// in the cache's budget). The heap is measured twice: sampled every
// millisecond while the requests run, and after a GC at the moment every
// one of the 300 handlers is known to be in the middle of its body.
func TestPlainConcurrentMemory(t *testing.T) {
	for _, copies := range []bool{false, true} {
		t.Run(map[bool]string{false: "streamed", true: "copy"}[copies], func(t *testing.T) {
			plainConcurrentMemory(t, copies)
		})
	}
}

func plainConcurrentMemory(t *testing.T, copies bool) {
	const clients, budget = 300, 64 << 20
	sm, e, _ := plainPage(t, MaxURLs, 105)
	plainCopies(sm, copies)
	if e.size < 8e6 {
		t.Fatalf("page of %d bytes, want 8 MB", e.size)
	}
	var inFlight atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inFlight.Add(1)
		defer inFlight.Add(-1)
		sm.ServeHTTP(w, r)
	}))
	srv.Listener = smallBuffers{srv.Listener}
	srv.Start()
	defer srv.Close()
	dialer := &net.Dialer{}
	tr := &http.Transport{
		DisableCompression: true, // no Accept-Encoding: plain XML
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dialer.DialContext(ctx, network, addr)
			if tc, ok := c.(*net.TCPConn); ok {
				tc.SetReadBuffer(16 << 10)
			}
			return c, err
		},
	}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}

	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := int64(ms.HeapAlloc)
	var peak atomic.Int64
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			peak.Store(max(peak.Load(), int64(ms.HeapAlloc)))
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()

	var ready, done sync.WaitGroup
	release := make(chan struct{})
	errs := make(chan error, clients)
	for range clients {
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			isReady := sync.OnceFunc(ready.Done)
			defer isReady()
			res, err := client.Get(srv.URL + "/sitemap-1.xml")
			if err != nil {
				errs <- err
				return
			}
			defer res.Body.Close() // unread: the connection is dropped
			if res.StatusCode != 200 || res.ContentLength != e.size || res.Header.Get("Content-Encoding") != "" {
				errs <- fmt.Errorf("status %d, length %d, %v", res.StatusCode, res.ContentLength, res.Header)
				return
			}
			if _, err := io.CopyN(io.Discard, res.Body, 64<<10); err != nil {
				errs <- err
				return
			}
			isReady()
			<-release // a slow client: it reads no more for now
		}()
	}
	ready.Wait()
	serving := inFlight.Load()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	live := int64(ms.HeapAlloc)
	close(release)
	done.Wait()
	close(stop)
	<-stopped
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if serving != clients {
		t.Fatalf("%d of %d responses were in flight when the heap was measured", serving, clients)
	}
	growth, peakGrowth := live-base, peak.Load()-base
	t.Logf("%d plain responses of %.1f MB in flight: live heap +%.1f MiB (%.1f KiB each), sampled peak +%.1f MiB",
		clients, float64(e.size)/1e6, float64(growth)/(1<<20), float64(growth)/clients/1024, float64(peakGrowth)/(1<<20))
	if growth >= budget || peakGrowth >= budget {
		t.Errorf("the heap grew by %d bytes (live) and %d (peak), budget %d", growth, peakGrowth, budget)
	}
	if got := e.plain.Load() != nil; got != copies {
		t.Errorf("plain copy made: %v, want %v", got, copies)
	}
}
