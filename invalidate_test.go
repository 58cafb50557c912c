package sitemap

import (
	"context"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

// TestInvalidate: the application says page 1 changed. Its rebuild starts
// at once, in the background; the old copy is served until it is ready;
// then the new bytes come under a new Last-Modified, and the index lists
// the new clock. Page 2 is untouched.
func TestInvalidate(t *testing.T) {
	clk := testkit.NewClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	src := newFake(20, 10)
	sm := newTestSitemap(t, Config{Now: clk.Now}, Section{Name: "p", Source: src})
	clk.Add(floorAhead) // at the first clock: served as Last-Modified
	get(sm, "/sitemap_index.xml")
	old1, old2 := get(sm, "/sitemap-p-1.xml"), get(sm, "/sitemap-p-2.xml")
	reads := src.urlsCalls.Load()

	started, release := make(chan struct{}), make(chan struct{})
	src.onURL = func(_ context.Context, page, i int64) error {
		if page == 1 && i == 0 {
			close(started)
			<-release
		}
		return nil
	}
	src.edited = 1           // the application's change, which Pages does not show
	clk.Add(2 * time.Second) // past the first clock, now the Date
	if err := sm.Invalidate("p", 1); err != nil {
		t.Fatal(err)
	}
	<-started // the rebuild started at once, without a request
	if w := get(sm, "/sitemap-p-1.xml"); w.Body.String() != old1.Body.String() || w.Header().Get("Last-Modified") != old1.Header().Get("Last-Modified") {
		t.Error("the old copy is not served while the new one is built")
	}
	close(release)
	sm.docs.wg.Wait()

	w := get(sm, "/sitemap-p-1.xml", "If-Modified-Since", old1.Header().Get("Last-Modified"))
	if w.Code != 200 || w.Body.String() == old1.Body.String() {
		t.Fatalf("after Invalidate: %d, same bytes %v", w.Code, w.Body.String() == old1.Body.String())
	}
	lm, _ := http.ParseTime(w.Header().Get("Last-Modified"))
	if was, _ := http.ParseTime(old1.Header().Get("Last-Modified")); !lm.After(was) {
		t.Errorf("Last-Modified %v, not after %v", lm, was)
	}
	if w := get(sm, "/sitemap-p-2.xml"); w.Body.String() != old2.Body.String() || w.Header().Get("Etag") != old2.Header().Get("Etag") {
		t.Error("page 2 changed")
	}
	if got := src.urlsCalls.Load() - reads; got != 1 {
		t.Errorf("%d page reads, want 1", got)
	}
	idx := get(sm, "/sitemap_index.xml").Body.String()
	if want := "sitemap-p-1.xml.gz</loc><lastmod>" + lm.Format("2006-01-02T15:04:05Z"); !strings.Contains(idx, want) {
		t.Errorf("the index does not list the new clock %s:\n%s", want, idx)
	}
}

// TestInvalidateAll rebuilds every cached page, then the index.
func TestInvalidateAll(t *testing.T) {
	src := newFake(30, 10)
	sm := newTestSitemap(t, Config{}, Section{Name: "p", Source: src}, Section{Name: "q", Source: newFake(5, 10)})
	for _, p := range []string{"/sitemap_index.xml", "/sitemap-p-1.xml", "/sitemap-p-3.xml", "/sitemap-q-1.xml"} {
		get(sm, p)
	}
	reads, indexReads := src.urlsCalls.Load(), src.pageCalls.Load()
	sm.InvalidateAll()
	sm.docs.wg.Wait()
	if got := src.urlsCalls.Load() - reads; got != 2 {
		t.Errorf("section p: %d page reads, want 2 (the cached pages)", got)
	}
	if got := src.pageCalls.Load() - indexReads; got != 1 {
		t.Errorf("%d index reads, want 1", got)
	}
	if got := sm.Stats().CacheHits; get(sm, "/sitemap-p-1.xml").Code != 200 || sm.Stats().CacheHits != got+1 {
		t.Error("a rebuilt page is not fresh")
	}
}

func TestInvalidateErrors(t *testing.T) {
	sm := newTestSitemap(t, Config{}, Section{Name: "p", Source: newFake(10, 10)})
	if err := sm.Invalidate("nope", 1); err == nil || !strings.Contains(err.Error(), `no section "nope"`) {
		t.Errorf("unknown section: %v", err)
	}
	// Page numbers that do not exist are ignored, and nothing is built
	// for a page that is not cached.
	if err := sm.Invalidate("p", 0, -1, 99); err != nil {
		t.Error(err)
	}
	sm.Close()
	if err := sm.Invalidate("p"); err != nil { // after Close: nothing starts
		t.Error(err)
	}
}

// peakGoroutines samples runtime.NumGoroutine until stop is called, and
// returns the highest it saw (itself included).
func peakGoroutines() (stop func() int) {
	var peak atomic.Int64
	done, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		for {
			if n := int64(runtime.NumGoroutine()); n > peak.Load() {
				peak.Store(n)
			}
			select {
			case <-done:
				return
			case <-time.After(20 * time.Microsecond):
			}
		}
	}()
	return func() int {
		close(done)
		<-ended
		return int(peak.Load())
	}
}

// rebuildsIdle waits until no rebuild of Invalidate waits or runs.
func rebuildsIdle(t *testing.T, sm *Sitemap) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if w, b := sm.docs.rebuilds.waiting(); w == 0 && b == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("Invalidate's rebuilds did not end")
		}
	}
	sm.docs.wg.Wait()
}

// TestInvalidateStorm: 100,000 Invalidates of one page, each after a
// change of the catalogue, as fast as they come. Each used to start its own
// background rebuild: 160,000 goroutines at once, and as many Source reads
// as the storm lasted builds. Now the page waits at most once (with the
// index after it), is rebuilt at most once a second, and afterwards serves
// the last change.
func TestInvalidateStorm(t *testing.T) {
	src := &revSource{fakeSource: newFake(10, 10)}
	sm := newTestSitemap(t, Config{}, Section{Source: src})
	get(sm, "/sitemap_index.xml")
	get(sm, "/sitemap-1.xml.gz")
	reads, indexReads := src.urlsCalls.Load(), src.pageCalls.Load()
	before := runtime.NumGoroutine()
	stop := peakGoroutines()
	const calls = 100_000
	most, start := 0, time.Now()
	for i := range calls {
		src.rev.Add(1)
		if err := sm.Invalidate("", 1); err != nil {
			t.Fatal(err)
		}
		if i%1000 == 0 {
			w, _ := sm.docs.rebuilds.waiting()
			most = max(most, w)
		}
	}
	storm := time.Since(start)
	peak := stop() - 1 // less the sampler
	rebuildsIdle(t, sm)
	t.Logf("figures: %d Invalidates in %v: %d goroutines at most (%d before), at most %d documents waiting; %d page reads, %d index reads",
		calls, storm.Round(time.Millisecond), peak, before, most, src.urlsCalls.Load()-reads, src.pageCalls.Load()-indexReads)
	// One rebuild at once, then at most one a second while the storm
	// lasts, and one after it: 2 for a storm of less than a second.
	limit := int64(storm/time.Second) + 2
	if peak > before+4 { // a worker and its build's compressor
		t.Errorf("%d goroutines during the storm, %d before: want a few workers at most", peak, before)
	}
	if most > 2 {
		t.Errorf("%d documents waiting for a rebuild: want the page and the index", most)
	}
	if got := src.urlsCalls.Load() - reads; got < 1 || got > limit {
		t.Errorf("%d page reads for a storm of %v, want 1 to %d", got, storm, limit)
	}
	if got := src.pageCalls.Load() - indexReads; got > limit {
		t.Errorf("%d index reads for a storm of %v, want at most %d", got, storm, limit)
	}
	e, ok := cachedEntry(sm, pageKey(0, 1))
	if !ok || !sm.docs.ledger.current(pageKey(0, 1), e.stamp) {
		t.Fatal("the page is not current after the storm")
	}
	hits := sm.Stats().CacheHits
	w := get(sm, "/sitemap-1.xml.gz")
	if want := "rev=" + strconv.Itoa(calls); !strings.Contains(string(testkit.Gunzip(t, w.Body.Bytes())), want) || sm.Stats().CacheHits != hits+1 {
		t.Errorf("after the storm the page does not serve %s from the cache", want)
	}
}

// TestInvalidateDuringRebuild: Invalidates that come while the page's
// rebuild reads the Source make it rebuilt once more after, not once per
// call, and the last change is served.
func TestInvalidateDuringRebuild(t *testing.T) {
	src := &revSource{fakeSource: newFake(10, 10)}
	sm := newTestSitemap(t, Config{}, Section{Source: src})
	get(sm, "/sitemap_index.xml")
	get(sm, "/sitemap-1.xml.gz")
	reading, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	src.onURL = func(_ context.Context, page, i int64) error {
		if i == 0 && src.urlsCalls.Load() == 2 { // the first rebuild
			once.Do(func() { close(reading) })
			<-release
		}
		return nil
	}
	src.rev.Add(1)
	if err := sm.Invalidate("", 1); err != nil {
		t.Fatal(err)
	}
	<-reading
	for range 1000 {
		src.rev.Add(1)
		if err := sm.Invalidate("", 1); err != nil {
			t.Fatal(err)
		}
	}
	close(release)
	rebuildsIdle(t, sm)
	if got := src.urlsCalls.Load(); got != 3 {
		t.Errorf("%d page reads, want 3: the first build, the held rebuild, one more after it", got)
	}
	if body := string(testkit.Gunzip(t, get(sm, "/sitemap-1.xml.gz").Body.Bytes())); !strings.Contains(body, "rev=1001<") && !strings.Contains(body, "rev=1001&") {
		t.Errorf("the page does not serve the last change, rev=1001:\n%.300s", body)
	}
}

// TestInvalidateStormFleet: the storm on one of two replicas that share a
// Store. Each call still tells the others (a generation and a message), but
// what it leaves is bounded on both: a goroutine or so, two page reads for
// the fleet, one mark per document, and both serve the last change after.
func TestInvalidateStormFleet(t *testing.T) {
	src := &revSource{fakeSource: newFake(250, 50)}
	sms := replicas(t, newMemStore(), 2, src, Config{})
	for _, sm := range sms {
		get(sm, "/sitemap_index.xml")
		get(sm, "/sitemap-1.xml.gz")
	}
	reads := src.urlsCalls.Load()
	before := runtime.NumGoroutine()
	stop := peakGoroutines()
	start := time.Now()
	const calls = 100_000
	for range calls {
		src.rev.Add(1)
		if err := sms[0].Invalidate("", 1); err != nil {
			t.Fatal(err)
		}
	}
	storm := time.Since(start)
	peak := stop() - 1
	want := "rev=" + strconv.Itoa(calls) + "<"
	for _, sm := range sms {
		waitFor(t, func() bool {
			return strings.Contains(string(testkit.Gunzip(t, get(sm, "/sitemap-1.xml.gz").Body.Bytes())), want)
		})
	}
	got := src.urlsCalls.Load() - reads
	t.Logf("figures: %d Invalidates in %v: %d goroutines at most (%d before), %d page reads, marks %d and %d",
		calls, storm.Round(time.Millisecond), peak, before, got, sms[0].docs.ledger.size(), sms[1].docs.ledger.size())
	if peak > before+5 { // a worker, a build's compressor, a timer's callback on the other
		t.Errorf("%d goroutines during the storm, %d before", peak, before)
	}
	if limit := int64(storm/time.Second) + 3; got > limit {
		t.Errorf("%d page reads for a storm of %v, want at most %d", got, storm, limit)
	}
	for i, sm := range sms {
		if n := sm.docs.ledger.size(); n > 2 {
			t.Errorf("replica %d: %d marks, want the page's and the index's", i, n)
		}
	}
}

// TestInvalidateCloseEndsWorkers: Close ends Invalidate's workers, the
// one that sleeps until a page's turn comes too.
func TestInvalidateCloseEndsWorkers(t *testing.T) {
	src := newFake(10, 10)
	before := runtime.NumGoroutine()
	sm, err := New(Config{BaseURL: "https://example.com"}, Section{Source: src})
	if err != nil {
		t.Fatal(err)
	}
	get(sm, "/sitemap_index.xml")
	get(sm, "/sitemap-1.xml.gz")
	sm.Invalidate("", 1)
	waitFor(t, func() bool { return src.urlsCalls.Load() == 2 })
	sm.Invalidate("", 1) // its turn comes in a second: a worker sleeps until then
	waitFor(t, sm.docs.rebuilds.q.Sleeping)
	sm.Close()
	waitGoroutines(t, before)
	if n := src.urlsCalls.Load(); n != 2 {
		t.Errorf("%d page reads: a rebuild ran after Close", n)
	}
}
