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

	"github.com/freshmap/sitemap/internal/gzsplice"
	"github.com/freshmap/sitemap/internal/record"
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
	b = record.AppendTime(append(b, flags), t.Full)
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
		b = record.AppendTime(b, s.Newest)
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
	r := record.NewDecoder(b)
	v := r.Byte()
	if v != wireVersion && v != wireV1 {
		return nil, ErrWire
	}
	t := &Table{Level: int(r.Byte())}
	flags := r.Byte()
	t.BySource, t.Full = flags&tableBySource != 0, r.Time()
	// A segment takes at least 17 bytes: 4 + 8 and five of one byte (six
	// with its unit count).
	n := r.Count(17)
	if t.Level < 1 || t.Level > 9 || flags&^tableBySource != 0 || n < 2 || n > MaxSegments+2 {
		return nil, ErrWire
	}
	t.Segs = make([]Seg, n)
	parts := make([]gzsplice.Parts, n)
	// The units of all segments, in one slice: each segment's slice of it
	// is set once it is whole, below.
	var units []gzsplice.UnitParts
	for i := range t.Segs {
		parts[i] = gzsplice.Parts{Compressed: r.Int(), CRC: r.Uint32(), N: int64(r.Int()), Sum: r.Uint64()}
		if v != wireV1 {
			start := len(units)
			units = readUnits(r, units)
			parts[i].Units = units[start:]
		}
		s := &t.Segs[i]
		s.URLs, s.Read, s.Newest = r.Int(), r.Int(), r.Time()
		f := r.Byte()
		s.Volatile = f&segVolatile != 0
		if f&^segVolatile != 0 {
			return nil, ErrWire
		}
	}
	if !r.Done() {
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

// readUnits appends to us the units of a segment read from r: their
// number, then each one's figures; none if the number is 0.
func readUnits(r *record.Decoder, us []gzsplice.UnitParts) []gzsplice.UnitParts {
	for range r.Count(unitBytes) {
		us = append(us, gzsplice.UnitParts{Compressed: r.Int(), CRC: r.Uint32(), N: int64(r.Int()), Sum: r.Uint64(), Dict: r.Uint64()})
	}
	return us
}
