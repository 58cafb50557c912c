// Package secstats holds the counters the root package keeps for each
// section of a sitemap, and for the pseudo-sections beside them: the
// index, each section's feed, and the paths that name no file. It knows a
// section only by its row (the pages of each section, then the feeds,
// then the index) and its name; the root's SectionStats is its public
// face.
//
// The pseudo-sections have names no Section may take (a section name
// never starts with '_'):
//
//	"_index"      the index files (sitemap_index.xml, sitemap_index-N.xml)
//	"_feed"       the Atom feed of the unnamed section (sitemap.atom)
//	"_feed:NAME"  the Atom feed of section NAME (sitemap-NAME.atom)
//	"_other"      404s of sitemap paths that name no file (an unknown
//	              section, a page number that is not canonical)
//
// Every name comes from the configuration, never from a request, so a
// metrics label made of it has a fixed set of values.
package secstats

import (
	"errors"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"github.com/freshmap/sitemap/urlset"
)

// Names of the pseudo-sections.
const (
	IndexName = "_index"
	FeedName  = "_feed"
	OtherName = "_other"
)

// Bounds are the upper bounds of the build-duration buckets: 1 ms to 2
// minutes (the default BuildTimeout).
var Bounds = [...]time.Duration{
	time.Millisecond, 2500 * time.Microsecond, 5 * time.Millisecond,
	10 * time.Millisecond, 25 * time.Millisecond, 50 * time.Millisecond,
	100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2500 * time.Millisecond, 5 * time.Second,
	10 * time.Second, 30 * time.Second, 60 * time.Second, 120 * time.Second,
}

// Counters are the counters of one section or pseudo-section. The
// exported ones are added to by their callers; the others through the
// methods.
type Counters struct {
	name                     string
	Hits, Misses, Stale      atomic.Int64
	Builds, BuildErrors      atomic.Int64
	NotModified, NotFound    atomic.Int64
	Unavailable, BytesServed atomic.Int64

	buildNanos                   atomic.Int64
	buckets                      [len(Bounds) + 1]atomic.Uint64 // per bucket, not cumulative; the last is past every bound
	cachedDocuments, cachedBytes atomic.Int64                   // changed under the cache's lock

	mu       sync.Mutex
	rejected map[string]int64 // by reason; guarded by mu
	dropped  map[string]int64 // by field; guarded by mu
}

// Table holds the counters of every section of a sitemap.
type Table struct {
	Pages []Counters // by section index
	Feeds []Counters // by section index; used only by sections with a feed
	Index Counters
	Other Counters
}

// New makes the counters of n sections, section i named name(i).
func New(n int, name func(i int) string) *Table {
	t := &Table{Pages: make([]Counters, n), Feeds: make([]Counters, n)}
	t.Index.name, t.Other.name = IndexName, OtherName
	for i := range n {
		t.Pages[i].name = name(i)
		t.Feeds[i].name = FeedName
		if name(i) != "" {
			t.Feeds[i].name += ":" + name(i)
		}
	}
	return t
}

// At returns the counters of row i: the pages of each section, then the
// feeds, then the index.
func (t *Table) At(i int) *Counters {
	switch n := len(t.Pages); {
	case i < n:
		return &t.Pages[i]
	case i < 2*n:
		return &t.Feeds[i-n]
	}
	return &t.Index
}

// Name is the name of c's section or pseudo-section.
func (c *Counters) Name() string { return c.name }

// Observe counts a build that took d.
func (c *Counters) Observe(d time.Duration) {
	c.buildNanos.Add(int64(d))
	i := 0
	for i < len(Bounds) && d > Bounds[i] {
		i++
	}
	c.buckets[i].Add(1)
}

// Reject counts a URL skipped for err: by the Field of its
// *urlset.InvalidURLError, "page_full" for urlset.ErrPageFull, or
// "other".
func (c *Counters) Reject(err error) {
	reason := "other"
	var bad *urlset.InvalidURLError
	switch {
	case errors.As(err, &bad):
		reason = bad.Field
	case errors.Is(err, urlset.ErrPageFull):
		reason = "page_full"
	}
	c.count(&c.rejected, reason)
}

// Drop counts an element left out of a URL written, for err (an
// *urlset.InvalidURLError).
func (c *Counters) Drop(err error) {
	field := "other"
	if bad := (*urlset.InvalidURLError)(nil); errors.As(err, &bad) {
		field = bad.Field
	}
	c.count(&c.dropped, field)
}

// count adds one to (*m)[reason], under c.mu.
func (c *Counters) count(m *map[string]int64, reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if *m == nil {
		*m = make(map[string]int64)
	}
	(*m)[reason]++
}

// Cached counts a change of the cached documents of c: n documents of b
// bytes added (or, negative, removed).
func (c *Counters) Cached(n int, b int64) {
	if n != 0 {
		c.cachedDocuments.Add(int64(n))
	}
	c.cachedBytes.Add(b)
}

// Snapshot is what Counters held at one moment.
type Snapshot struct {
	Name                     string
	Hits, Misses, Stale      int64
	Builds, BuildErrors      int64
	NotModified, NotFound    int64
	Unavailable, BytesServed int64
	CachedDocuments          int
	CachedBytes              int64
	BuildCount               uint64   // builds timed
	BuildSeconds             float64  // their total duration
	BuildBuckets             []uint64 // cumulative, one per bound of Bounds
	Rejected, Dropped        map[string]int64
}

// Snapshot returns c's counters; its maps are the caller's.
func (c *Counters) Snapshot() Snapshot {
	s := Snapshot{
		Name: c.name, Hits: c.Hits.Load(), Misses: c.Misses.Load(), Stale: c.Stale.Load(),
		Builds: c.Builds.Load(), BuildErrors: c.BuildErrors.Load(),
		NotModified: c.NotModified.Load(), NotFound: c.NotFound.Load(), Unavailable: c.Unavailable.Load(),
		BytesServed:     c.BytesServed.Load(),
		CachedDocuments: int(c.cachedDocuments.Load()), CachedBytes: c.cachedBytes.Load(),
		BuildSeconds: time.Duration(c.buildNanos.Load()).Seconds(),
		BuildBuckets: make([]uint64, len(Bounds)),
	}
	for i := range c.buckets {
		s.BuildCount += c.buckets[i].Load()
		if i < len(s.BuildBuckets) {
			s.BuildBuckets[i] = s.BuildCount
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s.Rejected, s.Dropped = maps.Clone(c.rejected), maps.Clone(c.dropped)
	return s
}
