// Package segment cuts a page's XML, as it is written, into segments that
// are compressed apart (internal/gzsplice) and joined into one gzip
// member, and keeps a table of them with the page: a rebuild then
// compresses only the segments whose bytes changed, and a page whose
// Source reads its segments apart can have some of them read again and
// spliced in with the others kept.
//
// A page is its prologue (the XML declaration, the stylesheet line and
// the <urlset> tag), its segments of whole <url> entries, and its
// epilogue (</urlset>), each one segment. Where the body is cut is either
// the Source's (its own segments, Cut after each) or the content's: after
// an entry whose location hashes to a value with its low bits zero, or
// after MaxEntries entries or MaxRun bytes since the last cut. A cut that
// depends only on the entries since the last one keeps every other
// segment's bytes when an entry is added, changed or removed: the next
// content cut after it resynchronises.
package segment

import (
	"bytes"
	"errors"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/freshmap/sitemap/internal/gzsplice"
)

// The content cut: a mean of 2,048 entries a segment, at most four times
// that, and at most MaxRun bytes, so a segment stays bounded.
const (
	cutMask    = 1<<11 - 1
	MaxEntries = 4 * (cutMask + 1)
	MaxRun     = 4 << 20
)

// Seg is one segment of a page as kept: its compressed bytes and what
// the page's figures are summed from.
type Seg struct {
	Z      *gzsplice.Segment
	URLs   int       // <url> entries in it
	Read   int       // URLs the Source yielded for it (rejected ones too)
	Newest time.Time // its newest lastmod; zero if none
	// Volatile: its bytes depend on the build's time (a lastmod in the
	// future written as the build time), so it is never kept as it is.
	Volatile bool
}

// Table is a page's segments in order: the prologue, the body's, the
// epilogue.
type Table struct {
	Level    int       // the gzip level they were compressed at
	BySource bool      // the body is cut where the Source's segments end
	Full     time.Time // when the page was last read whole from its Source
	Segs     []Seg
}

// Body returns the body's segments, those of the entries.
func (t *Table) Body() []Seg {
	if len(t.Segs) < 2 {
		return nil
	}
	return t.Segs[1 : len(t.Segs)-1]
}

// URLs is the number of entries of the page.
func (t *Table) URLs() int {
	n := 0
	for _, s := range t.Segs {
		n += s.URLs
	}
	return n
}

// Size is the length of the page's XML.
func (t *Table) Size() int64 {
	var n int64
	for _, s := range t.Segs {
		n += s.Z.Size()
	}
	return n
}

// Newest is the newest lastmod of the page; zero if none.
func (t *Table) Newest() time.Time {
	var n time.Time
	for _, s := range t.Segs {
		if s.Newest.After(n) {
			n = s.Newest
		}
	}
	return n
}

// Sum is the page's hash, from its segments' alone (gzsplice.SumOf).
func (t *Table) Sum() uint64 { return gzsplice.SumOf(t.zs()) }

func (t *Table) zs() []*gzsplice.Segment {
	zs := make([]*gzsplice.Segment, len(t.Segs))
	for i := range t.Segs {
		zs[i] = t.Segs[i].Z
	}
	return zs
}

// key names a segment's bytes: their hash and length.
type key struct {
	sum uint64
	n   int64
}

// mark is a boundary of the stream still to come: the run up to stream
// offset at ends a segment with info's figures; or, with keep, a kept
// segment goes there.
type mark struct {
	at   int64
	info Seg
	keep *Seg
}

// Writer takes a page's XML as the encoder writes it (Write), told where
// its entries end (Start, Entry, Cut, Keep), and makes the page's
// segments. It holds the bytes of one segment at most, and what the
// encoder wrote ahead of it.
type Writer struct {
	level     int
	byContent bool
	old       map[key]*gzsplice.Segment // the previous copy's segments, by their bytes
	buf       []byte                    // the stream from offset base, not yet in a segment
	base      int64
	end       int64 // the stream offset past the last entry told of
	cur       Seg   // the figures of the segment being gathered
	marks     []mark
	segs      []Seg
	fresh     int // segments compressed, not kept
	err       error
}

// NewWriter returns a Writer that compresses at level; cuts by content
// unless bySource (then Cut is called at the end of each of the Source's
// segments). The segments of old, a table of the page's previous copy
// (nil if none), are reused where the same bytes come again.
func NewWriter(level int, bySource bool, old *Table) *Writer {
	w := &Writer{level: level, byContent: !bySource}
	if old != nil && old.Level == level {
		w.old = make(map[key]*gzsplice.Segment, len(old.Segs))
		for _, s := range old.Segs {
			w.old[key{s.Z.Sum(), s.Z.Size()}] = s.Z
		}
	}
	return w
}

// Start says that the prologue is the stream's first n bytes.
func (w *Writer) Start(n int64) {
	w.end = n
	w.Cut()
}

// Entry is told of each <url> entry as written, in order, with its
// lastmod (the encoder's Visit); volatile if its bytes depend on the
// build's time. It cuts after it where the content says so.
func (w *Writer) Entry(elem []byte, lastmod time.Time) {
	w.end += int64(len(elem))
	w.cur.URLs++
	if lastmod.After(w.cur.Newest) {
		w.cur.Newest = lastmod
	}
	if w.byContent && (xxhash.Sum64(loc(elem))&cutMask == 0 || w.cur.URLs >= MaxEntries || w.end-w.runStart() >= MaxRun) {
		w.Cut()
	}
}

// runStart is the stream offset where the segment being gathered starts.
func (w *Writer) runStart() int64 {
	if n := len(w.marks); n > 0 {
		return w.marks[n-1].at
	}
	return w.base
}

// loc is the location of a <url> entry, as written.
func loc(elem []byte) []byte {
	elem = elem[min(len(elem), len("<url><loc>")):]
	if i := bytes.Index(elem, []byte("</loc>")); i >= 0 {
		return elem[:i]
	}
	return elem
}

// Volatile marks the segment being gathered as depending on the build's
// time.
func (w *Writer) Volatile() { w.cur.Volatile = true }

// Read adds n to the URLs the Source yielded for the segment being
// gathered.
func (w *Writer) Read(n int) { w.cur.Read += n }

// Cut ends the segment being gathered after the last entry told of, even
// an empty one (a Source's segment with no URL).
func (w *Writer) Cut() {
	w.marks = append(w.marks, mark{at: w.end, info: w.cur})
	w.cur = Seg{}
	w.drain()
}

// Keep puts s, a segment of the previous copy, next, as it is; it comes
// after a Cut, with nothing gathered since.
func (w *Writer) Keep(s Seg) {
	w.marks = append(w.marks, mark{at: w.end, keep: &s})
	w.drain()
}

// Write takes the encoder's bytes.
func (w *Writer) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	w.buf = append(w.buf, p...)
	w.drain()
	return len(p), w.err
}

// drain makes the segments whose bytes have all come.
func (w *Writer) drain() {
	for len(w.marks) > 0 && w.marks[0].at <= w.base+int64(len(w.buf)) {
		m := w.marks[0]
		w.marks = w.marks[1:]
		if m.keep != nil {
			w.segs = append(w.segs, *m.keep)
			continue
		}
		n := m.at - w.base
		w.emit(w.buf[:n], m.info)
		w.buf = append(w.buf[:0], w.buf[n:]...)
		w.base = m.at
	}
	if len(w.marks) == 0 {
		w.marks = w.marks[:0:0] // let a long page's marks go
	}
}

// emit makes the segment of run, or reuses the previous copy's.
func (w *Writer) emit(run []byte, info Seg) {
	if w.err != nil {
		return
	}
	sum := xxhash.Sum64(run)
	if z := w.old[key{sum, int64(len(run))}]; z != nil && !info.Volatile {
		info.Z = z
	} else {
		info.Z, w.err = gzsplice.NewSegmentSum(run, w.level, sum)
		w.fresh++
	}
	w.segs = append(w.segs, info)
}

// Fresh is how many segments were compressed, not kept or reused.
func (w *Writer) Fresh() int { return w.fresh }

// Close makes the epilogue, the rest of the stream, and returns the page:
// its gzip file and its table, whose segments hold their bytes in it.
func (w *Writer) Close() ([]byte, *Table, error) {
	if w.cur.URLs > 0 {
		w.Cut() // entries after the last cut: a body segment before the epilogue
	}
	if w.err == nil && len(w.marks) > 0 {
		w.err = errors.New("segment: a boundary past the end of the stream")
	}
	w.emit(w.buf, Seg{})
	if w.err != nil {
		return nil, nil, w.err
	}
	t := &Table{Level: w.level, BySource: !w.byContent, Segs: w.segs}
	gz, zs := gzsplice.JoinShared(t.zs())
	for i := range t.Segs {
		t.Segs[i].Z = zs[i]
	}
	return gz, t, nil
}
