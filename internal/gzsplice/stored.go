package gzsplice

// Segments read back from a file kept elsewhere (a Store): the file's
// bytes and, apart, each Segment's compressed length, CRC-32, length and
// hash, and those of its units if it has several (chain.go). Nothing here
// trusts those figures: Split checks that the lengths tile the file's
// deflate stream exactly, that the CRCs and lengths combine to its
// trailer's, and that a Segment's units tile its bytes and make its
// figures; Check decompresses a Segment alone, each of its units alone
// after only its dictionary, and compares what it gives with its figures,
// so a Segment that passed is one a Join may reuse.

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
	Compressed int         // the length of its deflate bytes
	CRC        uint32      // the CRC-32 (IEEE) of its run
	N          int64       // its run's length
	Sum        uint64      // its run's xxhash64; of its units' (chainSum) when it has several
	Units      []UnitParts // its units when it has several; none for one
}

// UnitParts is what is kept of a unit of a Segment apart from its deflate
// bytes (Unit).
type UnitParts struct {
	Compressed int    // the length of its deflate bytes
	CRC        uint32 // the CRC-32 (IEEE) of its run
	N          int64  // its run's length
	Sum        uint64 // its run's xxhash64
	Dict       uint64 // DictSum of its dictionary
}

// PartsOf returns what is kept of s apart from its deflate bytes.
func PartsOf(s *Segment) Parts {
	p := Parts{Compressed: len(s.deflate), CRC: s.crc, N: s.n, Sum: s.sum}
	if len(s.units) > 0 {
		p.Units = make([]UnitParts, len(s.units))
		start := 0
		for i, u := range s.units {
			p.Units[i] = UnitParts{Compressed: u.end - start, CRC: u.crc, N: u.n, Sum: u.sum, Dict: u.dict}
			start = u.end
		}
	}
	return p
}

// ErrSplit is the error of Split and Check for figures that do not match
// the file or the Segment's bytes.
var ErrSplit = errors.New("gzsplice: segment figures do not match the file")

// Split returns the Segments that parts describe in gz, a file Join made
// of them: their deflate bytes share memory with gz. It checks that gz is
// such a file (the header Join writes, the final empty block, nothing
// else), that the parts' lengths tile its deflate bytes exactly, and that
// their CRCs and lengths combine to its trailer's; and that the units of
// a part that has them (two or more) tile its deflate bytes, the first
// without a dictionary, their CRCs and lengths combine to its own, and
// their Sums, lengths and dictionaries' sums make its Sum (chainSum).
func Split(gz []byte, parts []Parts) ([]*Segment, error) {
	tail := len(finalBlock) + 8
	if len(gz) < len(header)+tail || !bytes.Equal(gz[:len(header)], header[:]) ||
		!bytes.Equal(gz[len(gz)-tail:len(gz)-8], finalBlock[:]) {
		return nil, ErrSplit
	}
	body := gz[len(header) : len(gz)-tail]
	segs := make([]*Segment, len(parts))
	all := make([]Segment, len(parts))
	var units []part
	if nu := unitCount(parts); nu > 0 {
		units = make([]part, 0, nu)
	}
	var crc uint32
	var n int64
	off := 0
	for i, p := range parts {
		if p.Compressed < 0 || p.Compressed > len(body)-off || p.N < 0 || p.N > 1<<40 {
			return nil, ErrSplit
		}
		all[i] = Segment{deflate: body[off : off+p.Compressed : off+p.Compressed], crc: p.CRC, n: p.N, sum: p.Sum}
		if len(p.Units) > 0 {
			start := len(units)
			var ok bool
			if units, ok = splitUnits(units, p); !ok {
				return nil, ErrSplit
			}
			all[i].units = units[start:len(units):len(units)]
		}
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

// unitCount is how many units parts have in all.
func unitCount(parts []Parts) int {
	n := 0
	for _, p := range parts {
		n += len(p.Units)
	}
	return n
}

// splitUnits appends to ps the units of p, a part that has them, and
// reports whether they are a Segment's units that make p's figures.
func splitUnits(ps []part, p Parts) ([]part, bool) {
	if len(p.Units) < 2 || p.Units[0].Dict != 0 {
		return ps, false // one unit is a plain Segment, with no units
	}
	start := len(ps)
	var crc uint32
	var n int64
	end := 0
	for _, u := range p.Units {
		if u.Compressed < 0 || u.Compressed > p.Compressed-end || u.N < 0 || u.N > p.N-n {
			return ps, false
		}
		end += u.Compressed
		crc = Combine(crc, u.CRC, u.N)
		n += u.N
		ps = append(ps, part{end: end, crc: u.CRC, n: u.N, sum: u.Sum, dict: u.Dict})
	}
	ok := end == p.Compressed && n == p.N && crc == p.CRC && chainSum(ps[start:]) == p.Sum
	return ps, ok
}

// probe follows a Segment's bytes when Check decompresses it: a stored
// block of four known bytes, then the final empty block. A Segment that
// does not end on a byte boundary after a whole block reads the probe's
// header bits as something else, and does not give the probe's bytes.
var probe = []byte{0, 4, 0, 0xfb, 0xff, 'S', 'E', 'G', '!', 1, 0, 0, 0xff, 0xff}

// syncFlush is how every Segment's deflate bytes end: the LEN and NLEN
// of the empty stored block of a sync flush.
var syncFlush = []byte{0, 0, 0xff, 0xff}

// maxRatio bounds the length of a run against its deflate bytes'.
const maxRatio = 1032

// Check decompresses s alone into dst (reusing its memory) and returns
// its run, or ErrSplit if s's deflate bytes are not a Segment's: they
// refer to nothing before them, end with a sync flush on a byte boundary
// after a whole block, hold no final block, and give a run whose length,
// CRC-32 and xxhash64 are s's own. A Segment of several units is checked
// unit by unit: each alone, with only its dictionary (DictOf the run of
// the unit before, none for the first) before it, so that it refers to
// nothing further back; each as a Segment is, against its own figures,
// and its dictionary's sum against the one it names. A Segment that
// passed joins with any others that did into the stream of their runs. A
// Checker checks several with one decompressor.
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
	// Deflate gives at most 1,032 bytes for each of its own (a match of
	// 258 in two bits): a length past that is refused before room is made
	// for it, so that figures cannot make a Check allocate more.
	if s.n < 0 || s.n > maxRatio*int64(len(s.deflate)) {
		return nil, ErrSplit
	}
	// At most the run and the probe, and one byte more: a Segment that
	// gives more is wrong, and is not read to its end.
	need := int(s.n) + len("SEG!") + 1
	if cap(c.out) < need {
		c.out = make([]byte, 0, need)
	}
	out := c.out[:need]
	if len(s.units) == 0 {
		run, ok := c.inflate(s.deflate, nil, out, s.n)
		if !ok || crc32.ChecksumIEEE(run) != s.crc || xxhash.Sum64(run) != s.sum {
			return nil, ErrSplit
		}
		return run, nil
	}
	var crc uint32
	var dict []byte
	var n int64
	start := 0
	for _, u := range s.units {
		if u.end < start || u.end > len(s.deflate) || u.n < 0 || u.n > s.n-n || u.dict != DictSum(dict) {
			return nil, ErrSplit
		}
		run, ok := c.inflate(s.deflate[start:u.end], dict, out[n:], u.n)
		if !ok || crc32.ChecksumIEEE(run) != u.crc || xxhash.Sum64(run) != u.sum {
			return nil, ErrSplit
		}
		crc = Combine(crc, u.crc, u.n)
		n += u.n
		dict, start = DictOf(run), u.end
	}
	if start != len(s.deflate) || n != s.n || crc != s.crc || chainSum(s.units) != s.sum {
		return nil, ErrSplit
	}
	return out[:n], nil
}

// inflate decompresses z, the deflate bytes of a Segment or of a unit,
// after dict alone into dst, which has room for n bytes and five more,
// and returns its run; false if z does not end with a sync flush on a
// byte boundary after a whole block (the probe reads back), holds a final
// block, refers further back than dict, or gives other than n bytes.
func (c *Checker) inflate(z, dict, dst []byte, n int64) ([]byte, bool) {
	if !bytes.HasSuffix(z, syncFlush) {
		return nil, false
	}
	c.in = append(append(c.in[:0], z...), probe...)
	c.br.Reset(c.in)
	if c.r == nil {
		c.r = flate.NewReaderDict(&c.br, dict)
	} else if err := c.r.(flate.Resetter).Reset(&c.br, dict); err != nil {
		return nil, false
	}
	want := int(n) + len("SEG!")
	b := dst[:want+1]
	k, err := io.ReadFull(c.r, b)
	if err != io.ErrUnexpectedEOF || k != want || string(b[n:want]) != "SEG!" || c.br.Len() != 0 {
		return nil, false
	}
	return b[:n], true
}
