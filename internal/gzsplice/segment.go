package gzsplice

// Segments: a file kept as runs of its bytes, each compressed alone, so
// that one run can be compressed again and put back in its place without
// touching the others. A Segment's deflate bytes start with an empty
// window (its compressor refers to nothing before it) and end with a sync
// flush: an empty stored block that is not final and ends on a byte
// boundary. Segments laid end to end are then one deflate stream, which
// Join closes with a final empty stored block, between a gzip header and
// a trailer whose CRC-32 is combined from the Segments' own: one ordinary
// gzip member.
//
// Compressing a run alone is deterministic for its bytes and level, so a
// file joined from Segments has the same bytes whether every Segment was
// compressed just now or all but one were kept from before.

import (
	"bytes"
	"encoding/binary"
	"sync"

	"github.com/cespare/xxhash/v2"
)

// Segment is one run of a file's bytes, compressed alone.
type Segment struct {
	deflate []byte // deflate blocks, none final, ending on a byte boundary
	crc     uint32 // the CRC-32 (IEEE) of the run
	n       int64  // the run's length
	sum     uint64 // the run's xxhash64; of its units' (chainSum) when it has several
	units   []part // its units, when it has several (chain.go); none: one, with no dictionary
	// own, while set, is the pooled buffer deflate is in: a Segment just
	// compressed, which JoinShared moves into the file it makes and whose
	// buffer it gives back. Nil once joined, or when kept from before.
	own *bytes.Buffer
}

// NewSegment compresses data at level (flate's levels) into a Segment.
func NewSegment(data []byte, level int) (*Segment, error) {
	w, err := NewSegmentWriter(level)
	if err != nil {
		return nil, err
	}
	w.Write(data)
	return w.Close()
}

// SegmentWriter compresses what is written to it into a Segment, with a
// pooled compressor and buffer. SegmentWriters are pooled too: one is
// not used after its Close.
type SegmentWriter struct {
	c    compressor
	hash bool // sum is fed the run
	sum  xxhash.Digest
	ch   *chainer // set when it cuts units (NewChainWriter)
}

var segmentWriters = sync.Pool{New: func() any { return new(SegmentWriter) }}

// NewSegmentWriter returns a SegmentWriter at level; Close gives the
// Segment.
func NewSegmentWriter(level int) (*SegmentWriter, error) {
	return newSegmentWriter(level, true)
}

func newSegmentWriter(level int, hash bool) (*SegmentWriter, error) {
	c, err := newCompressor(level)
	if err != nil {
		return nil, err
	}
	w := segmentWriters.Get().(*SegmentWriter)
	w.c, w.hash = c, hash
	if hash {
		w.sum.Reset()
	}
	return w, nil
}

// Write compresses p; an error is kept for Close.
func (w *SegmentWriter) Write(p []byte) (int, error) {
	if w.hash {
		w.sum.Write(p)
	}
	if w.ch != nil {
		w.ch.keep(p)
	}
	return w.c.Write(p)
}

// Close ends the run with a sync flush and returns the Segment, whose
// deflate bytes stay in the compressor's buffer until JoinShared; the
// writer is not used after.
func (w *SegmentWriter) Close() (*Segment, error) {
	if w.ch != nil && len(w.ch.parts) > 0 {
		return w.closeChain()
	}
	err := w.c.err
	if err == nil {
		err = w.c.zw.Flush()
	}
	var s *Segment
	if err == nil {
		s = &Segment{deflate: w.c.buf.Bytes(), crc: w.c.crc, n: w.c.n, own: w.c.buf}
		if w.hash {
			s.sum = w.sum.Sum64()
		}
		w.c.releaseWriter()
	} else {
		w.c.release()
	}
	*w = SegmentWriter{sum: w.sum}
	segmentWriters.Put(w)
	return s, err
}

// Size is the length of the Segment's run, uncompressed.
func (s *Segment) Size() int64 { return s.n }

// Compressed is the length of the Segment's deflate bytes.
func (s *Segment) Compressed() int { return len(s.deflate) }

// Sum is the xxhash64 of the Segment's run, or for a Segment of several
// units a hash of theirs (chain.go): two Segments with one Sum and Size
// hold the same bytes, as far as a 64-bit hash tells, and a run's Sum
// depends only on its bytes and where its units are cut.
func (s *Segment) Sum() uint64 { return s.sum }

// finalBlock is an empty stored block marked final: BFINAL 1 and BTYPE 00
// padded to the byte, then LEN 0 and NLEN 0xffff.
var finalBlock = [5]byte{1, 0, 0, 0xff, 0xff}

// JoinLen is the length of the gzip member that Join makes of segs.
func JoinLen(segs []*Segment) int {
	n := len(header) + len(finalBlock) + 8
	for _, s := range segs {
		n += len(s.deflate)
	}
	return n
}

// Join appends to dst one gzip member whose data is the runs of segs in
// order, and returns the extended slice. It costs a copy of the
// Segments' deflate bytes: nothing is compressed or read again.
func Join(dst []byte, segs []*Segment) []byte {
	dst = append(dst, header[:]...)
	var crc uint32
	var n int64
	for _, s := range segs {
		dst = append(dst, s.deflate...)
		crc = Combine(crc, s.crc, s.n)
		n += s.n
	}
	dst = append(dst, finalBlock[:]...)
	dst = binary.LittleEndian.AppendUint32(dst, crc)
	return binary.LittleEndian.AppendUint32(dst, uint32(n)) // ISIZE: the length modulo 2^32
}

// SumOf is a hash of the data that segs join to, made from their Sums and
// Sizes alone, without a pass over the data: a validator (an ETag) that
// moves when any run's bytes do. Two lists of Segments with the same
// data but cut at other places have other SumOfs; cuts that depend only
// on the data keep it stable.
func SumOf(segs []*Segment) uint64 {
	d := xxhash.New()
	var b [16]byte
	for _, s := range segs {
		binary.LittleEndian.PutUint64(b[:8], s.sum)
		binary.LittleEndian.PutUint64(b[8:], uint64(s.n))
		d.Write(b[:])
	}
	return d.Sum64()
}

// JoinShared is Join into a new slice of exact size, with Segments that
// hold their deflate bytes in it: a file kept with its Segments, to be
// spliced later, holds its compressed bytes once. A Segment just
// compressed (not yet joined) is itself moved into the file, and its
// buffer given back: it must not be in use elsewhere meanwhile, as none
// is before it is joined. Any other is copied, as it may be read
// elsewhere (a Segment of the file's previous copy).
func JoinShared(segs []*Segment) ([]byte, []*Segment) {
	gz := Join(make([]byte, 0, JoinLen(segs)), segs)
	shared := make([]*Segment, len(segs))
	var copies []Segment
	off := len(header)
	for i, s := range segs {
		in := gz[off : off+len(s.deflate) : off+len(s.deflate)]
		off += len(s.deflate)
		if s.own != nil {
			putBuffer(s.own)
			s.deflate, s.own = in, nil
			shared[i] = s
			continue
		}
		if copies == nil {
			copies = make([]Segment, 0, len(segs)-i)
		}
		copies = append(copies, *s)
		c := &copies[len(copies)-1]
		c.deflate = in
		shared[i] = c
	}
	return gz, shared
}

// Member is a gzip member of s's run alone: its bytes read back.
func (s *Segment) Member() []byte { return Join(nil, []*Segment{s}) }

// CRC is the CRC-32 (IEEE) of the Segment's run.
func (s *Segment) CRC() uint32 { return s.crc }

// NewSegmentSum is NewSegment for data whose xxhash64 is sum, known
// already: data is not hashed again.
func NewSegmentSum(data []byte, level int, sum uint64) (*Segment, error) {
	w, err := newSegmentWriter(level, false)
	if err != nil {
		return nil, err
	}
	w.c.Write(data)
	s, err := w.Close()
	if s != nil {
		s.sum = sum
	}
	return s, err
}
