package sitemap

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
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
