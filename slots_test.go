package sitemap

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

// TestSlotsRequestFirst: with one build slot, held by a background load,
// and background loads queued for it, a slot freed goes to the loads that
// requests wait for: the one a request started (page 9), and the
// background one a request joined (page 8), before the background loads
// queued before them, which then run in the order they came. No timing
// decides it: the test waits until each load is queued, and reads the
// order in which the Source is read.
func TestSlotsRequestFirst(t *testing.T) {
	src := newFake(100, 10) // pages 1 to 10
	var armed atomic.Bool
	entered := make(chan int64, 20)
	release := make(chan struct{})
	src.onURL = func(ctx context.Context, page, i int64) error {
		if !armed.Load() || i%10 != 0 {
			return nil
		}
		entered <- page
		if page == 1 {
			select {
			case <-release:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	}
	clk := testkit.NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	sm := newTestSitemap(t, Config{MaxBuilds: 1, TTL: time.Minute, BuildTimeout: time.Minute, Now: clk.Now},
		Section{Name: "p", Source: src, PageSize: 10})
	for p := 1; p <= 5; p++ {
		if w := get(sm, fmt.Sprintf("/sitemap-p-%d.xml.gz", p)); w.Code != http.StatusOK {
			t.Fatalf("page %d: %d", p, w.Code)
		}
	}
	armed.Store(true)
	clk.Add(2 * time.Minute) // every copy is stale: each request for one starts its refresh
	queued := func(n int) func() bool {
		return func() bool { _, q := sm.docs.slots.held(); return q == n }
	}
	get(sm, "/sitemap-p-1.xml.gz") // its refresh takes the slot, and holds it
	if p := <-entered; p != 1 {
		t.Fatalf("page %d read first, want 1", p)
	}
	for p := 2; p <= 5; p++ {
		get(sm, fmt.Sprintf("/sitemap-p-%d.xml.gz", p))
		waitFor(t, queued(p-1)) // one at a time: queued in this order
	}
	// A background load of page 8, not cached, as the warm-up makes.
	p8 := pageKey(0, 8)
	sm.docs.background(func() {
		sm.docs.group.Do(p8.String(), func() (any, error) { return sm.docs.load(p8, nil) })
	})
	waitFor(t, queued(5))
	// A request for page 9, not cached: the stale index lists it, so its
	// refresh is queued, then the page's own load.
	codes := make(chan int, 2)
	var wg sync.WaitGroup
	wg.Go(func() { codes <- get(sm, "/sitemap-p-9.xml.gz").Code })
	waitFor(t, func() bool { return queued(7)() && sm.docs.slots.waitedFor(pageKey(0, 9)) })
	// A request for page 8 joins its background load.
	wg.Go(func() { codes <- get(sm, "/sitemap-p-8.xml.gz").Code })
	waitFor(t, func() bool { return sm.docs.slots.waitedFor(p8) })
	close(release)
	wg.Wait()
	sm.docs.wg.Wait() // the background loads
	close(codes)
	for c := range codes {
		if c != http.StatusOK {
			t.Errorf("a request that waited: %d", c)
		}
	}
	close(entered)
	var order []int64
	for p := range entered {
		order = append(order, p)
	}
	// Page 1's refresh, then the loads requests wait for, in the order
	// they queued, then the background ones, in theirs.
	if want := []int64{8, 9, 2, 3, 4, 5}; !slices.Equal(order, want) {
		t.Errorf("pages read after page 1: %v, want %v", order, want)
	}
	if held, q := sm.docs.slots.held(); held != 0 || q != 0 {
		t.Errorf("after the loads: %d slots held, %d queued", held, q)
	}
}

// TestSlotsLeave: a load that stops waiting for a slot (its context
// ended: a timeout, or Close) leaves the queue and holds nothing, and the
// slot freed goes to the one still waiting, or back to the free ones.
func TestSlotsLeave(t *testing.T) {
	s := newSlots(1)
	if err := s.acquire(t.Context(), pageKey(0, 1), false); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	left := make(chan error, 1)
	go func() { left <- s.acquire(ctx, pageKey(0, 2), false) }()
	got := make(chan error, 1)
	go func() { got <- s.acquire(t.Context(), pageKey(0, 3), false) }()
	waitFor(t, func() bool { _, q := s.held(); return q == 2 })
	cancel()
	if err := <-left; err == nil {
		t.Fatal("a load whose context ended got a slot")
	}
	if _, q := s.held(); q != 1 {
		t.Errorf("%d queued after one left, want 1", q)
	}
	s.release()
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	s.release()
	if held, q := s.held(); held != 0 || q != 0 {
		t.Errorf("%d held, %d queued once all ended", held, q)
	}
}
