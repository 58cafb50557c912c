package sitemap

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

// Issue 31, point 8: Close is bounded, and the process lives, whatever
// the application's hooks do on the library's goroutines.

// TestCloseBoundedHooks: a hook that hangs and ignores its context (an
// OnPurge told what a rebuild changed, an OnChange told it) does not hold
// Close past BuildTimeout. OnPurge's hang once held Close for more than
// 90 s (its purge.Timeout, then forever).
func TestCloseBoundedHooks(t *testing.T) {
	const timeout = 300 * time.Millisecond
	for name, hooked := range map[string]func(cfg *Config, entered func() bool, release <-chan struct{}){
		"OnPurge": func(cfg *Config, entered func() bool, release <-chan struct{}) {
			cfg.OnPurge = func(context.Context, Purge) error { entered(); <-release; return nil }
		},
		"OnChange": func(cfg *Config, entered func() bool, release <-chan struct{}) {
			cfg.OnChange = func(c Change) {
				if entered() { // the rebuild's, not the first build's
					<-release
				}
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			clk := testkit.NewClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
			src := newFake(20, 10)
			release, in := make(chan struct{}), make(chan struct{})
			var once sync.Once
			var armed atomic.Bool // after the first build
			cfg := Config{BaseURL: "https://example.com", BuildTimeout: timeout, Now: clk.Now, Logger: slog.New(slog.DiscardHandler)}
			hooked(&cfg, func() bool {
				if armed.Load() {
					once.Do(func() { close(in) })
				}
				return armed.Load()
			}, release)
			defer close(release) // the hook's goroutine ends with the test
			sm, err := New(cfg, Section{Source: src})
			if err != nil {
				t.Fatal(err)
			}
			get(sm, "/sitemap_index.xml")
			if w := get(sm, "/sitemap-1.xml.gz"); w.Code != http.StatusOK {
				t.Fatalf("GET: %d", w.Code)
			}
			armed.Store(true)
			src.edited = 1
			clk.Add(2 * time.Second)
			if err := sm.Invalidate("", 1); err != nil {
				t.Fatal(err)
			}
			select {
			case <-in:
			case <-time.After(10 * time.Second):
				t.Fatalf("%s was not called", name)
			}
			start := time.Now()
			sm.Close()
			if d := time.Since(start); d > timeout+time.Second {
				t.Errorf("Close took %v with %s hanging, want at most BuildTimeout (%v)", d, name, timeout)
			}
		})
	}
}

// TestHookPanics: a hook that panics (OnReject, OnNotice, OnChange) is
// recovered and logged, with its stack, at most once a minute whatever
// the number of calls; the build it was called from goes on and is
// served. OnPurge's is TestPurgePanics.
func TestHookPanics(t *testing.T) {
	var logs testkit.SyncBuffer
	urls := []URL{
		{Loc: "https://example.com/a", Priority: new(2.0)}, // noticed: its priority is left out
		{Loc: "https://elsewhere.example/b"},               // rejected
		{Loc: "https://elsewhere.example/c"},               // rejected
		{Loc: "https://example.com/d"},
	}
	sm := newTestSitemap(t, Config{Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		OnReject: func(string, int64, string, error) { panic("OnReject: boom") },
		OnNotice: func(string, int64, string, error) { panic("OnNotice: boom") },
		OnChange: func(Change) { panic("OnChange: boom") },
	}, Section{Source: FromSlice(urls, 0)})
	w := get(sm, "/sitemap-1.xml")
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "https://example.com/d") {
		t.Fatalf("the page whose hooks panicked: %d\n%s", w.Code, w.Body)
	}
	l := logs.String()
	if n := strings.Count(l, "an application hook panicked"); n != 1 || !strings.Contains(l, "stack=") || !strings.Contains(l, "boom") {
		t.Errorf("%d log lines of a hook's panic, want 1 with its stack:\n%s", n, l)
	}
	if strings.Contains(l, "build failed") {
		t.Errorf("a hook's panic failed the build:\n%s", l)
	}
	if got := sm.Stats().RejectedURLs; got != 2 {
		t.Errorf("RejectedURLs %d, want 2", got)
	}
}

// hangStore is a memStore whose Subscribe, after the first, blocks until
// released, whatever its context says.
type hangStore struct {
	*memStore
	calls   atomic.Int32
	entered chan struct{} // closed when a Subscribe blocks
	release chan struct{}
}

func (s *hangStore) Subscribe(ctx context.Context, ch string, f func([]byte)) (<-chan struct{}, error) {
	if s.calls.Add(1) > 1 {
		close(s.entered)
		<-s.release
		return nil, errors.New("released")
	}
	return s.memStore.Subscribe(ctx, ch, f)
}

// TestFleetCloseBounded: a Store that ignores its context while the
// replica subscribes again does not hold Close: the fleet waits for its
// subscription at most its bound, and says so.
func TestFleetCloseBounded(t *testing.T) {
	store := newMemStore()
	hs := &hangStore{memStore: store, entered: make(chan struct{}), release: make(chan struct{})}
	var logs testkit.SyncBuffer
	r := newUnitReplica(t, hs, slog.New(slog.NewTextHandler(&logs, nil)))
	defer close(hs.release)
	store.setDown(true) // the subscription breaks
	unitWait(t, "the subscription to break", func() bool { return r.f.breaks() >= 1 })
	store.setDown(false)
	select {
	case <-hs.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the replica did not subscribe again")
	}
	start := time.Now()
	r.f.close(200 * time.Millisecond)
	if d := time.Since(start); d > time.Second {
		t.Errorf("close took %v with the Store hanging, want about its bound of 200ms", d)
	}
	if !strings.Contains(logs.String(), "Close gave up waiting for the store's subscription") {
		t.Errorf("log:\n%s", logs.String())
	}
}
