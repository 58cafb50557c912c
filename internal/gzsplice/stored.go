package gzsplice

// Segments read back from a file kept elsewhere (a Store): the file's
// bytes and, apart, each Segment's compressed length, CRC-32, length and
// hash. Nothing here trusts those figures: Split checks that the lengths
// tile the file's deflate stream exactly and that the CRCs and lengths
// combine to its trailer's; Check decompresses a Segment alone and
// compares what it gives with its figures, so a Segment that passed is
// one a Join may reuse.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"

	"github.com/cespare/xxhash/v2"
	"github.com/klauspost/compress/flate"
)

// Parts is what is kept of a Segment apart from its deflate bytes.
type Parts struct {
	Compressed int    // the length of its deflate bytes
	CRC        uint32 // the CRC-32 (IEEE) of its run
	N          int64  // its run's length
	Sum        uint64 // its run's xxhash64
}

// PartsOf returns what is kept of s apart from its deflate bytes.
func PartsOf(s *Segment) Parts {
	return Parts{Compressed: len(s.deflate), CRC: s.crc, N: s.n, Sum: s.sum}
}

// ErrSplit is the error of Split and Check for figures that do not match
// the file or the Segment's bytes.
var ErrSplit = errors.New("gzsplice: segment figures do not match the file")

// Split returns the Segments that parts describe in gz, a file Join made
// of them: their deflate bytes share memory with gz. It checks that gz is
// such a file (the header Join writes, the final empty block, nothing
// else), that the parts' lengths tile its deflate bytes exactly, and that
// their CRCs and lengths combine to its trailer's.
func Split(gz []byte, parts []Parts) ([]*Segment, error) {
	tail := len(finalBlock) + 8
	if len(gz) < len(header)+tail || !bytes.Equal(gz[:len(header)], header[:]) ||
		!bytes.Equal(gz[len(gz)-tail:len(gz)-8], finalBlock[:]) {
		return nil, ErrSplit
	}
	body := gz[len(header) : len(gz)-tail]
	segs := make([]*Segment, len(parts))
	all := make([]Segment, len(parts))
	var crc uint32
	var n int64
	off := 0
	for i, p := range parts {
		if p.Compressed < 0 || p.Compressed > len(body)-off || p.N < 0 || p.N > 1<<40 {
			return nil, ErrSplit
		}
		all[i] = Segment{deflate: body[off : off+p.Compressed : off+p.Compressed], crc: p.CRC, n: p.N, sum: p.Sum}
		segs[i] = &all[i]
		off += p.Compressed
		crc = Combine(crc, p.CRC, p.N)
		n += p.N
	}
	if off != len(body) || crc != binary.LittleEndian.Uint32(gz[len(gz)-8:]) ||
		uint32(n) != binary.LittleEndian.Uint32(gz[len(gz)-4:]) {
		return nil, ErrSplit
	}
	return segs, nil
}

// probe follows a Segment's bytes when Check decompresses it: a stored
// block of four known bytes, then the final empty block. A Segment that
// does not end on a byte boundary after a whole block reads the probe's
// header bits as something else, and does not give the probe's bytes.
var probe = []byte{0, 4, 0, 0xfb, 0xff, 'S', 'E', 'G', '!', 1, 0, 0, 0xff, 0xff}

// syncFlush is how every Segment's deflate bytes end: the LEN and NLEN
// of the empty stored block of a sync flush.
var syncFlush = []byte{0, 0, 0xff, 0xff}

// Check decompresses s alone into dst (reusing its memory) and returns
// its run, or ErrSplit if s's deflate bytes are not a Segment's: they
// refer to nothing before them, end with a sync flush on a byte boundary
// after a whole block, hold no final block, and give a run whose length,
// CRC-32 and xxhash64 are s's own. A Segment that passed joins with any
// others that did into the stream of their runs. A Checker checks several
// with one decompressor.
func (s *Segment) Check(dst []byte) ([]byte, error) {
	var c Checker
	c.out = dst
	return c.Check(s)
}

// Checker checks Segments (Segment.Check) with one decompressor and one
// buffer for their bytes and one for their runs, reused from one to the
// next: a run it returns is good until its next Check.
type Checker struct {
	in, out []byte
	br      bytes.Reader
	r       io.ReadCloser
}

// Check is Segment.Check of s with c's decompressor and buffers.
func (c *Checker) Check(s *Segment) ([]byte, error) {
	if !bytes.HasSuffix(s.deflate, syncFlush) || s.n < 0 {
		return nil, ErrSplit
	}
	c.in = append(append(c.in[:0], s.deflate...), probe...)
	c.br.Reset(c.in)
	if c.r == nil {
		c.r = flate.NewReader(&c.br)
	} else if err := c.r.(flate.Resetter).Reset(&c.br, nil); err != nil {
		return nil, ErrSplit
	}
	// At most the run and the probe: a Segment that gives more is wrong,
	// and is not read to its end.
	want := int(s.n) + len("SEG!")
	if cap(c.out) < want+1 {
		c.out = make([]byte, 0, want+1)
	}
	b := c.out[:want+1]
	n, err := io.ReadFull(c.r, b)
	if err != io.ErrUnexpectedEOF || n != want || string(b[s.n:want]) != "SEG!" || c.br.Len() != 0 {
		return nil, ErrSplit
	}
	run := b[:s.n]
	if crc32.ChecksumIEEE(run) != s.crc || xxhash.Sum64(run) != s.sum {
		return nil, ErrSplit
	}
	return run, nil
}
