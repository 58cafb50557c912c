package sitemap

import (
	"bytes"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/freshmap/sitemap/internal/readback"
)

// Change is what one rebuilt page changed, as the library derives it: the
// URLs it gained, the URLs whose entry differs (another lastmod, or any
// other byte of their <url> element), and the URLs it lost. URLs the
// application names with Notify come as Changed, with Page 0.
//
// A page is compared with its previous copy, kept as a hash per URL (16
// bytes a URL, counted in CacheBytes) while change tracking is on; a copy
// taken from the Store, which keeps no hashes, has them read back from
// its bytes (sumsOf). When there is no previous copy (its first build in this process, or after an
// eviction) nothing is guessed: only URLs whose lastmod is newer than the
// page's last known content clock count as changed, so a cold start or an
// eviction never reports a whole page.
type Change struct {
	Section string
	Page    int64
	Added   []string
	Changed []string
	Removed []string
}

// empty reports whether c names no URL.
func (c *Change) empty() bool { return len(c.Added)+len(c.Changed)+len(c.Removed) == 0 }

// urlSum identifies one <url> element of a page: its location and its
// bytes, hashed.
type urlSum struct{ loc, entry uint64 }

// tracker derives the changes of one page as it is encoded: it is the
// encoder's visit function. A page keeps its order from build to build
// (a Source reads it in key order), so the new URLs are matched with the
// previous copy's in step, and only from the first mismatch on (an
// insertion or a removal) are the rest of the previous copy's hashes put
// in a map.
type tracker struct {
	prev    []urlSum          // the previous copy's hashes, in order; nil if none
	next    int               // the previous copy's URL expected next, while in step
	rest    map[uint64]uint64 // loc → entry hash of prev[next:], once out of step
	since   time.Time         // with no previous copy: lastmods after this count as changed
	useTime bool
	sums    []urlSum
	added   []string
	changed []string
}

// newTracker prepares to compare a page with prev, the hashes of its
// previous copy (nil if there is none); since is the page's last known
// clock, used when there is no previous copy (zero: none known).
func newTracker(prev []urlSum, since time.Time, size int) *tracker {
	return &tracker{prev: prev, since: since, useTime: prev == nil && !since.IsZero(), sums: make([]urlSum, 0, size)}
}

// visit takes one <url> element as written, "<url><loc>LOC</loc>…</url>".
func (t *tracker) visit(entry []byte, lastmod time.Time) {
	loc := entry[len("<url><loc>"):]
	loc = loc[:bytes.Index(loc, []byte("</loc>"))]
	s := urlSum{loc: xxhash.Sum64(loc), entry: xxhash.Sum64(entry)}
	t.sums = append(t.sums, s)
	switch {
	case t.prev == nil:
		if t.useTime && lastmod.After(t.since) {
			t.changed = append(t.changed, string(readback.AppendUnescapedLoc(nil, loc)))
		}
	case t.rest == nil && t.next < len(t.prev) && t.prev[t.next].loc == s.loc:
		if t.prev[t.next].entry != s.entry {
			t.changed = append(t.changed, string(readback.AppendUnescapedLoc(nil, loc)))
		}
		t.next++
	default:
		if t.rest == nil {
			t.rest = make(map[uint64]uint64, len(t.prev)-t.next)
			for _, p := range t.prev[t.next:] {
				t.rest[p.loc] = p.entry
			}
		}
		prev, ok := t.rest[s.loc]
		switch {
		case !ok:
			t.added = append(t.added, string(readback.AppendUnescapedLoc(nil, loc)))
		case prev != s.entry:
			t.changed = append(t.changed, string(readback.AppendUnescapedLoc(nil, loc)))
		}
		delete(t.rest, s.loc)
	}
}

// removed returns the locations of the previous copy, oldGz, that the new
// one does not hold. It decompresses oldGz only when there are any.
func (t *tracker) removed(oldGz []byte) ([]string, error) {
	gone := t.rest
	if gone == nil && t.next < len(t.prev) { // in step to the end, with old URLs left over
		gone = make(map[uint64]uint64, len(t.prev)-t.next)
		for _, p := range t.prev[t.next:] {
			gone[p.loc] = p.entry
		}
	}
	if len(gone) == 0 {
		return nil, nil
	}
	var out []string
	err := readback.EachLoc(oldGz, func(loc []byte) {
		if _, ok := gone[xxhash.Sum64(loc)]; ok {
			out = append(out, string(readback.AppendUnescapedLoc(nil, loc)))
		}
	})
	return out, err
}

// sumsOf returns the hashes of the <url> elements of gz, as the tracker
// (changes.go) took them while the page was built, for a page whose
// previous copy carries none (one taken from the Store).
func sumsOf(gz []byte) ([]urlSum, error) {
	var sums []urlSum
	err := readback.Sums(gz, func(loc, entry uint64) { sums = append(sums, urlSum{loc: loc, entry: entry}) })
	if err != nil {
		return nil, err
	}
	return sums, nil
}
