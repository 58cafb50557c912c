package sitemap

import (
	"context"
	"iter"
	"math"
	"slices"
	"sync"
	"time"
)

// PageInfo describes one page (one sitemap file) of a Source.
type PageInfo struct {
	// Number is the page's number, from 1. Numbers increase but may have
	// gaps: a page left empty by deletions is simply not reported.
	Number int64
	// LastMod is the newest LastMod among the page's URLs; zero if unknown.
	// It dates a page that has no history in this process, and a newer
	// LastMod than the bytes served says the page changed. The page's
	// <lastmod> in the index and its Last-Modified are its content clock,
	// which also moves when URLs leave the page (docs/content-clock.md).
	LastMod time.Time
	// Version is an opaque value that changes whenever the page's content
	// may have changed (for example its row count with its newest update
	// time); "" if unknown. With LastMod, it lets a cached copy of the page
	// be revalidated without reading it again.
	Version string
	// Changed is when the page's content last changed, if the Source keeps
	// it where it lasts (adapters/sqlsource's page summary does): it must
	// never move back, and must move with every change to the page's bytes
	// (a row added, edited, deleted or unpublished, and whatever else the
	// page is made of), to a time not before the change could be read. It
	// then gives the page's clock (its Last-Modified and index <lastmod>):
	// the second after it, in every process alike, so a restart keeps the
	// clocks with no Store or clock file (docs/content-clock.md). Zero if
	// unknown.
	Changed time.Time
}

// Source is an application's catalogue, read one page (one sitemap file) at a
// time. It is designed for catalogues of billions of URLs:
//
//   - Pages reports the non-empty pages without reading every URL: typically
//     one aggregate query over a key index, or arithmetic over a count.
//   - URLs reads one page directly, at a cost that does not grow with its
//     number: a key range (WHERE id >= lo AND id < hi), never an OFFSET.
//   - A page should be stable: a URL stays on the same page as others are
//     added or removed, so one change rewrites one file and a crawler can
//     refetch only that file. Paging by key range gives this for free.
//   - URLs are streamed one at a time, never collected into a slice.
//
// The contract:
//
//   - Pages yields pages in increasing Number order, at most once each,
//     and only pages that have at least one URL.
//   - URLs(ctx, n) yields the URLs of page n in a deterministic order, so
//     that the same data gives the same bytes. A page holds at most its
//     section's page size (50,000 at most), valid URLs or not: a URL past
//     that fails the page, as an error does, and is read no further. For a
//     page that does not exist or is empty, URLs yields nothing (the
//     handler answers 404).
//   - A Source returns its error through the iterator, as the second
//     value, and then stops. An error, even after some URLs, fails the whole
//     page: nothing of it is cached or served. The iterator must also stop
//     when yield returns false.
//   - The URL values yielded are only read until yield returns; their
//     slices may be reused.
//   - Methods are called concurrently, for different pages, and must honour
//     ctx cancellation. One that does not is stopped all the same where the
//     build can: URLs and Pages are read no further than the build's
//     deadline, give or take 256 items, and Pages no further than the
//     pages of 500 index files (25,000,000). A panic, or a runtime.Goexit,
//     fails the build as an error does.
type Source interface {
	Pages(ctx context.Context) iter.Seq2[PageInfo, error]
	URLs(ctx context.Context, page int64) iter.Seq2[URL, error]
}

// SegmentSource is implemented by a Source whose pages are cut into fixed
// segments that it can read apart, such as adapters/sqlsource (key
// sub-ranges of a page's key range). Page n's URLs, in order, are the
// URLs of its segments 0, 1, …, Segments()-1 in turn; a segment's bounds
// never move when rows are added or removed elsewhere, so a change
// rewrites one segment of one file. With it, a page is built and kept as
// independently compressed segments, and Sitemap.InvalidateKeys rebuilds
// only the segments of the keys it is given.
type SegmentSource interface {
	Source
	// Segments returns how many segments every page is cut into, 1 to 1,000.
	Segments() int
	// SegmentURLs yields the URLs of segment seg (0 to Segments()-1) of
	// page n, with the same contract as URLs (order, errors, ctx, reuse).
	SegmentURLs(ctx context.Context, page int64, seg int) iter.Seq2[URL, error]
	// SegmentOf returns the page and segment that hold the row with key
	// key; page 0 if none does (that key is then ignored).
	SegmentOf(key int64) (page int64, seg int)
}

// PageSizer is implemented by a Source whose pages hold at most a fixed
// number of URLs, such as those of FromSlice, FromSeq, FromRange and
// adapters/sqlsource. New then takes a section's page size from its Source:
// Section.PageSize may be left zero, and any other value is an error, since
// a smaller one would drop URLs and a larger one would not fill the files.
type PageSizer interface {
	// PageSize returns the most URLs one page holds, 1 to MaxURLs.
	PageSize() int
}

// RecentLister is implemented by a Source that can list its most recently
// changed URLs cheaply, such as adapters/sqlsource with one indexed query.
// With Config.FeedEntries set, each section whose Source implements it has
// an Atom feed of those URLs (feed.go); other sections have none.
//
// The contract:
//
//   - Recent(ctx, n) yields at most n URLs, newest first by LastMod, in a
//     deterministic order for equal LastMods, so that the same data gives
//     the same bytes. They are the URLs the section's pages list (the same
//     filter), and they follow the same URL rules: a URL that breaks one,
//     and a URL without LastMod (an Atom entry needs its updated time), is
//     skipped and reported like a rejected URL of a page, with page 0.
//   - Only Loc, LastMod and News (its Title titles the entry) are read;
//     images, videos and alternates need not be loaded.
//   - Errors, slice ownership, concurrency and ctx are as for URLs: an
//     error fails the feed (nothing is cached or served from it).
type RecentLister interface {
	Recent(ctx context.Context, n int) iter.Seq2[URL, error]
}

// PageReporter is implemented by a Source that can report one page's
// PageInfo cheaply, such as adapters/sqlsource's page summary with one
// query. A page rebuilt because it was said to have changed (Invalidate,
// InvalidateKeys, another replica's message) is built from the index read
// before that change; with a PageReporter, the rebuild looks at the page
// before and after reading its URLs, and when both looks show the same
// Version and change time, its bytes are exactly those of that change
// time and get the clock it gives, as a restart does (clock.go, rule 5).
//
// The contract:
//
//   - PageInfo(ctx, n) returns page n as Pages would report it now;
//     Number 0 if Pages would not list it. Errors and ctx are as for
//     Pages; an error leaves the rebuild to the other rules, and
//     errors.ErrUnsupported says the Source keeps no change time (the
//     rebuild does not look again).
//   - Version must change with every change that can reach the page's
//     bytes, and never come back to an earlier value.
//   - Changed is set only when it is settled: every later change of the
//     page will have a change time at least a second later (sqlsource's
//     summary moves a page's change time a second past the one before
//     with every batch it applies). A change time that may still move
//     within its second (a change waiting to be applied) is reported
//     zero.
type PageReporter interface {
	PageInfo(ctx context.Context, n int64) (PageInfo, error)
}

// SourceFunc is a Source built from two functions, for sources that need
// no type of their own.
type SourceFunc struct {
	PagesFunc func(ctx context.Context) iter.Seq2[PageInfo, error]
	URLsFunc  func(ctx context.Context, page int64) iter.Seq2[URL, error]
}

// Pages calls f.PagesFunc.
func (f SourceFunc) Pages(ctx context.Context) iter.Seq2[PageInfo, error] {
	return f.PagesFunc(ctx)
}

// URLs calls f.URLsFunc.
func (f SourceFunc) URLs(ctx context.Context, page int64) iter.Seq2[URL, error] {
	return f.URLsFunc(ctx, page)
}

// pageBounds returns the half-open range [lo, hi) of item indexes that page
// n (from 1) covers when pages hold size items, clamped to total.
func pageBounds(n, size, total int64) (lo, hi int64, ok bool) {
	if n < 1 || n > (total+size-1)/size {
		return 0, 0, false
	}
	lo = (n - 1) * size
	return lo, min(lo+size, total), true
}

func pageSizeOr(size int) int64 {
	if size <= 0 || size > MaxURLs {
		return MaxURLs
	}
	return int64(size)
}

// sizedSource is a SourceFunc that knows its page size: the Sources of
// FromSlice, FromSeq and FromRange.
type sizedSource struct {
	SourceFunc
	size int64
}

// PageSize implements PageSizer.
func (s sizedSource) PageSize() int { return int(s.size) }

// FromSlice returns a Source over urls, pageSize URLs a page (0 means
// 50,000). The slice is read, never written, and must not be changed
// afterwards; the pages' lastmods are computed once, here.
func FromSlice(urls []URL, pageSize int) Source {
	size := pageSizeOr(pageSize)
	total := int64(len(urls))
	infos := make([]PageInfo, 0, (total+size-1)/size)
	for lo := int64(0); lo < total; lo += size {
		info := PageInfo{Number: lo/size + 1}
		for _, u := range urls[lo:min(lo+size, total)] {
			info.LastMod = newer(info.LastMod, u.LastMod)
		}
		infos = append(infos, info)
	}
	s := sliceSource{urls: urls, sizedSource: sizedSource{size: size}}
	s.newest = sync.OnceValue(func() []int { return byNewest(urls) })
	s.PagesFunc = func(context.Context) iter.Seq2[PageInfo, error] {
		return func(yield func(PageInfo, error) bool) {
			for _, p := range infos {
				if !yield(p, nil) {
					return
				}
			}
		}
	}
	s.URLsFunc = func(_ context.Context, n int64) iter.Seq2[URL, error] {
		return func(yield func(URL, error) bool) {
			for _, u := range s.page(n) {
				if !yield(u, nil) {
					return
				}
			}
		}
	}
	return s
}

// sliceSource is FromSlice's Source. Its pages are slices of its URLs,
// which encodePage reads in place rather than through URLs.
type sliceSource struct {
	sizedSource
	urls   []URL
	newest func() []int // the indexes of the URLs with a LastMod, newest first; sorted once, when first asked
}

var _ RecentLister = sliceSource{}

// Recent implements RecentLister, so that a section of a list has a feed
// (Config.FeedEntries) and may be a Latest section: the n URLs with the
// newest LastMod, newest first, the earlier in the slice first among
// equal ones (TestFromSliceRecent). A URL without LastMod is left out
// rather than reported (it cannot be an Atom entry).
func (s sliceSource) Recent(ctx context.Context, n int) iter.Seq2[URL, error] {
	return func(yield func(URL, error) bool) {
		for i, at := range s.newest() {
			if i == n {
				return
			}
			if !yield(s.urls[at], nil) {
				return
			}
		}
	}
}

// byNewest returns the indexes of the URLs of urls that have a LastMod,
// newest first, in slice order among equal ones.
func byNewest(urls []URL) []int {
	var idx []int
	for i := range urls {
		if !urls[i].LastMod.IsZero() {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int { return urls[b].LastMod.Compare(urls[a].LastMod) })
	return idx
}

// page returns the URLs of page n: none if it has no page n.
func (s sliceSource) page(n int64) []URL {
	lo, hi, ok := pageBounds(n, s.size, int64(len(s.urls)))
	if !ok {
		return nil
	}
	return s.urls[lo:hi]
}

func newer(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// FromSeq returns a Source over the URLs that seq yields, pageSize a page
// (0 means 50,000). seq is run again for every request it serves: each
// call of Pages reads it whole, and page n reads the URLs before it, so it
// suits small and medium sites, or a seq that is cheap to replay. seq must
// yield the same URLs in the same order every time.
func FromSeq(seq iter.Seq[URL], pageSize int) Source {
	size := pageSizeOr(pageSize)
	return sizedSource{size: size, SourceFunc: SourceFunc{
		PagesFunc: func(ctx context.Context) iter.Seq2[PageInfo, error] {
			return func(yield func(PageInfo, error) bool) {
				var info PageInfo
				var i int64
				for u := range seq {
					if i%size == 0 {
						if info.Number > 0 && !yield(info, nil) {
							return
						}
						info = PageInfo{Number: i/size + 1}
						if err := ctx.Err(); err != nil {
							yield(PageInfo{}, err)
							return
						}
					}
					info.LastMod = newer(info.LastMod, u.LastMod)
					i++
				}
				if info.Number > 0 {
					yield(info, nil)
				}
			}
		},
		URLsFunc: func(ctx context.Context, n int64) iter.Seq2[URL, error] {
			return func(yield func(URL, error) bool) {
				if n < 1 || n-1 >= math.MaxInt64/size {
					return // no seq holds that many URLs
				}
				lo, hi, i := (n-1)*size, n*size, int64(0)
				for u := range seq {
					if i >= hi {
						return
					}
					if i%size == 0 { // skipping earlier pages can take a while
						if err := ctx.Err(); err != nil {
							yield(URL{}, err)
							return
						}
					}
					if i >= lo && !yield(u, nil) {
						return
					}
					i++
				}
			}
		},
	}}
}

// FromRange returns a Source for a catalogue that can count its items and
// read any range of them by position, such as a file of fixed-size records
// or a generated catalogue. Page n holds items [(n-1)*pageSize, n*pageSize)
// (pageSize 0 means 50,000), clamped to the count; read is called with that
// range, never with one past the count, and must yield those items in
// order (any more are ignored). Pages calls count once and reads no item,
// so the index reports no lastmod; URLs calls count too, to find where the
// catalogue ends.
//
// A database table is better served by a key-range source (such as
// adapters/sqlsource): positions shift when rows are deleted, keys do not.
func FromRange(count func(ctx context.Context) (int64, error), read func(ctx context.Context, lo, hi int64) iter.Seq2[URL, error], pageSize int) Source {
	size := pageSizeOr(pageSize)
	return sizedSource{size: size, SourceFunc: SourceFunc{
		PagesFunc: func(ctx context.Context) iter.Seq2[PageInfo, error] {
			return func(yield func(PageInfo, error) bool) {
				total, err := count(ctx)
				if err != nil {
					yield(PageInfo{}, err)
					return
				}
				for n := int64(1); (n-1)*size < total; n++ {
					if !yield(PageInfo{Number: n}, nil) {
						return
					}
				}
			}
		},
		URLsFunc: func(ctx context.Context, n int64) iter.Seq2[URL, error] {
			return func(yield func(URL, error) bool) {
				if n < 1 {
					return
				}
				total, err := count(ctx)
				if err != nil {
					yield(URL{}, err)
					return
				}
				lo, hi, ok := pageBounds(n, size, total)
				if !ok {
					return
				}
				left := hi - lo
				for u, err := range read(ctx, lo, hi) {
					if err != nil {
						yield(URL{}, err)
						return
					}
					if !yield(u, nil) {
						return
					}
					if left--; left == 0 {
						return
					}
				}
			}
		},
	}}
}
