// Package warmup runs warm-up passes in the background: a first item,
// waited for, then the items it lists, each started at a paced rate and
// built by at most a number of workers at once. A pass asked for while
// one runs ends that one at its next item and starts over: however often
// passes are asked for, at most one runs and one more waits. It knows
// nothing of what an item is: the caller gives the warming and the list.
package warmup

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultRate is the most items started a second when Options.Rate is 0.
const DefaultRate = 10

// Check checks a warm-up's Rate and Workers, against the most builds at
// once, maxBuilds; cacheOff tells that the cache is off, where a warm-up
// keeps nothing. Its errors name the sitemap's WarmUp fields.
func Check(rate float64, workers, maxBuilds int, cacheOff bool) error {
	switch {
	case !(rate >= 0) || math.IsInf(rate, 1): // false for NaN
		return fmt.Errorf("WarmUp.Rate %v is not a number of files a second", rate)
	case workers < 0 || workers > maxBuilds:
		return fmt.Errorf("WarmUp.Workers %d is not 0 to MaxBuilds (%d)", workers, maxBuilds)
	case cacheOff:
		return errors.New("WarmUp needs the cache, which a negative CacheBytes disables")
	}
	return nil
}

// Options configure a Warmer.
type Options[K comparable] struct {
	Rate    float64 // the most items started a second; 0 means DefaultRate
	Workers int     // the most items warmed at once; 0 means 1
	Max     int     // the most items a pass warms, the first included
	// First is the item a pass starts with, waited for before the others:
	// the one that lists them.
	First K
	// List returns the items after First, in order, once First is warm.
	List func() []K
	// Warm warms k, or leaves it if it is warm already, and reports
	// whether it had to be built.
	Warm func(ctx context.Context, k K) bool
	// Pace, if set, replaces the wait for the next start at Rate (a test
	// gives each start by hand); it returns ctx's error when ctx ends.
	Pace func(ctx context.Context) error
}

// Warmer runs the passes: Run on a goroutine, Kick to ask for a pass.
type Warmer[K comparable] struct {
	o     Options[K]
	every time.Duration // between two starts: 1/Rate
	kicks chan struct{} // a pass is asked for; one waits at most

	// Passes counts the passes started; Warmed, the items that had to
	// be built.
	Passes, Warmed atomic.Int64
}

// New returns the warmer of o (Rate and Workers checked).
func New[K comparable](o Options[K]) *Warmer[K] {
	rate := o.Rate
	if rate == 0 {
		rate = DefaultRate
	}
	o.Workers = max(o.Workers, 1)
	w := &Warmer[K]{o: o, every: time.Duration(float64(time.Second) / rate), kicks: make(chan struct{}, 1)}
	if w.o.Pace == nil {
		w.o.Pace = w.wait
	}
	return w
}

// Kick asks for a pass: one more after the one running, if any. It never
// blocks, however often it is called.
func (w *Warmer[K]) Kick() {
	select {
	case w.kicks <- struct{}{}:
	default: // one waits already
	}
}

// Run runs a pass each time one is asked for, until ctx ends.
func (w *Warmer[K]) Run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.kicks:
		}
		w.pass(ctx)
	}
}

// wait is Pace at the warmer's Rate.
func (w *Warmer[K]) wait(ctx context.Context) error {
	t := time.NewTimer(w.every)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// pass warms First, then the items it lists, in order. It ends early
// when ctx ends or another pass is asked for.
func (w *Warmer[K]) pass(ctx context.Context) {
	w.Passes.Add(1)
	slots := make(chan struct{}, w.o.Workers)
	var wg sync.WaitGroup
	defer wg.Wait()
	warm := func(k K) bool {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return false
		}
		// Paced first, so that however fast passes are asked for, each
		// costs at least one wait; then a pass asked for meanwhile ends
		// this one, to start over from First.
		if w.o.Pace(ctx) != nil || len(w.kicks) > 0 {
			<-slots
			return false
		}
		if k == w.o.First { // the list of the others: wait for it
			w.warm(ctx, k)
			<-slots
			return true
		}
		wg.Go(func() {
			defer func() { <-slots }()
			w.warm(ctx, k)
		})
		return true
	}
	if !warm(w.o.First) {
		return
	}
	keys := w.o.List()
	if len(keys) > w.o.Max-1 {
		keys = keys[:max(w.o.Max-1, 0)]
	}
	for _, k := range keys {
		if !warm(k) {
			return
		}
	}
}

// warm warms k, counting it if it had to be built.
func (w *Warmer[K]) warm(ctx context.Context, k K) {
	if w.o.Warm(ctx, k) {
		w.Warmed.Add(1)
	}
}
