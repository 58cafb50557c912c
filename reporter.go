package sitemap

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync/atomic"
	"time"

	"github.com/freshmap/sitemap/internal/audit"
	"github.com/freshmap/sitemap/internal/indexnow"
	"github.com/freshmap/sitemap/internal/purge"
	"github.com/freshmap/sitemap/internal/secstats"
	"github.com/freshmap/sitemap/internal/tally"
)

// reporter is the one home of what the Sitemap tells the world of its
// work: the counters (Stats, SectionStats), the log, the hooks
// (OnReject, OnNotice, OnChange) and the IndexNow sender. Every part
// reports through it and none reports otherwise.
type reporter struct {
	site       *site
	log        *slog.Logger
	stats      counters
	perSection *secstats.Table
	onReject   func(string, int64, string, error)
	onNotice   func(string, int64, string, error)
	onChange   func(Change)
	indexNow   *indexnow.Site         // the IndexNow sender; nil when off
	purger     *purge.Purger          // Config.OnPurge's (purge.go); nil when off
	audit      *audit.Auditor[docKey] // the self-audit; nil when off

	hookLogged atomic.Int64 // when a hook's panic was last logged, in Unix ns (hook)
	hookPanics atomic.Int64 // hooks' panics since then
}

// hook calls f, the application's hook name, on a goroutine of ours
// (a build's): a panic in it is recovered, so that it neither kills the
// process nor fails the build that called it, and logged with its stack,
// the first and then at most one a minute with the count since, however
// often it panics (TestHookPanics). A hook that hangs holds its build,
// which Close leaves after BuildTimeout like a Source that hangs.
func (r *reporter) hook(name string, f func()) {
	defer func() {
		if p := recover(); p != nil {
			n := r.hookPanics.Add(1)
			now, last := time.Now().UnixNano(), r.hookLogged.Load()
			if last != 0 && now-last < int64(time.Minute) || !r.hookLogged.CompareAndSwap(last, now) {
				return
			}
			r.hookPanics.Add(-n)
			r.log.Error("sitemap: an application hook panicked; recovered", "hook", name, "panic", fmt.Sprint(p),
				"panics", n, "stack", string(debug.Stack()))
		}
	}()
	f()
}

// of returns the counters of k's section.
func (r *reporter) of(k docKey) *secstats.Counters {
	return r.perSection.At(k.row(len(r.perSection.Pages)))
}

// hit, miss and stale count how a request found the cache.
func (r *reporter) hit(k docKey)   { r.stats.hits.Add(1); r.of(k).Hits.Add(1) }
func (r *reporter) miss(k docKey)  { r.stats.misses.Add(1); r.of(k).Misses.Add(1) }
func (r *reporter) stale(k docKey) { r.stats.stale.Add(1); r.of(k).Stale.Add(1) }

// revalidated counts a page renewed without a rebuild.
func (r *reporter) revalidated() { r.stats.revalidated.Add(1) }

// timed counts the duration d of a build of k, successful or not.
func (r *reporter) timed(k docKey, d time.Duration) {
	r.stats.buildNanos.Add(int64(d))
	r.of(k).Observe(d)
}

// built counts a successful build of k.
func (r *reporter) built(k docKey) {
	r.stats.builds.Add(1)
	r.of(k).Builds.Add(1)
}

// failed logs and counts a failed build of k; old tells whether a last
// good copy is served meanwhile. A build that Close ended is no failure,
// and never told here.
func (r *reporter) failed(k docKey, old bool, err error) {
	defer r.stats.buildErrors.Add(1) // last: a test that sees it sees the log
	r.of(k).BuildErrors.Add(1)
	args := []any{"page", r.site.fileName(k), "err", err, "retry_after", r.site.retryAfter}
	if f := (*failureError)(nil); errors.As(err, &f) {
		args = append(args, "failure", f.ref)
	}
	if p := (*panicError)(nil); errors.As(err, &p) {
		args = append(args, "stack", string(p.stack))
	}
	if old {
		r.log.Error("sitemap: build failed; serving the last good copy", args...)
	} else {
		r.log.Error("sitemap: build failed", args...)
	}
}

// slotHeld logs that a build of k held its slot for held, past the build
// timeout: its Source ignored its context.
func (r *reporter) slotHeld(k docKey, held time.Duration) {
	r.log.Warn("sitemap: the source ignored the build timeout; its build slot was held until it returned",
		"page", r.site.fileName(k), "held", held, "timeout", r.site.timeout)
}

// abandoned logs, once, the loads that Close stopped waiting for after
// BuildTimeout: their Source ignores its context. They end on their own
// and keep nothing.
func (r *reporter) abandoned(keys []docKey) {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = r.site.fileName(k)
	}
	slices.Sort(names)
	r.log.Warn("sitemap: Close gave up waiting for builds whose source ignores its context; they keep nothing when they end",
		"builds", names, "waited", r.site.timeout)
}

// unavailable logs at debug level and counts a 503 of k: a failed build
// was logged once, by the build; each request that waited for it only
// counts.
func (r *reporter) unavailable(ctx context.Context, k docKey, err error) {
	r.log.DebugContext(ctx, "sitemap: unavailable", "page", r.site.fileName(k), "err", err)
	r.stats.unavailable.Add(1)
	r.of(k).Unavailable.Add(1)
}

// urls returns the report of the URLs of one build of document k of sec
// (a page, or the section's feed). The build tells it each URL skipped
// (rejected) and each URL written with notes (noticed), and calls done
// when it ends, successful or not.
func (r *reporter) urls(sec *section, k docKey) *urlReport {
	return &urlReport{r: r, sec: sec, k: k}
}

// urlReport is what one build reports about its URLs. Each report reaches
// the counters and the hooks (OnReject, OnNotice) at once; the log gets
// one line per build (done), whatever the number of URLs: a warning for
// the URLs skipped and the elements dropped, and an info line for the
// other corrections (ErrSelfLinkAdded), each with counts by reason and
// the first few URLs (internal/tally; TestOneLogLinePerBuild). It is used by the
// build's goroutine only.
type urlReport struct {
	r       *reporter
	sec     *section
	k       docKey
	skipped int // URLs not written
	dropped int // elements left out of URLs written
	warn    tally.Tally
	info    tally.Tally
}

// rejected reports a URL that was not written, for err (an
// *InvalidURLError or ErrPageFull).
func (u *urlReport) rejected(loc string, err error) {
	r := u.r
	r.stats.rejected.Add(1)
	r.of(u.k).Reject(err)
	u.skipped++
	u.warn.Add(loc, err)
	if r.onReject != nil {
		r.hook("OnReject", func() { r.onReject(u.sec.name, u.k.page, loc, err) })
	}
}

// noticed reports a URL written with notes: elements dropped (warned of,
// and counted in DroppedElements) and corrections such as
// ErrSelfLinkAdded. The URL counts once in CorrectedURLs; it is no
// rejection.
func (u *urlReport) noticed(loc string, notes []error) {
	r := u.r
	r.stats.corrected.Add(1)
	for _, err := range notes {
		if errors.Is(err, ErrElementDropped) {
			r.stats.dropped.Add(1)
			r.of(u.k).Drop(err)
			u.dropped++
			u.warn.Add(loc, err)
		} else {
			u.info.Add(loc, err)
		}
		if r.onNotice != nil {
			r.hook("OnNotice", func() { r.onNotice(u.sec.name, u.k.page, loc, err) })
		}
	}
}

// done logs what the build reported, in at most two lines.
func (u *urlReport) done() {
	log := u.r.log
	if u.warn.N > 0 {
		args := append([]any{"section", u.sec.name, "page", u.k.page, "skipped", u.skipped, "dropped", u.dropped}, u.warn.Attrs()...)
		log.Warn("sitemap: URLs skipped or written without elements that break a rule", args...)
	}
	if u.info.N > 0 {
		args := append([]any{"section", u.sec.name, "page", u.k.page, "corrected", u.info.N}, u.info.Attrs()...)
		log.Info("sitemap: URLs corrected", args...)
	}
}

// future reports, once per build of page k of sec, the n URL lastmods
// (the first at loc) that were ahead of the build time and were written
// as it.
func (r *reporter) future(sec *section, k docKey, n int, loc string) {
	r.log.Warn("sitemap: URL lastmods in the future written as the build time", "section", sec.name, "page", k.page,
		"count", n, "first", tally.Quote(loc))
}

// pageBuilt hands the page k, just built (gzipped) and kept, if it was,
// to the self-audit, when it is on.
func (r *reporter) pageBuilt(k docKey, gz []byte) {
	if r.audit != nil {
		r.audit.Enqueue(k, r.site.fileName(k), gz)
	}
}

// tracking reports whether changes are derived: someone listens.
func (r *reporter) tracking() bool { return r.onChange != nil || r.indexNow != nil }

// changed sends a change to OnChange and to IndexNow, whichever are set.
// A removed URL goes to IndexNow too: the engines then fetch it and find
// it gone.
func (r *reporter) changed(c *Change) {
	if c == nil || c.empty() {
		return
	}
	if r.onChange != nil {
		r.hook("OnChange", func() { r.onChange(*c) })
	}
	if r.indexNow != nil {
		r.indexNow.Push(c.Added...)
		r.indexNow.Push(c.Changed...)
		r.indexNow.Push(c.Removed...)
	}
}

// counters are the Sitemap's statistics.
type counters struct {
	hits, misses, stale, revalidated atomic.Int64
	builds, buildErrors, buildNanos  atomic.Int64
	rejected, corrected, dropped     atomic.Int64
	notModified, notFound            atomic.Int64
	unavailable, bytesServed         atomic.Int64
	splices, spliceFallbacks         atomic.Int64
}
