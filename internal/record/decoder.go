package record

import (
	"encoding/binary"
	"time"
)

// Decoder reads the fields of a record; the first error sticks, and
// every read after it returns zero values.
type Decoder struct {
	b   []byte
	err error
}

// NewDecoder returns a Decoder of b.
func NewDecoder(b []byte) *Decoder { return &Decoder{b: b} }

// Err returns ErrRecord once a read failed, else nil.
func (d *Decoder) Err() error { return d.err }

// Rest returns the bytes not read yet.
func (d *Decoder) Rest() []byte { return d.b }

// Done reports whether every read succeeded and every byte was read.
func (d *Decoder) Done() bool { return d.err == nil && len(d.b) == 0 }

func (d *Decoder) fail() { d.err, d.b = ErrRecord, nil }

// Uvarint reads an unsigned varint.
func (d *Decoder) Uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

// Varint reads a signed varint.
func (d *Decoder) Varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

// Bytes reads n bytes, which share memory with the Decoder's.
func (d *Decoder) Bytes(n uint64) []byte {
	if n > uint64(len(d.b)) {
		d.fail()
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

// Byte reads one byte.
func (d *Decoder) Byte() byte {
	if v := d.Bytes(1); v != nil {
		return v[0]
	}
	return 0
}

// Uint32 reads four bytes, little-endian.
func (d *Decoder) Uint32() uint32 {
	if v := d.Bytes(4); v != nil {
		return binary.LittleEndian.Uint32(v)
	}
	return 0
}

// Int reads an unsigned varint that must fit a non-negative int32.
func (d *Decoder) Int() int {
	v := d.Uvarint()
	if v > 1<<31-1 {
		d.fail()
		return 0
	}
	return int(v)
}

// Uint64 reads eight bytes, little-endian.
func (d *Decoder) Uint64() uint64 {
	if v := d.Bytes(8); v != nil {
		return binary.LittleEndian.Uint64(v)
	}
	return 0
}

// String reads what AppendString wrote.
func (d *Decoder) String() string { return string(d.Bytes(d.Uvarint())) }

// Count reads a number of items of at least size bytes each, refusing
// one the remaining bytes cannot hold, so garbage cannot make a huge
// allocation.
func (d *Decoder) Count(size int) int {
	n := d.Uvarint()
	if n > uint64(len(d.b)/size) {
		d.fail()
		return 0
	}
	return int(n)
}

// Time reads what AppendTime wrote, in UTC.
func (d *Decoder) Time() time.Time {
	switch d.Byte() {
	case 0:
		return time.Time{}
	case 1:
		sec, nsec := d.Varint(), d.Uvarint()
		if nsec >= 1e9 {
			d.fail()
			return time.Time{}
		}
		return time.Unix(sec, int64(nsec)).UTC()
	}
	d.fail()
	return time.Time{}
}

// Clock reads what AppendClock wrote.
func (d *Decoder) Clock() Clock {
	c := Clock{At: d.Time(), Served: d.Time(), Hash: d.Uint64()}
	flags := d.Byte()
	if flags&^(clockBuilt|clockUngiven) != 0 {
		d.fail()
	}
	c.Built, c.Ungiven = flags&clockBuilt != 0, flags&clockUngiven != 0
	c.Version = d.String()
	return c
}

// file reads what appendFile wrote: a level from 1 to 9 and gzip bytes
// of at least a header and trailer, or it fails.
func (d *Decoder) file() File {
	f := File{Hash: d.Uint64(), Level: int(d.Byte())}
	f.LastMod, f.Built, f.Clock = d.Time(), d.Time(), d.Clock()
	f.Gz = d.Bytes(d.Uvarint())
	if f.Level < 1 || f.Level > 9 || len(f.Gz) < 18 {
		d.fail()
	}
	if d.err != nil {
		return File{}
	}
	return f
}
