package purge

import (
	"context"
	"errors"
	"log/slog"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

// waitFor polls cond for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// Files pushed within the delay of the first are one call, not before
// the delay, each file once; a file pushed after the call is the next
// one's; what is pushed after Close is dropped.
func TestBatches(t *testing.T) {
	var mu sync.Mutex
	var got []Batch
	p := New(func(_ context.Context, b Batch) error {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, b)
		return nil
	}, slog.New(slog.DiscardHandler))
	p.Delay = 200 * time.Millisecond
	start := time.Now()
	p.Push("a", []string{"https://x/a.xml.gz", "https://x/a.xml"})
	p.Push("b", []string{"https://x/b.xml.gz"})
	p.Push("a", []string{"https://x/a.xml.gz", "https://x/a.xml"})
	waitFor(t, "the first call", func() bool { mu.Lock(); defer mu.Unlock(); return len(got) == 1 })
	if d := time.Since(start); d < p.Delay {
		t.Errorf("told after %v, before the delay of %v", d, p.Delay)
	}
	p.Push("a", []string{"https://x/a.xml.gz"})
	p.Close(Timeout)
	p.Push("c", []string{"https://x/c.xml.gz"})
	mu.Lock()
	defer mu.Unlock()
	want := []Batch{
		{URLs: []string{"https://x/a.xml.gz", "https://x/a.xml", "https://x/b.xml.gz"}, Keys: []string{"a", "b"}},
		{URLs: []string{"https://x/a.xml.gz"}, Keys: []string{"a"}},
	}
	if !slices.EqualFunc(got, want, func(a, b Batch) bool { return slices.Equal(a.URLs, b.URLs) && slices.Equal(a.Keys, b.Keys) }) {
		t.Errorf("calls %v, want %v", got, want)
	}
}

// A callback that panics is recovered and logged with its stack; the
// purger goes on to the next batch, and Close returns.
func TestPanics(t *testing.T) {
	var logs testkit.SyncBuffer
	var mu sync.Mutex
	var calls int
	p := New(func(context.Context, Batch) error {
		mu.Lock()
		defer mu.Unlock()
		if calls++; calls == 1 {
			panic("CDN client: nil map")
		}
		return nil
	}, slog.New(slog.NewTextHandler(&logs, nil)))
	p.Delay = 10 * time.Millisecond
	p.Push("example.com/sitemap-1", []string{"https://example.com/sitemap-1.xml.gz"})
	waitFor(t, "the first call", func() bool { mu.Lock(); defer mu.Unlock(); return calls == 1 })
	p.Push("example.com/sitemap-2", []string{"https://example.com/sitemap-2.xml.gz"})
	waitFor(t, "the second call", func() bool { mu.Lock(); defer mu.Unlock(); return calls == 2 })
	p.Close(Timeout)
	if l := logs.String(); !strings.Contains(l, "OnPurge panicked") || !strings.Contains(l, "CDN client: nil map") || !strings.Contains(l, "stack=") {
		t.Errorf("log:\n%s", l)
	}
}

// Close waits for a callback that ignores its context no longer than its
// bound, and says so.
func TestHangs(t *testing.T) {
	var logs testkit.SyncBuffer
	release := make(chan struct{})
	defer close(release)
	p := New(func(context.Context, Batch) error { <-release; return errors.New("late") }, slog.New(slog.NewTextHandler(&logs, nil)))
	p.Push("example.com/sitemap-1", []string{"https://example.com/sitemap-1.xml.gz"})
	start := time.Now()
	p.Close(200 * time.Millisecond)
	if d := time.Since(start); d > time.Second {
		t.Errorf("Close took %v, want about its bound of 200ms", d)
	}
	if !strings.Contains(logs.String(), "Close gave up waiting for OnPurge") {
		t.Errorf("log:\n%s", logs.String())
	}
}

// A failing call is logged and not retried; Close tells what is queued
// and leaves no goroutine.
func TestClose(t *testing.T) {
	before := runtime.NumGoroutine()
	var calls atomic.Int32
	var logs testkit.SyncBuffer
	p := New(func(context.Context, Batch) error { calls.Add(1); return errors.New("CDN down") }, slog.New(slog.NewTextHandler(&logs, nil)))
	p.Delay = time.Hour // told by Close
	p.Push("example.com/sitemap-1", []string{"https://example.com/sitemap-1.xml.gz"})
	p.Close(Timeout)
	if n := calls.Load(); n != 1 {
		t.Errorf("%d calls, want 1", n)
	}
	if !strings.Contains(logs.String(), "CDN down") {
		t.Errorf("the failure is not logged: %s", logs.String())
	}
	waitFor(t, "the goroutines to end", func() bool { return runtime.NumGoroutine() <= before })
}
