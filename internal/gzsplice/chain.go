package gzsplice

// Units: a Segment compressed as several runs, its units, each with the
// last DictSize bytes of the unit before it as its preset dictionary
// (RFC 1951's window filled before the first block), so that a long
// Segment costs little more than one stream while a change to it
// compresses again only the units whose bytes, or whose dictionary,
// changed. A unit's back-references may reach into its dictionary: in
// the joined stream those bytes are the ones just before it, so the
// deflate bytes of a unit are valid after that dictionary only. A unit is
// therefore reused under the hash of its dictionary as well as of its
// own bytes (Unit.Dict), and a change within the last DictSize bytes of a
// unit compresses the next one again too. The first unit of a Segment has
// no dictionary, so a Segment still reads back alone (Member).
//
// A unit's deflate bytes depend only on its bytes, its dictionary and
// the level, so a Segment chained from units compressed now and units
// kept (Chain) has the bytes of one written whole (NewChainWriter).

import (
	"bytes"
	"encoding/binary"

	"github.com/cespare/xxhash/v2"
)

// DictSize is how much of a unit's end is the next unit's dictionary.
const DictSize = 12 << 10

// part is a unit of a Segment: where its deflate bytes end in the
// Segment's, and what Unit says of it.
type part struct {
	end  int
	crc  uint32
	n    int64
	sum  uint64
	dict uint64
}

// Unit is one unit of a Segment: its deflate bytes (blocks, none final,
// ending on a byte boundary), the CRC-32, length and xxhash64 of its run,
// and DictSum of its dictionary.
type Unit struct {
	Deflate []byte
	CRC     uint32
	N       int64
	Sum     uint64
	Dict    uint64
}

// DictSum names a dictionary: 0 for none, else its xxhash64.
func DictSum(dict []byte) uint64 {
	if len(dict) == 0 {
		return 0
	}
	return xxhash.Sum64(dict)
}

// DictOf is the dictionary of the unit after run: its last DictSize
// bytes.
func DictOf(run []byte) []byte { return run[max(0, len(run)-DictSize):] }

// NewUnit compresses data at level into a unit whose dictionary is dict
// (nil for a Segment's first unit); sum is data's xxhash64.
func NewUnit(data, dict []byte, level int, sum uint64) (Unit, error) {
	c, err := newCompressor(level)
	if err != nil {
		return Unit{}, err
	}
	if len(dict) > 0 {
		c.zw.ResetDict(c.buf, dict)
		c.dict = true
	}
	c.Write(data)
	if err = c.err; err == nil {
		err = c.zw.Flush()
	}
	u := Unit{Deflate: bytes.Clone(c.buf.Bytes()), CRC: c.crc, N: c.n, Sum: sum, Dict: DictSum(dict)}
	c.release()
	return u, err
}

// Units returns the Segment's units, whose Deflate are its own bytes.
func (s *Segment) Units() []Unit {
	if len(s.units) == 0 {
		return []Unit{{Deflate: s.deflate, CRC: s.crc, N: s.n, Sum: s.sum}}
	}
	us := make([]Unit, len(s.units))
	start := 0
	for i, p := range s.units {
		us[i] = Unit{Deflate: s.deflate[start:p.end:p.end], CRC: p.crc, N: p.n, Sum: p.sum, Dict: p.dict}
		start = p.end
	}
	return us
}

// Chain makes the Segment of units, in order: the first has no
// dictionary, each other has DictOf the run of the one before. Nothing
// is compressed: it costs a copy of their deflate bytes.
func Chain(units []Unit) *Segment {
	if len(units) == 1 {
		u := units[0]
		return &Segment{deflate: bytes.Clone(u.Deflate), crc: u.CRC, n: u.N, sum: u.Sum}
	}
	s := &Segment{units: make([]part, len(units))}
	n := 0
	for _, u := range units {
		n += len(u.Deflate)
	}
	s.deflate = make([]byte, 0, n)
	for i, u := range units {
		s.deflate = append(s.deflate, u.Deflate...)
		s.crc = Combine(s.crc, u.CRC, u.N)
		s.n += u.N
		s.units[i] = part{end: len(s.deflate), crc: u.CRC, n: u.N, sum: u.Sum, dict: u.Dict}
	}
	s.sum = chainSum(s.units)
	return s
}

// chainSum is the Sum of a Segment of several units: a hash of their
// Sums, lengths and dictionaries' sums.
func chainSum(ps []part) uint64 {
	d := xxhash.New()
	var b [24]byte
	for _, p := range ps {
		binary.LittleEndian.PutUint64(b[:8], p.sum)
		binary.LittleEndian.PutUint64(b[8:16], uint64(p.n))
		binary.LittleEndian.PutUint64(b[16:], p.dict)
		d.Write(b[:])
	}
	return d.Sum64()
}

// chainer is what a SegmentWriter that cuts units keeps: the end of the
// unit being written (the next one's dictionary), the units ended.
type chainer struct {
	tail    []byte // the unit's last bytes: at least its last DictSize, at most twice that
	dict    []byte // the unit's dictionary
	dictSum uint64
	parts   []part
	crc     uint32 // of the units ended
	n       int64
}

// keep keeps the end of p, written to the unit.
func (ch *chainer) keep(p []byte) {
	if len(p) >= DictSize {
		ch.tail = append(ch.tail[:0], p[len(p)-DictSize:]...)
		return
	}
	if len(ch.tail)+len(p) > 2*DictSize {
		ch.tail = append(ch.tail[:0], ch.tail[len(ch.tail)-(DictSize-len(p)):]...)
	}
	ch.tail = append(ch.tail, p...)
}

// NewChainWriter returns a SegmentWriter at level that ends a unit at
// each EndUnit; Close gives the Segment, the one that Chain makes of its
// units.
func NewChainWriter(level int) (*SegmentWriter, error) {
	w, err := NewSegmentWriter(level)
	if err != nil {
		return nil, err
	}
	w.ch = &chainer{}
	return w, nil
}

// EndUnit ends the unit being written, if anything was written to it:
// the next one starts with its end as dictionary. A SegmentWriter not
// made by NewChainWriter ignores it.
func (w *SegmentWriter) EndUnit() {
	ch := w.ch
	if ch == nil || w.c.n == 0 || w.c.err != nil {
		return
	}
	w.endPart()
	ch.dict = append(ch.dict[:0], DictOf(ch.tail)...)
	ch.tail = ch.tail[:0]
	ch.dictSum = DictSum(ch.dict)
	w.c.zw.ResetDict(w.c.buf, ch.dict)
	w.c.dict = true
	w.c.crc, w.c.n = 0, 0
	w.sum.Reset()
}

// endPart flushes the unit being written and adds it to the parts.
func (w *SegmentWriter) endPart() {
	ch := w.ch
	if w.c.err = w.c.zw.Flush(); w.c.err != nil {
		return
	}
	ch.parts = append(ch.parts, part{end: w.c.buf.Len(), crc: w.c.crc, n: w.c.n, sum: w.sum.Sum64(), dict: ch.dictSum})
	ch.crc = Combine(ch.crc, w.c.crc, w.c.n)
	ch.n += w.c.n
}

// closeChain is Close once a unit has ended.
func (w *SegmentWriter) closeChain() (*Segment, error) {
	if w.c.err == nil && w.c.n > 0 {
		w.endPart()
	}
	err := w.c.err
	var s *Segment
	if err == nil {
		ch := w.ch
		s = &Segment{deflate: bytes.Clone(w.c.buf.Bytes()), crc: ch.crc, n: ch.n, units: ch.parts}
		if len(ch.parts) == 1 {
			s.sum, s.units = ch.parts[0].sum, nil
		} else {
			s.sum = chainSum(ch.parts)
		}
	}
	w.c.release()
	return s, err
}
