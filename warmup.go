package sitemap

import (
	"cmp"
	"context"
	"time"

	"github.com/freshmap/sitemap/internal/warmup"
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

// testWarmPace, set only by tests, replaces the pace of the warmers New
// makes: a test gives each start by hand.
var testWarmPace func(ctx context.Context) error

// checkWarmUp checks w against the other settings of cfg.
func checkWarmUp(w *WarmUp, cfg *Config) error {
	return warmup.Check(w.Rate, w.Workers, cmp.Or(cfg.MaxBuilds, defaultMaxBuilds), cfg.CacheBytes < 0)
}

// startWarmer starts the warm-up of docs paced by w (checked), on the
// documents' lifetime (so Close ends it), with its first pass
// (internal/warmup): the index, then every file it lists and the feeds
// (warmKeys), at most as many as the cache holds.
func startWarmer(docs *documents, w *WarmUp) *warmup.Warmer[docKey] {
	wm := warmup.New(warmup.Options[docKey]{
		Rate: w.Rate, Workers: w.Workers, Max: docs.site.cacheEntries,
		First: indexKey,
		List:  docs.warmKeys,
		Warm: func(ctx context.Context, k docKey) bool {
			built, _ := docs.warm(ctx, k)
			return built
		},
		Pace: testWarmPace,
	})
	wm.Kick()
	docs.background(func() { wm.Run(docs.ctx) }) // false once closed: then it never runs
	return wm
}

// warm makes k cached and current, as a request for it would, but
// counted as no request: a fresh copy is left alone; a stale or missing
// one is loaded (joining a load under way), and waited for up to
// BuildTimeout, as a background load: the build slots go first to the
// loads that requests wait for (slots). It reports whether a load was
// waited for.
func (d *documents) warm(ctx context.Context, k docKey) (bool, error) {
	now := d.now()
	sl, cached := d.cache.Peek(k)
	var old *entry
	if cached {
		if d.fresh(k, sl, now) {
			return false, nil
		}
		old = sl.e
	}
	deadline := time.Now().Add(d.site.timeout)
	if k.kind == docPage {
		if listed, err := d.listed(ctx, k, now, deadline, false); err != nil || !listed {
			return false, err
		}
	}
	_, err := d.wait(ctx, k, deadline, old, false)
	return err == nil, err
}

// warmKeys returns the pages the cached index lists, section by section,
// then each section's feed.
func (d *documents) warmKeys() []docKey {
	var keys []docKey
	if sl, ok := d.cache.Peek(indexKey); ok {
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
