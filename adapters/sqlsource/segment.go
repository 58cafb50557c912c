package sqlsource

import (
	"context"
	"fmt"
	"iter"

	"github.com/freshmap/sitemap"
)

// Segments: each page's key range is cut into fixed sub-ranges of
// Config.SegmentSize keys, from the page's first key on (the last may be
// shorter), which a Sitemap reads, compresses and replaces apart. A
// segment's bounds are key arithmetic, like a page's, so they never move
// when rows come or go elsewhere: a changed row rewrites one segment.

var _ sitemap.SegmentSource = (*Source)(nil)

const (
	defaultSegments = 20   // the default cut of a page: a twentieth each
	maxSegments     = 1000 // the most segments a page may have
)

// segmentSize returns the keys of one segment and the segments of a page
// of page keys, for Config.SegmentSize want.
func segmentSize(want int, page int64) (size int64, n int, err error) {
	switch {
	case want < 0:
		return 0, 0, fmt.Errorf("sqlsource: Config.SegmentSize %d is negative; for one segment a page, make it the page size, %d", want, page)
	case want == 0:
		size = (page + defaultSegments - 1) / defaultSegments
	case int64(want) > page:
		return 0, 0, fmt.Errorf("sqlsource: Config.SegmentSize %d is larger than a page (PageSize %d)", want, page)
	default:
		size = int64(want)
	}
	if segs := (page + size - 1) / size; segs > maxSegments {
		return 0, 0, fmt.Errorf("sqlsource: Config.SegmentSize %d cuts a page of %d keys into %d segments, more than %d: make it at least %d",
			want, page, segs, maxSegments, (page+maxSegments-1)/maxSegments)
	}
	return size, int((page + size - 1) / size), nil
}

// Segments returns how many segments every page is cut into: PageSize
// divided by Config.SegmentSize, rounded up (20 by default).
func (s *Source) Segments() int { return s.segs }

// SegmentOf returns the page and the segment that hold the row whose key
// is key, listed or not. A key on no page (see PageOf) gives page 0.
func (s *Source) SegmentOf(key int64) (page int64, seg int) {
	n := s.PageOf(key)
	if n == 0 {
		return 0, 0
	}
	lo, _, _ := s.bounds(n)
	return n, int((key - lo) / s.seg) // key-lo is below the page size
}

// SegmentURLs streams the URLs of segment seg (0 to Segments()-1) of page
// n: the rows of its key sub-range, with the same filter, order, Loaders
// (whose Page has the segment's bounds) and Annotate as URLs, in one
// query (and one per Loader). Page n's segments 0, 1, … in turn yield
// exactly what URLs(n) yields. A segment out of range is an error; a page
// or segment with no row yields nothing.
func (s *Source) SegmentURLs(ctx context.Context, n int64, seg int) iter.Seq2[sitemap.URL, error] {
	if seg < 0 || seg >= s.segs {
		return func(yield func(sitemap.URL, error) bool) {
			yield(sitemap.URL{}, fmt.Errorf("sqlsource: page %d: segment %d is out of range 0 to %d", n, seg, s.segs-1))
		}
	}
	lo, hi, ok := s.segmentBounds(n, seg)
	if !ok {
		return func(func(sitemap.URL, error) bool) {}
	}
	return s.rangeURLs(ctx, n, seg, lo, hi)
}

// segmentBounds returns the keys lo through hi (inclusive) of segment seg
// of page n, or false if there is no such page, or the page (the last one
// an int64 can hold) ends before the segment begins.
func (s *Source) segmentBounds(n int64, seg int) (lo, hi int64, ok bool) {
	plo, phi, ok := s.bounds(n)
	if !ok {
		return 0, 0, false
	}
	off := int64(seg) * s.seg
	if off > phi-plo { // phi-plo is below the page size
		return 0, 0, false
	}
	lo, hi = plo+off, phi
	if hi-lo > s.seg-1 {
		hi = lo + s.seg - 1
	}
	return lo, hi, true
}
