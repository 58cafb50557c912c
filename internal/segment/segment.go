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
	"errors"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/freshmap/sitemap/internal/gzsplice"
)

// The content cut: a mean of 4,096 entries a segment, at most four times
// that, and at most MaxRun bytes, so a segment stays bounded.
const (
	cutBits    = 12
	MaxEntries = 4 << cutBits
	MaxRun     = 4 << 20
)

// A segment cut by its Source is compressed as units (gzsplice.Chain),
// cut by content: after an entry whose location hashes (Ended) to a value with its
// top unitBits bits zero, a mean of 1,024 entries, or after maxUnitEntries
// entries or maxUnitRun bytes. A segment read again compresses only the
// units whose bytes or dictionary changed.
const (
	unitBits       = 8
	minUnitEntries = 768
	maxUnitEntries = 4 << 10
	maxUnitRun     = 1 << 20
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

// later is a segment a helper compresses: its place in segs, its result.
type later struct {
	at  int
	res *result
}

// parFrom is how far a cold build's stream goes before it asks for
// helpers (parallel.go): a smaller page costs more in hand-offs than it
// would gain.
const parFrom = 256 << 10

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
	unit bool // only a unit of the segment ends here
}

// ukey names a unit's bytes and its dictionary's.
type ukey struct {
	sum  uint64
	n    int64
	dict uint64
}

// Writer takes a page's XML as the encoder writes it (Write), told where
// its entries end (Start, Entry, Cut, Keep), and makes the page's
// segments. It holds the bytes of one segment at most, and what the
// encoder wrote ahead of it.
type Writer struct {
	level     int
	byContent bool
	old       map[key]*gzsplice.Segment // the previous copy's segments, by their bytes
	oldUnits  map[ukey]gzsplice.Unit    // and their units (cut by Source), by theirs and their dictionary's
	cuts      []int64                   // the stream offsets where units of the segment gathered end (with old)
	unitN     int                       // entries since the last unit's end
	unitStart int64                     // the stream offset where that unit starts
	buf       []byte                    // the stream from offset base, not yet in a segment (with old)
	sw        *gzsplice.SegmentWriter   // the segment being compressed as it comes (without old)
	open      bool                      // the segment being streamed has begun
	async     bool                      // and its helper compresses it
	par       *helpers                  // nil if there is no core to spare, or not yet asked
	parTried  bool
	later     []later // the segments helpers compress, filled in at Close
	base      int64
	end       int64 // the stream offset past the last entry told of
	start     int64 // the stream offset where the segment being gathered starts
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
		if bySource {
			w.oldUnits = make(map[ukey]gzsplice.Unit)
			for _, s := range old.Segs {
				for _, u := range s.Z.Units() {
					w.oldUnits[ukey{u.Sum, u.N, u.Dict}] = u
				}
			}
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
// lastmod (the encoder's Visit), when the body is cut by the Source.
func (w *Writer) Entry(elem []byte, lastmod time.Time) {
	w.end += int64(len(elem))
	w.cur.URLs++
	if lastmod.After(w.cur.Newest) {
		w.cur.Newest = lastmod
	}
}

// Ended is told of each <url> entry written, in order: end is the
// stream offset past it, loc its URL's location (as the Source gave it).
// It cuts after it where the content says so: where a hash of the
// location, from its length and its last 16 bytes (where the locations of
// one site differ most), has its top cutBits bits zero. That is cheaper
// than a hash of all its bytes, and it only places cuts; the top bits of
// the product depend on every bit read. When the body is cut by the
// Source (Entry is told of the entry too), it ends a unit of the
// segment there where the hash's top unitBits bits are zero.
func (w *Writer) Ended(end int64, loc string) {
	var a, b uint64
	if n := len(loc); n >= 16 {
		a, b = le64(loc[n-16:]), le64(loc[n-8:])
	} else {
		for i := 0; i < n; i++ {
			a = a<<8 | b>>56
			b = b<<8 | uint64(loc[i])
		}
	}
	h := (a*0x9e3779b97f4a7c15 ^ b ^ uint64(len(loc))) * 0xc2b2ae3d27d4eb4f
	h = (h ^ h>>31) * 0x165667b19e3779f9
	if !w.byContent {
		w.unitEnded(h)
		return
	}
	w.end = end
	w.cur.URLs++
	if h>>(64-cutBits) == 0 || w.cur.URLs >= MaxEntries || end-w.start >= MaxRun {
		w.Cut()
	}
}

// unitEnded ends a unit after the entry just told (Entry), whose
// location hashes to h, where the content says so, or where the unit
// reached maxUnitEntries or maxUnitRun.
func (w *Writer) unitEnded(h uint64) {
	w.unitN++
	if w.unitN >= minUnitEntries && h>>(64-unitBits) == 0 || w.unitN >= maxUnitEntries || w.end-w.unitStart >= maxUnitRun {
		w.marks = append(w.marks, mark{at: w.end, unit: true})
		w.unitN, w.unitStart = 0, w.end
		w.drain()
	}
}

// BySource reports whether the body is cut by the Source (Entry), not by
// its content (Ended).
func (w *Writer) BySource() bool { return !w.byContent }

// le64 reads the first 8 bytes of s, little-endian.
func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
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
	if w.old == nil && w.end < w.base && w.err == nil {
		w.err = errors.New("segment: a cut behind the bytes compressed")
	}
	if n := len(w.marks); n > 0 && w.marks[n-1].unit && w.marks[n-1].at == w.end {
		w.marks = w.marks[:n-1] // the unit ends with its segment
	}
	w.marks = append(w.marks, mark{at: w.end, info: w.cur})
	w.cur, w.start = Seg{}, w.end
	w.unitN, w.unitStart = 0, w.end
	w.drain()
}

// EndBody ends the body: a cut after the last entry, if none is there,
// before the epilogue is written.
func (w *Writer) EndBody() {
	if w.cur.URLs > 0 {
		w.Cut()
	}
}

// Keep puts s, a segment of the previous copy, next, as it is; it comes
// after a Cut, with nothing gathered since.
func (w *Writer) Keep(s Seg) {
	w.marks = append(w.marks, mark{at: w.end, keep: &s})
	w.drain()
}

// Write takes the encoder's bytes. With no previous copy's segments to
// reuse they are compressed as they come (stream); else a segment's bytes
// are gathered, to be hashed before they are compressed.
func (w *Writer) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	n := len(p)
	if w.old == nil {
		w.stream(p)
		return n, w.err
	}
	w.buf = append(w.buf, p...)
	w.drain()
	return n, w.err
}

// stream compresses p, the stream's bytes from base, into the segments
// they belong to, ending each at its mark.
func (w *Writer) stream(p []byte) {
	for w.err == nil {
		w.ended()
		if len(p) == 0 {
			return
		}
		k := len(p)
		if len(w.marks) > 0 {
			k = int(min(int64(k), w.marks[0].at-w.base))
		}
		if !w.open && k > 0 { // a segment's first bytes
			w.open = true
			if w.par == nil && !w.parTried && w.base >= parFrom {
				w.par, w.parTried = startHelpers(w.level, !w.byContent), true
			}
			if w.async = w.par != nil; !w.async {
				if w.byContent {
					w.sw, w.err = gzsplice.NewSegmentWriter(w.level)
				} else {
					w.sw, w.err = gzsplice.NewChainWriter(w.level)
				}
				if w.err != nil {
					return
				}
			}
		}
		if w.async {
			w.par.write(p[:k])
		} else {
			w.sw.Write(p[:k])
		}
		w.base += int64(k)
		p = p[k:]
	}
}

// ended makes, when streaming, the segments whose marks the stream has
// reached.
func (w *Writer) ended() {
	for w.err == nil && len(w.marks) > 0 && w.marks[0].at <= w.base {
		m := w.marks[0]
		w.marks = w.marks[:copy(w.marks, w.marks[1:])] // few wait: kept in place, not regrown
		switch {
		case m.unit && w.async:
			w.par.endUnit()
		case m.unit && w.sw != nil:
			w.sw.EndUnit()
		case m.unit:
		case m.keep != nil:
			w.segs = append(w.segs, *m.keep)
		default:
			w.endStream(m.info)
		}
	}
}

// endStream ends the segment being streamed, an empty one if none.
func (w *Writer) endStream(info Seg) {
	switch {
	case w.async:
		w.later = append(w.later, later{at: len(w.segs), res: w.par.end()})
	case w.sw == nil:
		info.Z, w.err = gzsplice.NewSegment(nil, w.level)
	default:
		info.Z, w.err = w.sw.Close()
		w.sw = nil
	}
	w.open, w.async = false, false
	w.fresh++
	w.segs = append(w.segs, info)
}

// drain makes the segments whose bytes have all come.
func (w *Writer) drain() {
	if w.old == nil {
		w.ended()
		return
	}
	for len(w.marks) > 0 && w.marks[0].at <= w.base+int64(len(w.buf)) {
		m := w.marks[0]
		w.marks = w.marks[1:]
		if m.unit {
			w.cuts = append(w.cuts, m.at-w.base)
			continue
		}
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
	if !w.byContent {
		w.emitUnits(run, info)
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

// emitUnits makes the segment of run, cut by the Source, from its units
// (cut at w.cuts), each the previous copy's where its bytes and its
// dictionary come again.
func (w *Writer) emitUnits(run []byte, info Seg) {
	var units []gzsplice.Unit
	var dict []byte
	start := 0
	for i := 0; i <= len(w.cuts) && w.err == nil; i++ {
		end := len(run)
		if i < len(w.cuts) {
			end = int(w.cuts[i])
		}
		if end <= start || end > len(run) {
			continue
		}
		u := run[start:end]
		sum := xxhash.Sum64(u)
		if z, ok := w.oldUnits[ukey{sum, int64(len(u)), gzsplice.DictSum(dict)}]; ok && !info.Volatile {
			units = append(units, z)
		} else {
			var z gzsplice.Unit
			z, w.err = gzsplice.NewUnit(u, dict, w.level, sum)
			units = append(units, z)
			w.fresh++
		}
		dict, start = gzsplice.DictOf(u), end
	}
	w.cuts = w.cuts[:0]
	if w.err != nil {
		return
	}
	if len(units) == 0 { // an empty segment
		info.Z, w.err = gzsplice.NewSegment(nil, w.level)
		w.fresh++
	} else {
		info.Z = gzsplice.Chain(units)
	}
	w.segs = append(w.segs, info)
}

// Fresh is how many segments, or units of a segment cut by the Source,
// were compressed, not kept or reused.
func (w *Writer) Fresh() int { return w.fresh }

// Abort gives back what the Writer holds: the compressor of the segment
// being compressed, and its helpers once they are done. A Writer that is
// not closed (the page failed) must be aborted; Close does it too.
func (w *Writer) Abort() {
	if w.sw != nil {
		w.sw.Close()
		w.sw = nil
	}
	w.par.wait()
}

// Close makes the epilogue, the rest of the stream, and returns the page:
// its gzip file and its table, whose segments hold their bytes in it.
func (w *Writer) Close() ([]byte, *Table, error) {
	w.EndBody()
	if w.err == nil && len(w.marks) > 0 {
		w.err = errors.New("segment: a boundary past the end of the stream")
	}
	switch {
	case w.err != nil:
	case w.old == nil:
		w.endStream(Seg{})
	default:
		w.emit(w.buf, Seg{})
	}
	w.Abort() // the helpers' work done, or given up after an error
	for _, l := range w.later {
		if w.err == nil {
			w.segs[l.at].Z, w.err = l.res.z, l.res.err
		}
	}
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
