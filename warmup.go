package sitemap

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// WarmUp paces the warm-up (Config.WarmUp): after New, and again after
// each InvalidateAll, the index and then every file it lists, and each
// Atom feed, are built in the background, so that a crawler burst after a
// deploy, or after a change to the whole catalogue, finds them cached.
//
// A file that is cached and current when its turn comes costs nothing; a
// stale one is rebuilt, a cold one built, each through the one build per
// file that requests share (a request for a file the warm-up is building
// waits for that build). The warm-up never holds more than Workers of the
// MaxBuilds build slots, so requests keep the others, and it starts at
// most Rate files a second. It counts as no request in Stats (CacheHits,
// CacheMisses): WarmUps and WarmedFiles count it.
//
// InvalidateAll during a pass ends the pass at its next file and starts
// one more from the index: however often InvalidateAll is called, at most
// one pass runs and one more waits. A pass warms no more files than the
// cache holds (CacheEntries); a file whose build fails is left to its
// next request (and to RetryAfter). Close stops it.
type WarmUp struct {
	// Rate is the most files started a second. Zero means 10.
	Rate float64
	// Workers is the most files built at once, 1 to MaxBuilds. Zero
	// means 1.
	Workers int
}

const defaultWarmUpRate = 10

// testWarmPace, set only by tests, replaces the pace of the warmers New
// makes: a test gives each start by hand.
var testWarmPace func(ctx context.Context) error

// checkWarmUp checks w against the other settings of cfg.
func checkWarmUp(w *WarmUp, cfg *Config) error {
	maxBuilds := cfg.MaxBuilds
	if maxBuilds == 0 {
		maxBuilds = defaultMaxBuilds
	}
	switch {
	case !(w.Rate >= 0) || math.IsInf(w.Rate, 1): // false for NaN
		return fmt.Errorf("WarmUp.Rate %v is not a number of files a second", w.Rate)
	case w.Workers < 0 || w.Workers > maxBuilds:
		return fmt.Errorf("WarmUp.Workers %d is not 0 to MaxBuilds (%d)", w.Workers, maxBuilds)
	case cfg.CacheBytes < 0:
		return errors.New("WarmUp needs the cache, which a negative CacheBytes disables")
	}
	return nil
}

// warmer runs the warm-up passes: one goroutine, started by New on the
// documents' lifetime (so Close ends it), told to start a pass by kick.
type warmer struct {
	docs    *documents
	every   time.Duration // between two starts: 1/Rate
	workers int
	max     int           // files a pass warms at most, the index included: the cache's entries
	kicks   chan struct{} // a pass is asked for; one waits at most
	// pace waits until the next file may start, or ctx ends (a test
	// replaces it).
	pace func(ctx context.Context) error

	passes, warmed atomic.Int64 // Stats.WarmUps, Stats.WarmedFiles
}

// newWarmer returns the warmer of docs paced by w (checked).
func newWarmer(docs *documents, w *WarmUp) *warmer {
	rate := w.Rate
	if rate == 0 {
		rate = defaultWarmUpRate
	}
	wm := &warmer{docs: docs, every: time.Duration(float64(time.Second) / rate), workers: max(w.Workers, 1),
		max: docs.site.cacheEntries, kicks: make(chan struct{}, 1)}
	wm.pace = wm.wait
	if testWarmPace != nil {
		wm.pace = testWarmPace
	}
	return wm
}

// start starts the warmer's goroutine and its first pass; false if the
// documents are closed.
func (w *warmer) start() bool {
	w.kick()
	return w.docs.background(func() { w.run(w.docs.ctx) })
}

// kick asks for a pass: one more after the one running, if any. It never
// blocks, however often it is called.
func (w *warmer) kick() {
	select {
	case w.kicks <- struct{}{}:
	default: // one waits already
	}
}

// run runs a pass each time one is asked for, until ctx ends.
func (w *warmer) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.kicks:
		}
		w.pass(ctx)
	}
}

// wait is pace at the warmer's Rate.
func (w *warmer) wait(ctx context.Context) error {
	t := time.NewTimer(w.every)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// pass warms the index, then the files it lists and the feeds, in order.
// It ends early when ctx ends or another pass is asked for.
func (w *warmer) pass(ctx context.Context) {
	w.passes.Add(1)
	slots := make(chan struct{}, w.workers)
	var wg sync.WaitGroup
	defer wg.Wait()
	warm := func(k docKey) bool {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return false
		}
		// Paced first, so that however fast InvalidateAll asks for
		// passes, each costs at least one wait; then a pass asked for
		// meanwhile ends this one, to start over from the index.
		if w.pace(ctx) != nil || len(w.kicks) > 0 {
			<-slots
			return false
		}
		if k == indexKey { // the list of the others: wait for it
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
	if !warm(indexKey) {
		return
	}
	keys := w.docs.warmKeys()
	if len(keys) > w.max-1 {
		keys = keys[:w.max-1]
	}
	for _, k := range keys {
		if !warm(k) {
			return
		}
	}
}

// warm warms k, counting it if it had to be built.
func (w *warmer) warm(ctx context.Context, k docKey) {
	if built, _ := w.docs.warm(ctx, k); built {
		w.warmed.Add(1)
	}
}

// warm makes k cached and current, as a request for it would, but
// counted as no request: a fresh copy is left alone; a stale or missing
// one is loaded (joining a load under way), and waited for up to
// BuildTimeout. It reports whether a load was waited for.
func (d *documents) warm(ctx context.Context, k docKey) (bool, error) {
	now := d.now()
	sl, cached := d.cache.peek(k)
	var old *entry
	if cached {
		if d.fresh(k, sl, now) {
			return false, nil
		}
		old = sl.e
	}
	deadline := time.Now().Add(d.site.timeout)
	if k.kind == docPage {
		if listed, err := d.listed(ctx, k, now, deadline); err != nil || !listed {
			return false, err
		}
	}
	_, err := d.wait(ctx, k, deadline, old)
	return err == nil, err
}

// warmKeys returns the pages the cached index lists, section by section,
// then each section's feed.
func (d *documents) warmKeys() []docKey {
	var keys []docKey
	if sl, ok := d.cache.peek(indexKey); ok {
		for sec, pages := range sl.e.pages {
			for _, p := range pages {
				keys = append(keys, pageKey(sec, p.Number))
			}
		}
	}
	for _, sec := range d.site.sections {
		if sec.feed != nil {
			keys = append(keys, feedKey(sec.index))
		}
	}
	return keys
}
