package sitemap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

func TestColdPageSingleBuild(t *testing.T) {
	src := newFake(100, 50)
	release := make(chan struct{})
	var started atomic.Int64
	src.onURL = func(ctx context.Context, page, i int64) error {
		if i == 0 {
			started.Add(1)
			<-release
		}
		return nil
	}
	sm := newTestSitemap(t, Config{}, Section{Name: "p", Source: src, PageSize: 50})
	const n = 64
	var wg sync.WaitGroup
	codes := make([]int, n)
	bodies := make([][]byte, n)
	for i := range n {
		wg.Go(func() {
			w := get(sm, "/sitemap-p-1.xml.gz")
			codes[i], bodies[i] = w.Code, w.Body.Bytes()
		})
	}
	// Let every request reach the cache before the one build finishes.
	for sm.Stats().CacheMisses < n {
		runtimeYield()
	}
	close(release)
	wg.Wait()
	for i := range n {
		if codes[i] != 200 || !bytes.Equal(bodies[i], bodies[0]) {
			t.Fatalf("request %d: %d", i, codes[i])
		}
	}
	if got := src.urlsCalls.Load(); got != 1 {
		t.Errorf("%d concurrent cold requests read the source %d times, want 1", n, got)
	}
	get(sm, "/sitemap-p-1.xml.gz", "If-None-Match", get(sm, "/sitemap-p-1.xml.gz").Header().Get("Etag"))
	if got := src.urlsCalls.Load(); got != 1 {
		t.Errorf("cached requests read the source: %d calls", got)
	}
}

// waitFor waits until cond holds, for what ends on another goroutine
// after a response was sent (a build the request gave up on), and fails t
// after 30 s: it returns as soon as cond holds, so the bound only has to
// outlast a loaded machine (5 s failed 1 run in 20 of go test ./... at a
// load of 10-20 on 2 cores).
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatal("timed out after 30 s waiting for what runs on another goroutine")
		}
		time.Sleep(time.Millisecond)
	}
}

// runtimeYield lets other goroutines run while a test polls a condition
// that they will make true.
func runtimeYield() { runtime.Gosched() }

// TestMaxBuilds holds two builds inside the Source until released, so the
// two slots are taken for certain; a third page then cannot start its
// build: it waits for a slot until its BuildTimeout and gets 503 without
// reading the Source. No timing decides the outcome.
func TestMaxBuilds(t *testing.T) {
	src := newFake(1000, 10)
	entered := make(chan int64, 20)
	release := make(chan struct{})
	src.onURL = func(ctx context.Context, page, i int64) error {
		if i%10 == 0 {
			entered <- page
			if page <= 2 {
				<-release // ignores ctx: the slot stays taken until the test says
			}
		}
		return nil
	}
	clk := testkit.NewClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	sm := newTestSitemap(t, Config{MaxBuilds: 2, BuildTimeout: 100 * time.Millisecond, Now: clk.Now}, Section{Name: "p", Source: src, PageSize: 10})
	var wg sync.WaitGroup
	for p := 1; p <= 2; p++ {
		wg.Go(func() { get(sm, fmt.Sprintf("/sitemap-p-%d.xml.gz", p)) })
	}
	got := map[int64]bool{<-entered: true, <-entered: true} // both builds run at once
	if !got[1] || !got[2] {
		t.Fatalf("builds entered for pages %v, want 1 and 2", got)
	}
	if w := get(sm, "/sitemap-p-3.xml.gz"); w.Code != http.StatusServiceUnavailable {
		t.Errorf("a third build while two run: %d, want 503", w.Code)
	}
	// Its build gives up waiting for a slot at its own timeout, which
	// counts as a failure.
	waitFor(t, func() bool { return sm.Stats().BuildErrors == 1 })
	select {
	case p := <-entered:
		t.Errorf("page %d was read while both build slots were taken", p)
	default:
	}
	close(release)
	wg.Wait()
	waitFor(t, func() bool { held, _ := sm.docs.slots.held(); return held == 0 }) // the two builds ended: under load, they may take a while
	clk.Add(61 * time.Second)                                                     // past RetryAfter
	if w := get(sm, "/sitemap-p-3.xml.gz"); w.Code != 200 {
		t.Errorf("page 3 once the slots are free: %d", w.Code)
	}
}

// A source that panics halfway through a large page, while the gzip pipe
// compresses on its own goroutine, leaves no goroutine behind.
func TestPanicMidPipe(t *testing.T) {
	src := newFake(20_000, 20_000)
	src.onURL = func(_ context.Context, _, i int64) error {
		if i == 15_000 { // past the bytes compressed inline
			panic("driver bug")
		}
		return nil
	}
	sm := newTestSitemap(t, Config{}, Section{Source: src, PageSize: 20_000})
	before := runtime.NumGoroutine()
	for range 3 {
		if w := get(sm, "/sitemap-1.xml.gz"); w.Code != http.StatusServiceUnavailable {
			t.Fatalf("status %d", w.Code)
		}
	}
	// A goroutine that has handed over its result may take a moment to
	// return (more under the race detector): wait for it, but not forever.
	waitGoroutines(t, before)
}

func TestStaleWhileRevalidate(t *testing.T) {
	clk := testkit.NewClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	src := newFake(10, 10)
	sm := newTestSitemap(t, Config{TTL: time.Minute, Now: clk.Now}, Section{Source: src, PageSize: 10})
	old := get(sm, "/sitemap-1.xml").Body.String()

	// The catalogue changes; the cached copy stays fresh for its TTL.
	src.lastMod = src.lastMod.Add(24 * time.Hour)
	clk.Add(59 * time.Second)
	if get(sm, "/sitemap-1.xml").Body.String() != old || src.urlsCalls.Load() != 1 {
		t.Fatal("a fresh page was rebuilt")
	}

	// Expired: the stale copy is served at once, and one refresh runs.
	release := make(chan struct{})
	src.onURL = func(_ context.Context, _, i int64) error {
		if i == 0 {
			<-release
		}
		return nil
	}
	clk.Add(2 * time.Second)
	for range 10 {
		if get(sm, "/sitemap-1.xml").Body.String() != old {
			t.Fatal("stale copy not served while refreshing")
		}
	}
	close(release)
	sm.docs.wg.Wait()
	if got := src.urlsCalls.Load(); got != 2 {
		t.Errorf("source read %d times, want 2 (one refresh)", got)
	}
	if got := get(sm, "/sitemap-1.xml").Body.String(); got == old {
		t.Error("refreshed page not served")
	}
	if st := sm.Stats(); st.CacheStale != 10 || st.Builds != 3 { // the index, the page, its refresh
		t.Errorf("stats = %+v", st)
	}
}

func TestStaleIfError(t *testing.T) {
	clk := testkit.NewClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	src := newFake(10, 10)
	var logs bytes.Buffer
	sm := newTestSitemap(t, Config{TTL: time.Minute, Now: clk.Now, Logger: slog.New(slog.NewTextHandler(&logs, nil))},
		Section{Source: src, PageSize: 10})
	good := get(sm, "/sitemap-1.xml.gz")

	src.onURL = func(_ context.Context, _, i int64) error {
		if i == 7 {
			return errors.New("db went away mid-page")
		}
		return nil
	}
	clk.Add(2 * time.Minute)
	w := get(sm, "/sitemap-1.xml.gz")
	sm.docs.wg.Wait()
	if w.Code != 200 || !bytes.Equal(w.Body.Bytes(), good.Body.Bytes()) {
		t.Fatalf("stale copy not served: %d", w.Code)
	}
	if !strings.Contains(logs.String(), "serving the last good copy") {
		t.Errorf("refresh failure not logged:\n%s", logs.String())
	}
	// The failed refresh is not retried on every request, and the last good
	// copy keeps being served, with its own validators.
	for range 5 {
		w := get(sm, "/sitemap-1.xml.gz", "If-None-Match", good.Header().Get("Etag"))
		if w.Code != 304 {
			t.Fatalf("conditional request on the last good copy = %d", w.Code)
		}
	}
	sm.docs.wg.Wait()
	if got := src.urlsCalls.Load(); got != 2 {
		t.Errorf("source read %d times, want 2", got)
	}
	// After Retry-After, another refresh is tried; once the source heals,
	// the page is fresh again.
	src.onURL = nil
	clk.Add(61 * time.Second)
	get(sm, "/sitemap-1.xml.gz")
	sm.docs.wg.Wait()
	if got := src.urlsCalls.Load(); got != 3 {
		t.Errorf("source read %d times, want 3", got)
	}
	if e, _ := cachedEntry(sm, pageKey(0, 1)); !clk.Now().Before(e.built.Add(time.Minute)) {
		t.Error("page not fresh after a successful refresh")
	}
}

func TestRevalidateWithoutRebuild(t *testing.T) {
	clk := testkit.NewClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	src := newFake(20, 10)
	src.version = "v1"
	sm := newTestSitemap(t, Config{TTL: time.Minute, Now: clk.Now}, Section{Source: src, PageSize: 10})
	get(sm, "/sitemap_index.xml")
	get(sm, "/sitemap-1.xml.gz")
	get(sm, "/sitemap-2.xml.gz")

	clk.Add(2 * time.Minute)
	get(sm, "/sitemap_index.xml") // stale index: refreshed in the background
	sm.docs.wg.Wait()
	if src.pageCalls.Load() != 2 {
		t.Fatalf("index not refreshed: %d Pages calls", src.pageCalls.Load())
	}
	get(sm, "/sitemap-1.xml.gz") // stale page, same Version: renewed without a read
	sm.docs.wg.Wait()
	if got := src.urlsCalls.Load(); got != 2 {
		t.Errorf("source read %d times, want 2: an unchanged page was rebuilt", got)
	}
	if sm.Stats().Revalidated != 1 {
		t.Errorf("Revalidated = %d", sm.Stats().Revalidated)
	}
	if e, _ := cachedEntry(sm, pageKey(0, 1)); !clk.Now().Before(e.built.Add(time.Minute)) {
		t.Error("revalidated page is not fresh")
	}

	// A stale page whose index is stale too: the refresh renews the index
	// first, then the page without reading it.
	clk.Add(2 * time.Minute)
	get(sm, "/sitemap-2.xml.gz")
	sm.docs.wg.Wait()
	if got, pages := src.urlsCalls.Load(), src.pageCalls.Load(); got != 2 || pages != 3 {
		t.Errorf("source read %d times (want 2), Pages %d times (want 3)", got, pages)
	}

	// A new Version means a rebuild: the index that sees it starts one
	// for each cached page it names.
	src.version = "v2"
	clk.Add(2 * time.Minute)
	get(sm, "/sitemap_index.xml")
	sm.docs.wg.Wait()
	if got := src.urlsCalls.Load(); got != 4 {
		t.Errorf("source read %d times, want 4: the changed pages were not rebuilt", got)
	}
	get(sm, "/sitemap-2.xml.gz")
	sm.docs.wg.Wait()
	if got := src.urlsCalls.Load(); got != 4 {
		t.Errorf("source read %d times, want 4: a rebuilt page was read again", got)
	}
}

func TestClientCancelDoesNotCancelBuild(t *testing.T) {
	src := newFake(10, 10)
	release := make(chan struct{})
	src.onURL = func(_ context.Context, _, i int64) error {
		if i == 0 {
			<-release
		}
		return nil
	}
	sm := newTestSitemap(t, Config{}, Section{Source: src, PageSize: 10})
	ctx, cancel := context.WithCancel(context.Background())
	gone := make(chan int)
	go func() {
		r, _ := http.NewRequestWithContext(ctx, http.MethodGet, "/sitemap-1.xml.gz", nil)
		w := &recorder{header: http.Header{}}
		sm.ServeHTTP(w, r)
		gone <- w.code
	}()
	for sm.Stats().CacheMisses < 1 {
		runtimeYield()
	}
	cancel()
	<-gone
	other := make(chan int)
	go func() { other <- get(sm, "/sitemap-1.xml.gz").Code }()
	close(release)
	if code := <-other; code != 200 {
		t.Errorf("second client got %d after the first hung up", code)
	}
	if got := src.urlsCalls.Load(); got != 1 {
		t.Errorf("source read %d times, want 1", got)
	}
}

func TestCloseStopsRefreshes(t *testing.T) {
	clk := testkit.NewClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	src := newFake(10, 10)
	sm, err := New(Config{BaseURL: "https://example.com", TTL: time.Minute, Now: clk.Now, BuildTimeout: time.Hour},
		Section{Source: src, PageSize: 10})
	if err != nil {
		t.Fatal(err)
	}
	get(sm, "/sitemap-1.xml.gz")
	entered := make(chan struct{})
	src.onURL = func(ctx context.Context, _, i int64) error {
		if i == 0 {
			close(entered)
			<-ctx.Done() // a stalled database
			return ctx.Err()
		}
		return nil
	}
	clk.Add(2 * time.Minute)
	get(sm, "/sitemap-1.xml.gz")
	<-entered
	done := make(chan struct{})
	go func() { sm.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not stop a running refresh")
	}
	if w := get(sm, "/sitemap-1.xml.gz"); w.Code != 200 {
		t.Errorf("after Close, the cached copy = %d", w.Code)
	}
	sm.docs.wg.Wait() // no refresh was started after Close
}

// TestRejectedURLs: a URL whose loc breaks a rule is skipped and told to
// OnReject; one with a bad priority is written without it and told to
// OnNotice; both are counted, and logged in one line. Strict fails the
// page for either.
func TestRejectedURLs(t *testing.T) {
	src := FromSlice([]URL{
		{Loc: "https://example.com/ok"},
		{Loc: "https://evil.example/elsewhere"},
		{Loc: "https://example.com/bad-priority", Priority: new(1.5)},
		{Loc: "https://example.com/ok2"},
	}, 0)
	type report struct {
		section string
		page    int64
		loc     string
		field   string
	}
	var mu sync.Mutex
	var rejected, noticed []report
	hook := func(to *[]report) func(string, int64, string, error) {
		return func(section string, page int64, loc string, err error) {
			var bad *InvalidURLError
			if !errors.As(err, &bad) {
				t.Errorf("reported error %v is not an *InvalidURLError", err)
			}
			mu.Lock()
			*to = append(*to, report{section, page, loc, bad.Field})
			mu.Unlock()
		}
	}
	var logs bytes.Buffer
	cfg := Config{Logger: slog.New(slog.NewTextHandler(&logs, nil)), OnReject: hook(&rejected), OnNotice: hook(&noticed)}
	sm := newTestSitemap(t, cfg, Section{Name: "s", Source: src})
	body := get(sm, "/sitemap-s-1.xml").Body.String()
	if strings.Count(body, "<url>") != 3 || strings.Contains(body, "evil") || strings.Contains(body, "<priority>") ||
		!strings.Contains(body, "<url><loc>https://example.com/bad-priority</loc></url>") {
		t.Errorf("page:\n%s", body)
	}
	if want := []report{{"s", 1, "https://evil.example/elsewhere", "loc"}}; fmt.Sprint(rejected) != fmt.Sprint(want) {
		t.Errorf("rejections = %v, want %v", rejected, want)
	}
	if want := []report{{"s", 1, "https://example.com/bad-priority", "priority"}}; fmt.Sprint(noticed) != fmt.Sprint(want) {
		t.Errorf("notices = %v, want %v", noticed, want)
	}
	if st := sm.Stats(); st.RejectedURLs != 1 || st.DroppedElements != 1 || st.CorrectedURLs != 1 {
		t.Errorf("stats %+v", st)
	}
	if l := logs.String(); strings.Count(l, "level=WARN") != 1 || !strings.Contains(l, "skipped=1 dropped=1") ||
		!strings.Contains(l, `reasons="loc: not under the sitemap's base URL: 1; priority: outside 0.0-1.0: 1"`) {
		t.Errorf("rejections not logged in one line:\n%s", l)
	}

	cfg.Strict, cfg.OnReject, cfg.OnNotice = true, nil, nil
	for _, urls := range [][]URL{
		{{Loc: "https://example.com/ok"}, {Loc: "https://evil.example/elsewhere"}},
		{{Loc: "https://example.com/ok"}, {Loc: "https://example.com/bad-priority", Priority: new(1.5)}},
	} {
		strict := newTestSitemap(t, cfg, Section{Name: "s", Source: FromSlice(urls, 0)})
		if w := get(strict, "/sitemap-s-1.xml"); w.Code != 503 {
			t.Errorf("strict page with %s = %d, want 503", urls[1].Loc, w.Code)
		}
	}
}

// TestIndexNeverListsA404: a page whose every URL is rejected is still
// listed by the index (which reads no URL), so it answers an empty
// <urlset>, 200, with validators, and the rejections are reported; it
// once answered 404 (TestAllRejectedIs404 held that). A page that its
// Source no longer lists stays 404 (TestPageVanishes).
func TestIndexNeverListsA404(t *testing.T) {
	var mu sync.Mutex
	var rejected []string
	urls := []URL{{Loc: "https://example.com/ok"}, {Loc: "ftp://example.com/x"}, {Loc: "https://evil.example/y"}}
	sm := newTestSitemap(t, Config{OnReject: func(_ string, page int64, loc string, _ error) {
		mu.Lock()
		defer mu.Unlock()
		rejected = append(rejected, fmt.Sprint(page, " ", loc))
	}}, Section{Source: FromSlice(urls, 1)})
	idx := get(sm, "/sitemap_index.xml").Body.String()
	for n := 1; n <= 3; n++ {
		path := fmt.Sprintf("/sitemap-%d.xml", n)
		if !strings.Contains(idx, "https://example.com"+path+".gz</loc>") {
			t.Fatalf("the index does not list %s:\n%s", path, idx)
		}
		w := get(sm, path)
		if w.Code != http.StatusOK || w.Header().Get("Etag") == "" {
			t.Errorf("%s, listed by the index: %d, ETag %q; want 200 with one", path, w.Code, w.Header().Get("Etag"))
			continue
		}
		if locs := urlsetLocs(t, w.Body.String()); n == 1 && len(locs) != 1 || n > 1 && len(locs) != 0 {
			t.Errorf("%s: locs %q", path, locs)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if got := strings.Join(rejected, "|"); got != "2 ftp://example.com/x|3 https://evil.example/y" {
		t.Errorf("rejected %q", got)
	}
	if w := get(sm, "/sitemap-4.xml"); w.Code != http.StatusNotFound {
		t.Errorf("a page the index does not list: %d, want 404", w.Code)
	}
}
