package sitemap

import (
	"bytes"
	"context"
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

// TestCloseStopsEverything: Close stops every goroutine a Sitemap started:
// the fleet's subscription (whose goroutine in memStore ends with its
// context), background refreshes and an Invalidate's rebuilds, and the
// IndexNow sender.
func TestCloseStopsEverything(t *testing.T) {
	ep := newEndpoint(t, nil, nil)
	st := newMemStore()
	before := runtime.NumGoroutine()
	sm, err := New(Config{BaseURL: inBase, Store: st, TTL: time.Millisecond,
		IndexNow: &IndexNow{Key: testKey, Endpoints: []string{ep.url()}}}, Section{Source: newFake(20, 5)})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return st.subscribers() == 1 })
	for p := range 4 {
		get(sm, "/sitemap-"+string(rune('1'+p))+".xml.gz")
	}
	time.Sleep(2 * time.Millisecond)
	get(sm, "/sitemap-1.xml.gz") // stale: a refresh starts
	if err := sm.Invalidate(""); err != nil {
		t.Fatal(err)
	}
	sm.Notify(inBase + "p/1")
	sm.Close()
	waitGoroutines(t, before)
}

// TestCloseBounded: a background refresh whose Source ignores its context
// holds Close at most BuildTimeout; Close then names it in one log line and
// returns. When the Source returns at last, its build keeps nothing, is no
// build error and logs no failure.
func TestCloseBounded(t *testing.T) {
	clk := testkit.NewClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	src := newFake(10, 10)
	var logs testkit.SyncBuffer
	sm, err := New(Config{BaseURL: "https://example.com", TTL: time.Minute, Now: clk.Now, BuildTimeout: 100 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))}, Section{Source: src})
	if err != nil {
		t.Fatal(err)
	}
	good := get(sm, "/sitemap-1.xml.gz").Body.Bytes()
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	src.onURL = func(_ context.Context, _, i int64) error {
		if i == 0 {
			close(entered)
			<-release // ignores ctx
		}
		return nil
	}
	clk.Add(2 * time.Minute)
	get(sm, "/sitemap-1.xml.gz") // stale: served, and a refresh starts
	<-entered
	done := make(chan struct{})
	go func() { sm.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close waits for as long as a Source that ignores its context")
	}
	if n := strings.Count(logs.String(), "Close gave up"); n != 1 || !strings.Contains(logs.String(), "sitemap-1.xml.gz") {
		t.Errorf("%d lines naming the abandoned build, want 1 naming sitemap-1.xml.gz:\n%s", n, logs.String())
	}
	once.Do(func() { close(release) })
	sm.docs.wg.Wait() // the refresh ends
	if e, ok := cachedEntry(sm, pageKey(0, 1)); !ok || !bytes.Equal(e.gz, good) {
		t.Error("the build that ended after Close replaced the cached copy")
	}
	if w := get(sm, "/sitemap-1.xml.gz"); w.Code != 200 || !bytes.Equal(w.Body.Bytes(), good) {
		t.Errorf("after Close, the cached copy = %d", w.Code)
	}
	if n := sm.Stats().BuildErrors; n != 0 || strings.Contains(logs.String(), "build failed") {
		t.Errorf("the abandoned build counted %d errors, or was logged as failed:\n%s", n, logs.String())
	}
}

// builderFunc is a builder made of a function, to stand in for one.
type builderFunc func(ctx context.Context, j job) (*entry, effects, error)

func (f builderFunc) build(ctx context.Context, j job) (*entry, effects, error) { return f(ctx, j) }

// TestCloseLateBuild: a build that ends with a copy after Close (its
// builder ignored the context to the end) keeps, shares and tells
// nothing: not cached, no OnChange, no refresh started, no failure.
func TestCloseLateBuild(t *testing.T) {
	var changes atomic.Int64
	var logs testkit.SyncBuffer
	sm, err := New(Config{BaseURL: "https://example.com", BuildTimeout: 50 * time.Millisecond, OnChange: func(Change) { changes.Add(1) },
		Logger: slog.New(slog.NewTextHandler(&logs, nil))}, Section{Source: newFake(10, 10)})
	if err != nil {
		t.Fatal(err)
	}
	get(sm, "/sitemap_index.xml")
	pages := sm.docs.builders[docPage]
	entered, release, returned := make(chan struct{}), make(chan struct{}), make(chan struct{})
	sm.docs.builders[docPage] = builderFunc(func(ctx context.Context, j job) (*entry, effects, error) {
		close(entered)
		<-release
		e, fx, err := pages.build(context.WithoutCancel(ctx), j)
		fx.refresh = append(fx.refresh, indexKey)
		fx.change = &Change{Added: []string{"https://example.com/late"}}
		close(returned)
		return e, fx, err
	})
	answered := make(chan int)
	go func() { answered <- get(sm, "/sitemap-1.xml.gz").Code }()
	<-entered
	if code := <-answered; code != http.StatusServiceUnavailable {
		t.Errorf("a request past BuildTimeout = %d, want 503", code)
	}
	sm.Close()
	close(release)
	<-returned
	waitFor(t, func() bool { return sm.docs.loads.Len() == 0 })
	sm.docs.wg.Wait()
	if _, ok := cachedEntry(sm, pageKey(0, 1)); ok {
		t.Error("a build that ended after Close was cached")
	}
	if n := changes.Load(); n != 0 {
		t.Errorf("OnChange told %d times after Close", n)
	}
	if n := sm.Stats().BuildErrors; n != 0 || strings.Contains(logs.String(), "build failed") {
		t.Errorf("the late build counted %d errors, or was logged as failed:\n%s", n, logs.String())
	}
}

// TestCloseCancelledNotAnError: builds that Close cancels, for a request
// or in the background, are no build errors: not counted, not logged as
// failed, and their Source is not read again.
func TestCloseCancelledNotAnError(t *testing.T) {
	clk := testkit.NewClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	src := newFake(20, 10)
	var logs testkit.SyncBuffer
	sm, err := New(Config{BaseURL: "https://example.com", TTL: time.Minute, Now: clk.Now, BuildTimeout: time.Hour,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))}, Section{Source: src})
	if err != nil {
		t.Fatal(err)
	}
	get(sm, "/sitemap-1.xml.gz")
	entered := make(chan struct{}, 2)
	src.onURL = func(ctx context.Context, _, i int64) error {
		if i%10 == 0 {
			select {
			case entered <- struct{}{}:
			default:
			}
			<-ctx.Done() // a database that honours its context
			return ctx.Err()
		}
		return nil
	}
	clk.Add(2 * time.Minute)
	get(sm, "/sitemap-1.xml.gz") // stale: a refresh starts in the background
	answered := make(chan int)
	go func() { answered <- get(sm, "/sitemap-2.xml.gz").Code }()
	<-entered
	<-entered
	sm.Close()
	if code := <-answered; code != http.StatusServiceUnavailable {
		t.Errorf("a request whose build Close cancelled = %d, want 503", code)
	}
	sm.docs.wg.Wait()
	if n := sm.Stats().BuildErrors; n != 0 || strings.Contains(logs.String(), "build failed") {
		t.Errorf("builds cancelled by Close counted %d errors, or were logged as failed:\n%s", n, logs.String())
	}
	if w := get(sm, "/sitemap-2.xml.gz"); w.Code != http.StatusServiceUnavailable || src.urlsCalls.Load() != 3 {
		t.Errorf("after Close, a cold page = %d with %d reads, want 503 without a read", w.Code, src.urlsCalls.Load())
	}
}
