package segment

// The wire form of a Table, which travels with a page's stored copy (the
// root's record.go), so that a replica that took the copy from a Store
// can splice it as the replica that built it can. The compressed bytes
// are not in it: the copy's gzip file holds them, and each segment keeps
// its compressed length, the lengths tiling the file's deflate stream in
// order; a table read back slices the file.
//
// Its fields, after a version byte: Level, the flags (BySource), Full,
// the number of segments, then for each its gzsplice figures (compressed
// length, CRC-32, length, xxhash64), the number of its units (0 for a
// segment of one) and each unit's (compressed length, CRC-32, length,
// xxhash64, its dictionary's DictSum), URLs, Read, Newest and its flags
// (Volatile). A field added to Seg, Table or gzsplice.Segment must be
// added here, under a new version if older replicas cannot skip it, and
// to wireFields (wire_test.go), which fails until it is.
//
// Version 1, before units, has no unit count: it is read as before, each
// segment one unit (a segment of several it described would not check:
// its Sum is of its units', not of its run). AppendTable writes version 2.
//
// ParseTable trusts nothing: the lengths must tile the file exactly, the
// CRCs and lengths combine to its trailer's, a segment's units tile its
// bytes and make its figures (gzsplice.Split), and the segments' hashes
// and lengths make the page's hash (Sum) the copy names; Table.Check then
// decompresses each segment alone, each unit of it alone after its
// dictionary, before any is reused.

import (
	"encoding/binary"
	"errors"
	"time"

	"github.com/freshmap/sitemap/internal/gzsplice"
)

// wireVersion is the version byte of the wire form AppendTable writes;
// wireV1, without units, is still read.
const (
	wireVersion = 2
	wireV1      = 1
)

// The flags of a table and of a segment.
const (
	tableBySource = 1 << 0
	segVolatile   = 1 << 0
)

// ErrWire is the error of ParseTable for bytes that are not the table of
// the file they came with.
var ErrWire = errors.New("segment: not the segment table of this file")

// AppendTable appends the wire form of t to b.
func AppendTable(b []byte, t *Table) []byte { return appendTable(b, t, wireVersion) }

// appendTable appends the wire form of t of version v to b; version 1
// writes no units (a test writes it, as an older replica did).
func appendTable(b []byte, t *Table, v byte) []byte {
	b = append(b, v, byte(t.Level))
	var flags byte
	if t.BySource {
		flags |= tableBySource
	}
	b = appendTime(append(b, flags), t.Full)
	b = binary.AppendUvarint(b, uint64(len(t.Segs)))
	for i := range t.Segs {
		s := &t.Segs[i]
		p := gzsplice.PartsOf(s.Z)
		b = binary.AppendUvarint(b, uint64(p.Compressed))
		b = binary.LittleEndian.AppendUint32(b, p.CRC)
		b = binary.AppendUvarint(b, uint64(p.N))
		b = binary.LittleEndian.AppendUint64(b, p.Sum)
		if v != wireV1 {
			b = binary.AppendUvarint(b, uint64(len(p.Units)))
			for _, u := range p.Units {
				b = binary.AppendUvarint(b, uint64(u.Compressed))
				b = binary.LittleEndian.AppendUint32(b, u.CRC)
				b = binary.AppendUvarint(b, uint64(u.N))
				b = binary.LittleEndian.AppendUint64(b, u.Sum)
				b = binary.LittleEndian.AppendUint64(b, u.Dict)
			}
		}
		b = binary.AppendUvarint(b, uint64(s.URLs))
		b = binary.AppendUvarint(b, uint64(s.Read))
		b = appendTime(b, s.Newest)
		flags = 0
		if s.Volatile {
			flags |= segVolatile
		}
		b = append(b, flags)
	}
	return b
}

// ParseTable returns the table that b, made by AppendTable, holds of gz,
// the gzip file it was made with, whose page's hash (Sum) is sum. Its
// segments' deflate bytes share memory with gz. It fails with ErrWire if
// b is not such a table: another version, garbage, or figures that do not
// match gz and sum.
func ParseTable(b, gz []byte, sum uint64) (*Table, error) {
	r := reader{b: b}
	v := r.byte()
	if v != wireVersion && v != wireV1 {
		return nil, ErrWire
	}
	t := &Table{Level: int(r.byte())}
	flags := r.byte()
	t.BySource, t.Full = flags&tableBySource != 0, r.time()
	// A segment takes at least 17 bytes: 4 + 8 and five of one byte (six
	// with its unit count).
	n := r.uvarint()
	if t.Level < 1 || t.Level > 9 || flags&^tableBySource != 0 || n < 2 || n > uint64(len(r.b)/17) || n > MaxSegments+2 {
		return nil, ErrWire
	}
	t.Segs = make([]Seg, n)
	parts := make([]gzsplice.Parts, n)
	// The units of all segments, in one slice: each segment's slice of it
	// is set once it is whole, below.
	var units []gzsplice.UnitParts
	for i := range t.Segs {
		parts[i] = gzsplice.Parts{Compressed: r.int(), CRC: r.uint32(), N: int64(r.int()), Sum: r.uint64()}
		if v != wireV1 {
			start := len(units)
			units = r.units(units)
			parts[i].Units = units[start:]
		}
		s := &t.Segs[i]
		s.URLs, s.Read, s.Newest = r.int(), r.int(), r.time()
		f := r.byte()
		s.Volatile = f&segVolatile != 0
		if f&^segVolatile != 0 {
			r.fail()
		}
	}
	if r.bad || len(r.b) != 0 {
		return nil, ErrWire
	}
	off := 0
	for i := range parts {
		k := len(parts[i].Units)
		parts[i].Units = units[off : off+k : off+k]
		off += k
	}
	zs, err := gzsplice.Split(gz, parts)
	if err != nil {
		return nil, ErrWire
	}
	for i := range t.Segs {
		t.Segs[i].Z = zs[i]
	}
	if t.Sum() != sum {
		return nil, ErrWire
	}
	return t, nil
}

// Check decompresses each segment of t alone (gzsplice.Segment.Check) and
// gives its run to f, if f is set, which may refuse it: a table read back
// from elsewhere is checked so before any segment of it is reused. The
// first error ends it.
func (t *Table) Check(f func(i int, run []byte) error) error {
	var c gzsplice.Checker
	for i := range t.Segs {
		run, err := c.Check(t.Segs[i].Z)
		if err != nil {
			return err
		}
		if f != nil {
			if err := f(i, run); err != nil {
				return err
			}
		}
	}
	return nil
}

// unitBytes is the fewest bytes a unit takes: 4 + 8 + 8 and two of one.
const unitBytes = 22

// units appends to us the units of a segment: their number, then each
// one's figures; none if the number is 0.
func (r *reader) units(us []gzsplice.UnitParts) []gzsplice.UnitParts {
	k := r.uvarint()
	if k > uint64(len(r.b)/unitBytes) {
		r.fail()
		return us
	}
	for range k {
		us = append(us, gzsplice.UnitParts{Compressed: r.int(), CRC: r.uint32(), N: int64(r.int()), Sum: r.uint64(), Dict: r.uint64()})
	}
	return us
}

// appendTime appends t to the nanosecond, or a zero time as one byte.
func appendTime(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(b, 0)
	}
	b = binary.AppendVarint(append(b, 1), t.Unix())
	return binary.AppendUvarint(b, uint64(t.Nanosecond()))
}

// reader reads the fields of a table; the first error sticks, and every
// read after it returns zero.
type reader struct {
	b   []byte
	bad bool
}

func (r *reader) fail() { r.bad, r.b = true, nil }

func (r *reader) byte() byte {
	if len(r.b) == 0 {
		r.fail()
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

// int reads a uvarint that must fit a non-negative int32.
func (r *reader) int() int {
	v := r.uvarint()
	if v > 1<<31-1 {
		r.fail()
		return 0
	}
	return int(v)
}

func (r *reader) fixed(n int) []byte {
	if len(r.b) < n {
		r.fail()
		return make([]byte, n)
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) uint32() uint32 { return binary.LittleEndian.Uint32(r.fixed(4)) }
func (r *reader) uint64() uint64 { return binary.LittleEndian.Uint64(r.fixed(8)) }

func (r *reader) time() time.Time {
	switch r.byte() {
	case 0:
		return time.Time{}
	case 1:
		v, n := binary.Varint(r.b)
		if n <= 0 {
			break
		}
		r.b = r.b[n:]
		if nsec := r.uvarint(); nsec < 1e9 && !r.bad {
			return time.Unix(v, int64(nsec)).UTC()
		}
	}
	r.fail()
	return time.Time{}
}
