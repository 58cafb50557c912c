package warmup

import (
	"context"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A pass warms First, waited for, then the items it lists, no more than
// Max in all, no more than Workers at once; an item already warm is not
// counted.
func TestPass(t *testing.T) {
	var mu sync.Mutex
	var order []int
	var now, most atomic.Int32
	firstDone := make(chan struct{})
	w := New(Options[int]{
		Rate: 1e6, Workers: 2, Max: 5, First: 0,
		List: func() []int {
			select {
			case <-firstDone:
			default:
				t.Error("listed before First was warm")
			}
			return []int{1, 2, 3, 4, 5, 6}
		},
		Warm: func(_ context.Context, k int) bool {
			n := now.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			time.Sleep(5 * time.Millisecond)
			now.Add(-1)
			mu.Lock()
			order = append(order, k)
			mu.Unlock()
			if k == 0 {
				close(firstDone)
			}
			return k != 3 // 3 was warm
		},
	})
	w.pass(context.Background())
	slices.Sort(order)
	if !slices.Equal(order, []int{0, 1, 2, 3, 4}) || most.Load() > 2 || w.Passes.Load() != 1 || w.Warmed.Load() != 4 {
		t.Errorf("warmed %v, %d at most at once, %d passes, %d built", order, most.Load(), w.Passes.Load(), w.Warmed.Load())
	}
}

// However often passes are asked for, one runs and one more waits: a
// pass asked for during a pass ends it at its next item and starts over
// from First.
func TestKickStorm(t *testing.T) {
	ready, tick := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	var warmed []int
	w := New(Options[int]{
		Workers: 1, Max: 10, First: 0,
		List: func() []int { return []int{1, 2, 3} },
		Warm: func(_ context.Context, k int) bool {
			mu.Lock()
			defer mu.Unlock()
			warmed = append(warmed, k)
			return true
		},
		Pace: func(ctx context.Context) error {
			select {
			case ready <- struct{}{}:
			case <-ctx.Done():
				return ctx.Err()
			}
			select {
			case <-tick:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		},
	})
	step := func() { // once the warmer waits to start an item, let it
		select {
		case <-ready:
		case <-time.After(10 * time.Second):
			t.Fatal("the warmer does not ask to start an item")
		}
		tick <- struct{}{}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); w.Run(ctx) }()
	w.Kick()
	step()  // 0
	step()  // 1
	<-ready // 2 waits to start
	for range 1000 {
		w.Kick()
	}
	tick <- struct{}{} // 2 is not warmed: the pass ends, and the next one starts
	for range 4 {
		step() // 0, 1, 2, 3
	}
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(warmed, []int{0, 1, 0, 1, 2, 3}) || w.Passes.Load() != 2 {
		t.Errorf("warmed %v in %d passes, want [0 1 0 1 2 3] in 2", warmed, w.Passes.Load())
	}
}

// Check refuses a rate that is no number of files a second, workers
// past the builds, and a warm-up without a cache.
func TestCheck(t *testing.T) {
	for _, c := range []struct {
		rate     float64
		workers  int
		cacheOff bool
		ok       bool
	}{{0, 0, false, true}, {2.5, 2, false, true}, {-1, 0, false, false}, {math.Inf(1), 0, false, false}, {math.NaN(), 0, false, false}, {0, 3, false, false}, {0, -1, false, false}, {0, 0, true, false}} {
		if err := Check(c.rate, c.workers, 2, c.cacheOff); (err == nil) != c.ok {
			t.Errorf("Check(%v, %d, 2, %v) = %v", c.rate, c.workers, c.cacheOff, err)
		}
	}
}
