package sitemap

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"time"
)

// reporter is the one home of what the Sitemap tells the world of its
// work: the counters (Stats, SectionStats), the log, the hooks
// (OnReject, OnNotice, OnChange) and the IndexNow sender. Every part
// reports through it and none reports otherwise.
type reporter struct {
	site       *site
	log        *slog.Logger
	stats      counters
	perSection *secStats
	onReject   func(string, int64, string, error)
	onNotice   func(string, int64, string, error)
	onChange   func(Change)
	indexNow   *indexNow // the IndexNow sender; nil when off
	purger     *purger   // Config.OnPurge's (purge.go); nil when off
	audit      *auditor  // the self-audit; nil when off
}

func newReporter(st *site, cfg *Config, log *slog.Logger) *reporter {
	return &reporter{site: st, log: log, perSection: newSecStats(st.sections),
		onReject: cfg.OnReject, onNotice: cfg.OnNotice, onChange: cfg.OnChange}
}

// of returns the counters of k's section.
func (r *reporter) of(k docKey) *secCounters { return r.perSection.of(k) }

// hit, miss and stale count how a request found the cache.
func (r *reporter) hit(k docKey)   { r.stats.hits.Add(1); r.of(k).hits.Add(1) }
func (r *reporter) miss(k docKey)  { r.stats.misses.Add(1); r.of(k).misses.Add(1) }
func (r *reporter) stale(k docKey) { r.stats.stale.Add(1); r.of(k).stale.Add(1) }

// revalidated counts a page renewed without a rebuild.
func (r *reporter) revalidated() { r.stats.revalidated.Add(1) }

// timed counts the duration d of a build of k, successful or not.
func (r *reporter) timed(k docKey, d time.Duration) {
	r.stats.buildNanos.Add(int64(d))
	r.of(k).observe(d)
}

// built counts a successful build of k.
func (r *reporter) built(k docKey) {
	r.stats.builds.Add(1)
	r.of(k).builds.Add(1)
}

// failed logs and counts a failed build of k; old tells whether a last
// good copy is served meanwhile. A build that Close ended is no failure,
// and never told here.
func (r *reporter) failed(k docKey, old bool, err error) {
	defer r.stats.buildErrors.Add(1) // last: a test that sees it sees the log
	r.of(k).buildErrors.Add(1)
	args := []any{"page", r.site.fileName(k), "err", err, "retry_after", r.site.retryAfter}
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
	r.of(k).unavailable.Add(1)
}

// rejected reports a URL of sec that was not written in the document k (a
// page, or the section's feed).
func (r *reporter) rejected(sec *section, k docKey, loc string, err error) {
	r.stats.rejected.Add(1)
	r.of(k).reject(err)
	r.log.Warn("sitemap: URL skipped", "section", sec.name, "page", k.page, "loc", quote(loc), "err", err)
	if r.onReject != nil {
		r.onReject(sec.name, k.page, loc, err)
	}
}

// corrected reports a URL of page n that was written with a correction
// (ErrSelfLinkAdded): counted, logged at info level and told to OnNotice.
// It is not a rejection: the URL is in the file.
func (r *reporter) corrected(sec *section, n int64, loc string, err error) {
	r.stats.corrected.Add(1)
	r.log.Info("sitemap: URL corrected", "section", sec.name, "page", n, "loc", quote(loc), "err", err)
	if r.onNotice != nil {
		r.onNotice(sec.name, n, loc, err)
	}
}

// future reports, once per build of page k of sec, the n URL lastmods
// (the first at loc) that were ahead of the build time and were written
// as it.
func (r *reporter) future(sec *section, k docKey, n int, loc string) {
	r.log.Warn("sitemap: URL lastmods in the future written as the build time", "section", sec.name, "page", k.page,
		"count", n, "first", quote(loc))
}

// pageBuilt hands the page k, just built (gzipped), to the self-audit,
// when it is on.
func (r *reporter) pageBuilt(k docKey, gz []byte) {
	if r.audit != nil {
		r.audit.enqueue(r.site.fileName(k), gz)
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
		r.onChange(*c)
	}
	if r.indexNow != nil {
		r.indexNow.push(c.Added...)
		r.indexNow.push(c.Changed...)
		r.indexNow.push(c.Removed...)
	}
}
