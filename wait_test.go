package sitemap

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

// TestWaitBounded: a Source that ignores its context holds its build, but
// not the request: 503 with Retry-After after BuildTimeout, while the
// Source is still blocked; the held slot is logged once it returns.
func TestWaitBounded(t *testing.T) {
	src := newFake(10, 10)
	release := make(chan struct{})
	src.onURL = func(_ context.Context, _, i int64) error {
		if i == 0 {
			<-release // ignores ctx
		}
		return nil
	}
	var logs testkit.SyncBuffer
	sm := newTestSitemap(t, Config{BuildTimeout: 100 * time.Millisecond, MaxBuilds: 1, Logger: slog.New(slog.NewTextHandler(&logs, nil))},
		Section{Source: src})
	get(sm, "/sitemap_index.xml")
	w := get(sm, "/sitemap-1.xml.gz") // returns although the Source never does until released
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "60" {
		t.Errorf("status %d, Retry-After %q; want 503 with Retry-After", w.Code, w.Header().Get("Retry-After"))
	}
	time.Sleep(1250 * time.Millisecond) // hold the slot past BuildTimeout + 1 s
	close(release)
	waitFor(t, func() bool { return strings.Contains(logs.String(), "ignored the build timeout") })
	waitFor(t, func() bool { return sm.Stats().BuildErrors == 1 }) // and the build failed: its context had expired
}

// TestFailingPageBackoff: a cold page whose build fails is built once per
// RetryAfter, however many requests ask, and each failure is logged once.
func TestFailingPageBackoff(t *testing.T) {
	clk := testkit.NewClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	src := newFake(10, 10)
	started := make(chan struct{})
	release := make(chan struct{})
	src.onURL = func(_ context.Context, _, i int64) error {
		if i == 0 {
			close(started)
			<-release
			return errors.New("db down")
		}
		return nil
	}
	var logs testkit.SyncBuffer
	sm := newTestSitemap(t, Config{Now: clk.Now, Logger: slog.New(slog.NewTextHandler(&logs, nil))}, Section{Source: src})
	get(sm, "/sitemap_index.xml")

	// 50 requests wait for one failing build: one log line, not 50.
	var wg sync.WaitGroup
	codes := make(chan int, 200)
	for range 50 {
		wg.Go(func() { codes <- get(sm, "/sitemap-1.xml.gz").Code })
	}
	<-started
	waitFor(t, func() bool { return sm.docs.waiting.Load() == 50 })
	close(release)
	wg.Wait()
	// 150 more within RetryAfter: 503 at once, no build.
	for range 150 {
		codes <- get(sm, "/sitemap-1.xml.gz").Code
	}
	close(codes)
	for c := range codes {
		if c != http.StatusServiceUnavailable {
			t.Fatalf("status %d, want 503", c)
		}
	}
	if got := src.urlsCalls.Load(); got != 1 {
		t.Errorf("200 requests to a failing page built it %d times, want 1", got)
	}
	if n := strings.Count(logs.String(), "build failed"); n != 1 {
		t.Errorf("%d log lines for one failed build:\n%s", n, logs.String())
	}
}

// TestMaxWaiting: past MaxWaiting requests waiting for builds, the next
// one gets 503 at once.
func TestMaxWaiting(t *testing.T) {
	src := newFake(10, 10)
	release := make(chan struct{})
	src.onURL = func(_ context.Context, _, i int64) error {
		if i == 0 {
			<-release
		}
		return nil
	}
	sm := newTestSitemap(t, Config{MaxWaiting: 5}, Section{Source: src})
	get(sm, "/sitemap_index.xml")
	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() {
			if w := get(sm, "/sitemap-1.xml.gz"); w.Code != 200 {
				t.Errorf("a waiting request got %d", w.Code)
			}
		})
	}
	waitFor(t, func() bool { return sm.docs.waiting.Load() == 5 })
	if w := get(sm, "/sitemap-1.xml.gz"); w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" {
		t.Errorf("request past MaxWaiting: %d, want 503 with Retry-After", w.Code)
	}
	close(release)
	wg.Wait()
	if sm.docs.waiting.Load() != 0 {
		t.Errorf("%d still counted as waiting", sm.docs.waiting.Load())
	}
}

// TestCatchUpOneFlight: with a Store, requests for a page said to have
// changed wait for its rebuild (documents.catchUp), all of them on one flight, however many
// Invalidates come while they wait (each forgets the page's flight): the
// Source is read for the rebuild and the one after it that the rules of
// rebuilds ask for, not once per request; past MaxWaiting, and for a
// client that leaves, the old copy is served at once, as stale.
func TestCatchUpOneFlight(t *testing.T) {
	src := &revSource{fakeSource: newFake(10, 10)}
	release := make(chan struct{})
	var armed atomic.Bool
	src.onURL = func(_ context.Context, _, i int64) error {
		if i == 0 && armed.Load() {
			<-release
		}
		return nil
	}
	sm := replicas(t, newMemStore(), 1, src, Config{MaxWaiting: 30})[0] // with a Store: without one, the old copy is served (TestInvalidate)
	get(sm, "/sitemap_index.xml")
	old := get(sm, "/sitemap-1.xml.gz").Body.String()
	reads := src.urlsCalls.Load()
	armed.Store(true)
	src.rev.Add(1)
	sm.Invalidate("", 1)
	var wg sync.WaitGroup
	for i := range 30 {
		wg.Go(func() {
			if w := get(sm, "/sitemap-1.xml.gz"); w.Code != http.StatusOK || w.Body.String() == old {
				t.Errorf("waiting request %d: %d, or the old bytes", i, w.Code)
			}
		})
		sm.Invalidate("", 1)
	}
	waitFor(t, func() bool { return sm.docs.waiting.Load() == 30 })
	stale := sm.Stats().CacheStale
	if w := get(sm, "/sitemap-1.xml.gz"); w.Code != http.StatusOK || w.Body.String() != old {
		t.Errorf("request past MaxWaiting: %d, or not the old copy at once", w.Code)
	}
	ctx, cancel := context.WithCancel(context.Background())
	left := make(chan *httptest.ResponseRecorder)
	go func() {
		w := httptest.NewRecorder()
		sm.Handler(nil).ServeHTTP(w, httptest.NewRequestWithContext(ctx, http.MethodGet, "https://example.com/sitemap-1.xml.gz", nil))
		left <- w
	}()
	cancel()
	if w := <-left; w.Code == http.StatusOK && w.Body.String() != old {
		t.Error("a client that left got the new bytes before they were built")
	}
	if got := sm.Stats().CacheStale - stale; got != 2 {
		t.Errorf("%d requests counted stale, want 2 (past MaxWaiting, and the one that left)", got)
	}
	close(release)
	wg.Wait()
	rebuildsIdle(t, sm)
	if got := src.urlsCalls.Load() - reads; got < 1 || got > 3 {
		t.Errorf("%d page reads for 30 waiting requests and 31 Invalidates, want 1 to 3", got)
	}
}
