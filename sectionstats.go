package sitemap

import (
	"errors"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"github.com/freshmap/sitemap/internal/crawllog"
)

// Per-section statistics: most counters of Stats, kept again for each
// section, with a histogram of build durations and the rejected URLs by
// reason. The index, each feed, and the paths that name no file have
// counters of their own, as pseudo-sections whose names no Section may
// take (a section name never starts with '_'):
//
//	"_index"      the index files (sitemap_index.xml, sitemap_index-N.xml)
//	"_feed"       the Atom feed of the unnamed section (sitemap.atom)
//	"_feed:NAME"  the Atom feed of section NAME (sitemap-NAME.atom)
//	"_other"      404s of sitemap paths that name no file (an unknown
//	              section, a page number that is not canonical)
//
// Every name comes from the configuration, never from a request, so a
// metrics label made of it has a fixed set of values.

// Names of the pseudo-sections of SectionStats.
const (
	indexStatsName = "_index"
	feedStatsName  = "_feed"
	otherStatsName = "_other"
)

// buildBounds are the upper bounds of the build-duration buckets: 1 ms
// to 2 minutes (the default BuildTimeout).
var buildBounds = [...]time.Duration{
	time.Millisecond, 2500 * time.Microsecond, 5 * time.Millisecond,
	10 * time.Millisecond, 25 * time.Millisecond, 50 * time.Millisecond,
	100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2500 * time.Millisecond, 5 * time.Second,
	10 * time.Second, 30 * time.Second, 60 * time.Second, 120 * time.Second,
}

// BuildBuckets returns the upper bounds, in seconds and increasing, of the
// buckets of every BuildHistogram: 0.001 to 120. It returns a new slice
// on every call.
func BuildBuckets() []float64 {
	b := make([]float64, len(buildBounds))
	for i, d := range buildBounds {
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

// secCounters are the counters of one section or pseudo-section.
type secCounters struct {
	name                         string
	hits, misses, stale          atomic.Int64
	builds, buildErrors          atomic.Int64
	buildNanos                   atomic.Int64
	buckets                      [len(buildBounds) + 1]atomic.Uint64 // per bucket, not cumulative; the last is past every bound
	notModified, notFound        atomic.Int64
	unavailable, bytesServed     atomic.Int64
	cachedDocuments, cachedBytes atomic.Int64 // changed under the cache's lock

	mu       sync.Mutex
	rejected map[string]int64 // by reason; guarded by mu
	dropped  map[string]int64 // by field; guarded by mu
}

// secStats holds every secCounters of a Sitemap.
type secStats struct {
	pages []secCounters // by section index
	feeds []secCounters // by section index; used only by sections with a feed
	index secCounters
	other secCounters
}

// newSecStats makes the counters of n sections, section i named name(i).
func newSecStats(n int, name func(i int) string) *secStats {
	st := &secStats{pages: make([]secCounters, n), feeds: make([]secCounters, n)}
	st.index.name, st.other.name = indexStatsName, otherStatsName
	for i := range n {
		st.pages[i].name = name(i)
		st.feeds[i].name = feedStatsName
		if name(i) != "" {
			st.feeds[i].name += ":" + name(i)
		}
	}
	return st
}

// at returns the counters of row i (docKey.row): the pages of each
// section, then the feeds, then the index.
func (st *secStats) at(i int) *secCounters {
	switch n := len(st.pages); {
	case i < n:
		return &st.pages[i]
	case i < 2*n:
		return &st.feeds[i-n]
	}
	return &st.index
}

// crawlFiles returns the crawl log l of every file, as Sitemap.CrawlLog
// gives it: the pages of each section by number, the feeds, the index
// files, each file named by name from its row (its group in l) and
// number.
func (st *secStats) crawlFiles(l *crawllog.Log, name func(row int, n int64) string) []FileCrawls {
	all := l.Files()
	out := make([]FileCrawls, len(all))
	for i, f := range all {
		out[i] = FileCrawls{File: name(f.File.Group, f.File.N), Section: st.at(f.File.Group).name, Crawls: crawlFetches(f.Fetches)}
	}
	return out
}

// observe counts a build that took d.
func (c *secCounters) observe(d time.Duration) {
	c.buildNanos.Add(int64(d))
	i := 0
	for i < len(buildBounds) && d > buildBounds[i] {
		i++
	}
	c.buckets[i].Add(1)
}

// reject counts a URL skipped for err.
func (c *secCounters) reject(err error) {
	reason := "other" // not reported: encodePage reports only the two below
	var bad *InvalidURLError
	switch {
	case errors.As(err, &bad):
		reason = bad.Field
	case errors.Is(err, ErrPageFull):
		reason = "page_full"
	}
	c.count(&c.rejected, reason)
}

// drop counts an element left out of a URL written, for err (an
// *InvalidURLError).
func (c *secCounters) drop(err error) {
	field := "other"
	if bad := (*InvalidURLError)(nil); errors.As(err, &bad) {
		field = bad.Field
	}
	c.count(&c.dropped, field)
}

// count adds one to (*m)[reason], under c.mu.
func (c *secCounters) count(m *map[string]int64, reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if *m == nil {
		*m = make(map[string]int64)
	}
	(*m)[reason]++
}

// cached counts a change of the cached documents of c: n documents of b
// bytes added (or, negative, removed).
func (c *secCounters) cached(n int, b int64) {
	if n != 0 {
		c.cachedDocuments.Add(int64(n))
	}
	c.cachedBytes.Add(b)
}

// snapshot returns c's counters.
func (c *secCounters) snapshot() SectionStats {
	st := SectionStats{
		Section:   c.name,
		CacheHits: c.hits.Load(), CacheMisses: c.misses.Load(), CacheStale: c.stale.Load(),
		Builds: c.builds.Load(), BuildErrors: c.buildErrors.Load(),
		NotModified: c.notModified.Load(), NotFound: c.notFound.Load(), Unavailable: c.unavailable.Load(),
		BytesServed:     c.bytesServed.Load(),
		CachedDocuments: int(c.cachedDocuments.Load()), CachedBytes: c.cachedBytes.Load(),
	}
	h := &st.BuildSeconds
	h.Sum = time.Duration(c.buildNanos.Load()).Seconds()
	h.Buckets = make([]uint64, len(buildBounds))
	for i := range c.buckets {
		h.Count += c.buckets[i].Load()
		if i < len(h.Buckets) {
			h.Buckets[i] = h.Count
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	st.RejectedURLs, st.DroppedElements = maps.Clone(c.rejected), maps.Clone(c.dropped)
	return st
}
