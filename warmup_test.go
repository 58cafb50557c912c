package sitemap

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// pacer gives a warm-up's starts by hand: the warm-up says it waits on
// ready, and starts one file per tick.
type pacer struct {
	ready chan struct{}
	tick  chan struct{}
}

// handPaced makes the warmers of t's Sitemaps wait for p's ticks.
func handPaced(t *testing.T) *pacer {
	p := &pacer{ready: make(chan struct{}), tick: make(chan struct{})}
	testWarmPace = func(ctx context.Context) error {
		select {
		case p.ready <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
		select {
		case <-p.tick:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	t.Cleanup(func() { testWarmPace = nil })
	return p
}

// next lets the warm-up start one file, once it waits.
func (p *pacer) next(t *testing.T) {
	t.Helper()
	select {
	case <-p.ready:
	case <-time.After(10 * time.Second):
		t.Fatal("the warm-up does not ask to start a file")
	}
	p.tick <- struct{}{}
}

// waiting waits until the warm-up waits to start its next file, which,
// with one worker, is after the file before it was built.
func (p *pacer) waiting(t *testing.T) {
	t.Helper()
	select {
	case <-p.ready:
	case <-time.After(10 * time.Second):
		t.Fatal("the warm-up does not ask to start a file")
	}
}

// waitStats polls sm's Stats until ok says so, for at most 10 seconds.
func waitStats(t *testing.T, sm *Sitemap, ok func(Stats) bool) Stats {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		st := sm.Stats()
		if ok(st) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("stats never came: %+v", st)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestWarmUpPaced: after New, the warm-up builds the index, then each page
// it lists, one per start of its pace and one at a time; then every
// request is a cache hit, and the warm-up counted as none.
func TestWarmUpPaced(t *testing.T) {
	p := handPaced(t)
	f := newFake(50, 10) // 5 pages
	sm := newTestSitemap(t, Config{WarmUp: &WarmUp{}}, Section{Name: "p", Source: f, PageSize: 10})
	for range 3 { // the index, pages 1 and 2
		p.next(t)
	}
	p.waiting(t) // page 3 waits for its start: the others are built
	if pages, urls := f.pageCalls.Load(), f.urlsCalls.Load(); pages != 1 || urls != 2 {
		t.Fatalf("after 3 starts: %d Pages and %d URLs calls, want 1 and 2", pages, urls)
	}
	p.tick <- struct{}{}
	p.next(t)
	p.next(t)
	st := waitStats(t, sm, func(st Stats) bool { return st.WarmedFiles == 6 })
	if st.WarmUps != 1 || st.CacheHits != 0 || st.CacheMisses != 0 || st.Builds != 6 {
		t.Errorf("stats %+v: want 1 pass, 6 builds, no request counted", st)
	}
	for n := 1; n <= 5; n++ {
		if w := get(sm, fmt.Sprintf("/sitemap-p-%d.xml.gz", n)); w.Code != 200 {
			t.Errorf("page %d: %d", n, w.Code)
		}
	}
	if st := sm.Stats(); st.CacheMisses != 0 || st.CacheHits != 5 || f.urlsCalls.Load() != 5 {
		t.Errorf("after the warm-up, requests: %d hits, %d misses, %d URLs calls; want 5, 0, 5", st.CacheHits, st.CacheMisses, f.urlsCalls.Load())
	}
}

// TestWarmUpInvalidateAllStorm: 100,000 InvalidateAll calls start one
// pass, which waits for its pace through the storm, and one more, never
// one per call: the goroutines stay bounded, and the warm-up builds each
// file once more at most.
func TestWarmUpInvalidateAllStorm(t *testing.T) {
	p := handPaced(t)
	f := newFake(30, 10) // 3 pages
	sm := newTestSitemap(t, Config{WarmUp: &WarmUp{}}, Section{Name: "p", Source: f, PageSize: 10})
	for range 4 { // pass 1: the index and 3 pages
		p.next(t)
	}
	waitStats(t, sm, func(st Stats) bool { return st.WarmedFiles == 4 })
	before := runtime.NumGoroutine()
	for range 100_000 {
		sm.InvalidateAll()
	}
	if n := runtime.NumGoroutine(); n > before+10 {
		t.Errorf("%d goroutines after the storm, %d before", n, before)
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() { // every start given at once from now on
		defer close(done)
		for {
			select {
			case <-p.ready:
				p.tick <- struct{}{}
			case <-stop:
				return
			}
		}
	}()
	defer func() { close(stop); <-done }()
	waitStats(t, sm, func(st Stats) bool { return st.WarmUps >= 2 })
	time.Sleep(200 * time.Millisecond) // room for more passes, if there were any to come
	st := sm.Stats()
	if st.WarmUps > 3 {
		t.Errorf("%d passes after 100,000 InvalidateAll calls, want 2 or 3", st.WarmUps)
	}
	// Pass 2 waited for its first start through the storm, and ended
	// there for the calls after it; pass 3 built what Invalidate's own
	// rebuilds (about one a second per page) had not.
	if st.WarmedFiles > 4+4 {
		t.Errorf("the warm-up built %d files, want 4 and at most 4 more", st.WarmedFiles)
	}
}

// TestWarmUpClose: Close ends a warm-up waiting to start a file, and
// leaves no goroutine.
func TestWarmUpClose(t *testing.T) {
	p := handPaced(t)
	before := runtime.NumGoroutine()
	sm, err := New(Config{BaseURL: "https://example.com", WarmUp: &WarmUp{}}, Section{Source: newFake(30, 10), PageSize: 10})
	if err != nil {
		t.Fatal(err)
	}
	p.waiting(t)
	sm.Close()
	waitGoroutines(t, before)
	sm.InvalidateAll() // after Close: no pass, no goroutine
	waitGoroutines(t, before)
}

// TestWarmUpWorkers: at the Rate given, every file is warmed, the
// feed too, and never more than Workers at once.
func TestWarmUpWorkers(t *testing.T) {
	src := &concurrentSource{fake: newFake(80, 10)} // 8 pages
	sm := newTestSitemap(t, Config{WarmUp: &WarmUp{Rate: 1e6, Workers: 2}, MaxBuilds: 3},
		Section{Name: "p", Source: src, PageSize: 10})
	st := waitStats(t, sm, func(st Stats) bool { return st.WarmedFiles == 9 })
	if got := src.most.Load(); got > 2 || st.WarmUps != 1 {
		t.Errorf("%d pages read at once, %d passes; want at most 2, and 1", got, st.WarmUps)
	}
}

// concurrentSource is a fakeSource that counts the most pages read at once,
// each read taking a few milliseconds.
type concurrentSource struct {
	fake      *fakeSource
	now, most atomic.Int64
}

func (c *concurrentSource) Pages(ctx context.Context) iter.Seq2[PageInfo, error] {
	return c.fake.Pages(ctx)
}

func (c *concurrentSource) URLs(ctx context.Context, page int64) iter.Seq2[URL, error] {
	return func(yield func(URL, error) bool) {
		n := c.now.Add(1)
		defer c.now.Add(-1)
		for m := c.most.Load(); n > m && !c.most.CompareAndSwap(m, n); m = c.most.Load() {
		}
		time.Sleep(3 * time.Millisecond) // to overlap, if anything lets them
		for u, err := range c.fake.URLs(ctx, page) {
			if !yield(u, err) {
				return
			}
		}
	}
}

// TestWarmUpConfig: New refuses a Rate that is no rate, more Workers than
// MaxBuilds, and a warm-up with the cache disabled.
func TestWarmUpConfig(t *testing.T) {
	for name, cfg := range map[string]Config{
		"negative rate":   {WarmUp: &WarmUp{Rate: -1}},
		"NaN rate":        {WarmUp: &WarmUp{Rate: math.NaN()}},
		"infinite rate":   {WarmUp: &WarmUp{Rate: math.Inf(1)}},
		"workers":         {WarmUp: &WarmUp{Workers: 3}},
		"negative worker": {WarmUp: &WarmUp{Workers: -1}},
		"no cache":        {WarmUp: &WarmUp{}, CacheBytes: -1},
	} {
		cfg.BaseURL = "https://example.com"
		if _, err := New(cfg, Section{Source: newFake(1, 10), PageSize: 10}); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: New: %v, want ErrConfig", name, err)
		}
	}
	sm := newTestSitemap(t, Config{WarmUp: &WarmUp{Workers: 4}, MaxBuilds: 4}, Section{Source: newFake(1, 10), PageSize: 10})
	waitStats(t, sm, func(st Stats) bool { return st.WarmedFiles == 2 })
}
