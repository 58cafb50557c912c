package sitemap

import (
	"time"

	"github.com/freshmap/sitemap/internal/crawllog"
	"github.com/freshmap/sitemap/internal/secstats"
)

// Stats is a snapshot of a Sitemap's counters since New, for metrics.
// SectionStats has most of them per section; the collector in
// adapters/promsitemap and the expvar.Func in adapters/expvarsitemap export both.
type Stats struct {
	CacheHits       int64         // requests answered by a fresh cached page
	CacheMisses     int64         // requests that found no cached page, or (with a Store) one said to have changed, and waited for a build
	CacheStale      int64         // requests answered by an expired page while it refreshed
	Revalidated     int64         // expired pages renewed without a rebuild (Version unchanged)
	Builds          int64         // documents built successfully
	BuildErrors     int64         // builds that failed (source error, panic, timeout)
	BuildTime       time.Duration // total time spent building, successful or not
	RejectedURLs    int64         // URLs skipped for breaking a rule or not fitting
	CorrectedURLs   int64         // URLs written with a correction or without an element (see Config.OnNotice)
	DroppedElements int64         // elements left out of URLs written, for breaking a rule (see ErrElementDropped)
	NotModified     int64         // 304 responses
	NotFound        int64         // 404 responses
	Unavailable     int64         // 503 responses
	BytesServed     int64         // response body bytes written
	CachedDocuments int           // documents in the cache now
	CachedBytes     int64         // their compressed size

	// InvalidateKeys (build.go): pages rebuilt from the segments it
	// named, the others kept; and pages it named that were built whole
	// (no segment table of the copy, a change said otherwise since,
	// limits, hreflang, news).
	Splices         int64
	SpliceFallbacks int64

	// The warm-up (Config.WarmUp).
	WarmUps     int64 // passes started: one after New, one more after InvalidateAll calls
	WarmedFiles int64 // documents it had built, or rebuilt, as they were cold or out of date at their turn

	// IndexNow (Config.IndexNow); with several endpoints, a URL counts
	// once per endpoint.
	IndexNowSent    int64 // URLs accepted by an endpoint (a 2xx)
	IndexNowFailed  int64 // batches refused (400, 403, 422, any other non-2xx but 429 and 5xx) and dropped
	IndexNowRetried int64 // posts that failed (429, 5xx, network) and will be retried
	IndexNowDropped int64 // URLs dropped: the queue was full, or Close ended before they were sent
	IndexNowRefused int64 // URLs given to Notify that are not under the base URL

	// The self-audit (Config.Audit); Sitemap.Audit has them by kind and file.
	AuditChecked  int64 // URLs requested in process and checked
	AuditSkipped  int64 // sampled URLs not requested: over Audit.PerMinute, or not on the site's host
	AuditFindings int64 // problems found: a URL may have several
	// Of those, the lastmods that disagree with their page's dates
	// (Audit.LastmodBehind, Audit.LastmodAhead): the page newer than its
	// lastmod, and the lastmod newer than the page.
	AuditLastmodBehind int64
	AuditLastmodAhead  int64
	AuditLeftOut       int64 // URLs left out of the files now (Audit.LeaveOut)

	// The Store (Config.Store).
	StoreHits   int64 // documents taken from the store instead of built here
	StoreWaits  int64 // builds that waited for another replica's
	StoreErrors int64 // store calls that failed, and values that did not decode
	StoreDown   bool  // the store is not being called now (its circuit breaker is open): this replica serves alone

	// The crawl log (Config.Crawlers, Sitemap.CrawlLog).
	CrawlerFetches    int64 // sitemap file requests by verified crawlers
	CrawlerUnverified int64 // by clients whose User-Agent claims a crawler family, not verified by address (spoofed or unverifiable)
	CrawlerSpoofed    int64 // of those, the claims of a family whose ranges were given, from an address outside them
	// Fetches by purpose (CrawlFetch.Purpose), verified or unverifiable
	// (spoofed claims are not counted here): search engines and AI search,
	// AI training, and fetches a person asked an assistant for.
	CrawlerSearch, CrawlerTraining, CrawlerUserTriggered int64
	CrawlerForbidden                                     int64 // 403s of Crawlers.VerifiedOnly
	CrawlLogFull                                         int64 // fetches of files not logged: the log had Crawlers.Files files already
}

// BuildBuckets returns the upper bounds, in seconds and increasing, of the
// buckets of every BuildHistogram: 0.001 to 120. It returns a new slice
// on every call.
func BuildBuckets() []float64 {
	b := make([]float64, len(secstats.Bounds))
	for i, d := range secstats.Bounds {
		b[i] = d.Seconds()
	}
	return b
}

// BuildHistogram counts builds by how long they took, failed ones too.
type BuildHistogram struct {
	Count uint64  // builds timed
	Sum   float64 // their total duration, in seconds
	// Buckets are cumulative counts, one per bound of BuildBuckets:
	// Buckets[i] builds took at most BuildBuckets()[i] seconds. Those that
	// took longer than the last bound are in Count only.
	Buckets []uint64
}

// SectionStats is a snapshot of one section's counters since New (see
// Sitemap.SectionStats).
type SectionStats struct {
	// Section is the section's Name ("" for an unnamed one), or one of the
	// pseudo-sections "_index", "_feed" (the unnamed section's feed),
	// "_feed:NAME" (section NAME's feed) and "_other" (404s of sitemap
	// paths that name no file).
	Section string

	CacheHits   int64 // requests answered by a fresh cached document
	CacheMisses int64 // requests that found no cached document
	CacheStale  int64 // requests answered by an expired document while it refreshed

	Builds       int64          // documents built successfully
	BuildErrors  int64          // builds that failed (source error, panic, timeout)
	BuildSeconds BuildHistogram // how long builds took

	// RejectedURLs counts the URLs skipped, by reason: the Field of their
	// InvalidURLError ("loc", "news.publication_date", …), or "page_full"
	// for ErrPageFull. Nil if none was.
	RejectedURLs map[string]int64
	// DroppedElements counts the elements left out of URLs written (see
	// ErrElementDropped), by the Field of their InvalidURLError
	// ("image.loc", "video.title", "xhtml:link.hreflang", …). Nil if none
	// was.
	DroppedElements map[string]int64

	NotModified int64 // 304 responses
	NotFound    int64 // 404 responses
	Unavailable int64 // 503 responses
	BytesServed int64 // response body bytes written

	CachedDocuments int   // documents in the cache now
	CachedBytes     int64 // their compressed size (with their text forms)

	// Crawls is the crawl log of the section's files (Sitemap.CrawlLog
	// has it per file): for each crawler family that fetched one, verified
	// apart from unverified, its latest fetch of any, with Fetches its
	// fetches of them all. CrawlCounts counts those fetches by status.
	// Nil if none; always nil for "_other".
	Crawls      []CrawlFetch
	CrawlCounts []CrawlCount
}

// Stats returns the current counters.
func (s *Sitemap) Stats() Stats {
	n, b := s.docs.cache.Usage()
	c := &s.rep.stats
	st := Stats{
		CacheHits: c.hits.Load(), CacheMisses: c.misses.Load(), CacheStale: c.stale.Load(),
		Revalidated: c.revalidated.Load(), Builds: c.builds.Load(), BuildErrors: c.buildErrors.Load(),
		BuildTime: time.Duration(c.buildNanos.Load()), RejectedURLs: c.rejected.Load(), CorrectedURLs: c.corrected.Load(),
		DroppedElements: c.dropped.Load(),
		NotModified:     c.notModified.Load(), NotFound: c.notFound.Load(), Unavailable: c.unavailable.Load(),
		BytesServed: c.bytesServed.Load(), CachedDocuments: n, CachedBytes: b,
		Splices: c.splices.Load(), SpliceFallbacks: c.spliceFallbacks.Load(),
	}
	if w := s.warm; w != nil {
		st.WarmUps, st.WarmedFiles = w.Passes.Load(), w.Warmed.Load()
	}
	if in := s.rep.indexNow; in != nil {
		st.IndexNowSent, st.IndexNowFailed, st.IndexNowRetried = in.Sent.Load(), in.Failed.Load(), in.Retried.Load()
		st.IndexNowDropped, st.IndexNowRefused = in.Dropped.Load(), in.Refused.Load()
	}
	if a := s.rep.audit; a != nil {
		c := a.Counts()
		st.AuditChecked, st.AuditSkipped, st.AuditFindings = c.Checked, c.Skipped, c.Findings
		st.AuditLastmodBehind, st.AuditLastmodAhead, st.AuditLeftOut = c.Behind, c.Ahead, c.LeftOut
	}
	t := s.docs.tier.stats()
	st.StoreHits, st.StoreWaits, st.StoreErrors, st.StoreDown = t.hits, t.waits, t.errs, t.down
	if l := s.crawls; l != nil {
		t := l.Totals()
		st.CrawlerFetches, st.CrawlerUnverified, st.CrawlerSpoofed = t.Verified, t.Unverified, t.Spoofed
		st.CrawlerSearch, st.CrawlerTraining, st.CrawlerUserTriggered = t.ByPurpose[crawllog.Search], t.ByPurpose[crawllog.Training], t.ByPurpose[crawllog.UserTriggered]
		st.CrawlerForbidden, st.CrawlLogFull = t.Forbidden, t.Full
	}
	return st
}

// SectionStats returns the counters of every section, in the order given
// to New, then of the pseudo-sections: the feeds (of the sections that
// have one, in the same order), "_index" and "_other". Stats counts the
// same events for the whole Sitemap; it allocates nothing, and this does.
//
// A counter of a section is updated apart from the others, so one
// snapshot may show a request counted in one and not yet in another.
func (s *Sitemap) SectionStats() []SectionStats {
	st := s.rep.perSection
	n := len(s.site.sections)
	out := make([]SectionStats, 0, 2*n+2)
	for i := range st.Pages {
		out = append(out, s.withCrawls(&st.Pages[i], i))
	}
	for i, sec := range s.site.sections {
		if sec.feed != nil {
			out = append(out, s.withCrawls(&st.Feeds[i], n+i))
		}
	}
	return append(out, s.withCrawls(&st.Index, 2*n), snapshotOf(&st.Other))
}

// withCrawls is the snapshot of c, the counters of section row i
// (docKey.row), with the row's crawl log.
func (s *Sitemap) withCrawls(c *secstats.Counters, i int) SectionStats {
	st := snapshotOf(c)
	if s.crawls != nil {
		st.Crawls, st.CrawlCounts = crawlSection(s.crawls, i)
	}
	return st
}

// snapshotOf is c's counters as SectionStats gives them, with no crawl log.
func snapshotOf(c *secstats.Counters) SectionStats {
	v := c.Snapshot()
	return SectionStats{
		Section: v.Name, CacheHits: v.Hits, CacheMisses: v.Misses, CacheStale: v.Stale,
		Builds: v.Builds, BuildErrors: v.BuildErrors,
		BuildSeconds: BuildHistogram{Count: v.BuildCount, Sum: v.BuildSeconds, Buckets: v.BuildBuckets},
		RejectedURLs: v.Rejected, DroppedElements: v.Dropped,
		NotModified: v.NotModified, NotFound: v.NotFound, Unavailable: v.Unavailable, BytesServed: v.BytesServed,
		CachedDocuments: v.CachedDocuments, CachedBytes: v.CachedBytes,
	}
}

// CrawlLog returns the crawl log (Config.Crawlers): for each file fetched
// since New (up to Crawlers.Files files), its last fetch by each crawler
// family, verified claims apart from unverified ones, the latest first.
// Files come in the order of SectionStats: the pages of each section by
// number, the feeds, the index files. Nil when the crawl log is off.
func (s *Sitemap) CrawlLog() []FileCrawls {
	if s.crawls == nil {
		return nil
	}
	n := len(s.site.sections)
	all := s.crawls.Files()
	out := make([]FileCrawls, len(all))
	for i, f := range all {
		row := f.File.Group // the crawl log's group of a file is its row (docKey.crawlFile)
		out[i] = FileCrawls{File: s.site.fileName(rowKey(row, n, f.File.N)), Section: s.rep.perSection.At(row).Name(), Crawls: crawlFetches(f.Fetches)}
	}
	return out
}

// Audit returns what the self-audit (Config.Audit) found: the totals
// since New by kind, and the last audit of each file with its first
// findings. It is empty when the audit is off.
func (s *Sitemap) Audit() AuditReport {
	if a := s.rep.audit; a != nil {
		return auditReport(a.Report())
	}
	return AuditReport{Findings: map[string]int64{}}
}
