// Package record is the wire format of what a Store keeps for a sitemap,
// given plain data: the record of a document (its files' bytes and
// validators, the clocks it carries, its pages), the stored clock of a
// page, and the fields the root's clock file and fleet messages are made
// of. A record ends in the xxhash of what precedes it: a value that was
// cut, or is not a record at all, does not decode; garbage is an error,
// never a panic or a huge allocation.
package record

import (
	"encoding/binary"
	"errors"
	"time"

	"github.com/cespare/xxhash/v2"
)

// Magic starts every record; its last byte is the format version.
// Version 3 added the extension fields after the files: each a tag and
// bytes, which a replica that does not know the tag skips, so that a
// field added later needs no new version (an older replica reading a
// newer record serves it without the field). A record with no extension
// field is written as version 2, which older replicas read: only a page
// with its segment table is of version 3, which a replica older than it
// reads as a miss (it builds its own copy). A record of version 2 decodes
// here too, with no extension field.
const Magic = "SMR\x03"

// MagicV2 starts a record of version 2: the same fields, without the
// extension fields.
const MagicV2 = "SMR\x02"

// The tags of the extension fields.
const (
	// TagTable: the segment table of the main file, a page's
	// (internal/segment's wire form, which slices the file's bytes).
	TagTable = 1
)

// ClockMagic starts the stored clock of a page.
const ClockMagic = "SMK\x01"

// StoredClockMagic starts the clock of a page as a Store keeps it, with
// the era it was given in.
const StoredClockMagic = "SME\x01"

// ErrRecord is the error of every decoder here for a value that is not a
// record of this version.
var ErrRecord = errors.New("store value is not a valid record")

// Clock is the stored part of a file's content clock.
type Clock struct {
	At, Served time.Time
	Hash       uint64
	Built      bool
	Ungiven    bool
	Version    string
}

// The flags of a clock: built, and ungiven (a clock file written before
// ungiven was kept has none: every clock in it was given).
const (
	clockBuilt   = 1 << 0
	clockUngiven = 1 << 1
)

// File is what every file of a record has: its bytes, validators and
// clock.
type File struct {
	Hash           uint64
	Level          int
	LastMod, Built time.Time
	Clock          Clock
	Gz             []byte
}

// Info is a page as an index lists it.
type Info struct {
	Number  int64
	LastMod time.Time
	Version string
}

// Page is a page an index lists, with its clock.
type Page struct {
	Info
	Clock Clock
}

// Sum is the pair of hashes of one URL that an older record may carry.
type Sum struct{ Loc, Entry uint64 }

// Doc is everything a record holds: the document's first file, the
// store generation its build started at and the Store's era then, its
// own Info, for an index its sections' pages and its other files.
type Doc struct {
	Main  File
	Gen   int64
	Era   time.Time
	Info  Info
	Sums  []Sum // read from older records only; never written
	Pages [][]Page
	More  []File
	// Table is the segment table of Main (an extension field), nil if
	// none; its bytes are opaque here.
	Table []byte
}

// Encode returns the record of d: of version 2 if it has no extension
// field, else 3. Sums are not written (a replica reads
// them back from the bytes); their count stays, 0, so records with sums,
// from older replicas, still decode.
func Encode(d *Doc) []byte {
	n := len(Magic) + len(d.Main.Gz) + len(d.Table) + 128
	for _, f := range d.More {
		n += len(f.Gz) + 64
	}
	for _, ps := range d.Pages {
		n += 48 * len(ps)
	}
	b := make([]byte, 0, n)
	if len(d.Table) == 0 {
		b = append(b, MagicV2...) // no extension field: what every replica reads
	} else {
		b = append(b, Magic...)
	}
	b = appendFile(b, &d.Main)
	b = binary.AppendVarint(b, d.Gen)
	b = AppendTime(b, d.Era)
	b = binary.AppendVarint(b, d.Info.Number)
	b = AppendTime(b, d.Info.LastMod)
	b = AppendString(b, d.Info.Version)
	b = binary.AppendUvarint(b, 0)
	b = binary.AppendUvarint(b, uint64(len(d.Pages)))
	for _, ps := range d.Pages {
		b = binary.AppendUvarint(b, uint64(len(ps)))
		for _, p := range ps {
			b = binary.AppendVarint(b, p.Number)
			b = AppendTime(b, p.LastMod)
			b = AppendString(b, p.Version)
			b = AppendClock(b, p.Clock)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(d.More)))
	for i := range d.More {
		b = appendFile(b, &d.More[i])
	}
	if len(d.Table) > 0 {
		b = binary.AppendUvarint(b, 1)
		b = binary.AppendUvarint(b, TagTable)
		b = binary.AppendUvarint(b, uint64(len(d.Table)))
		b = append(b, d.Table...)
	}
	return binary.LittleEndian.AppendUint64(b, xxhash.Sum64(b))
}

func appendFile(b []byte, f *File) []byte {
	b = binary.LittleEndian.AppendUint64(b, f.Hash)
	b = append(b, byte(f.Level))
	b = AppendTime(b, f.LastMod)
	b = AppendTime(b, f.Built)
	b = AppendClock(b, f.Clock)
	b = binary.AppendUvarint(b, uint64(len(f.Gz)))
	return append(b, f.Gz...)
}

// Decode returns the Doc a record holds. Its files' Gz and its Table
// share memory with b: a caller that keeps them apart from b copies them.
// A record of version 2 decodes too, with no extension fields; one
// whose extension fields have tags this version does not know decodes
// without them.
func Decode(b []byte) (*Doc, error) {
	body, ok := sealed(b, Magic)
	v2 := false
	if !ok {
		if body, ok = sealed(b, MagicV2); !ok {
			return nil, ErrRecord
		}
		v2 = true
	}
	dec := NewDecoder(body)
	d := &Doc{Main: dec.file()}
	d.Gen = dec.Varint()
	d.Era = dec.Time()
	d.Info = Info{Number: dec.Varint(), LastMod: dec.Time(), Version: dec.String()}
	if n := dec.Count(16); n > 0 {
		d.Sums = make([]Sum, n)
		for i := range d.Sums {
			d.Sums[i] = Sum{Loc: dec.Uint64(), Entry: dec.Uint64()}
		}
	}
	if n := dec.Count(1); n > 0 {
		d.Pages = make([][]Page, n)
		for i := range d.Pages {
			d.Pages[i] = make([]Page, dec.Count(8))
			for j := range d.Pages[i] {
				d.Pages[i][j] = Page{Info{Number: dec.Varint(), LastMod: dec.Time(), Version: dec.String()}, dec.Clock()}
			}
		}
	}
	if n := dec.Count(12); n > 0 {
		d.More = make([]File, n)
		for i := range d.More {
			d.More[i] = dec.file()
		}
	}
	if !v2 {
		for n := dec.Count(2); n > 0 && dec.Err() == nil; n-- {
			tag, v := dec.Uvarint(), dec.Bytes(dec.Uvarint())
			switch {
			case tag != TagTable:
				// A field of a later replica: skipped.
			case d.Table != nil || len(v) == 0:
				return nil, ErrRecord // twice, or empty (never written)
			default:
				d.Table = v
			}
		}
	}
	if !dec.Done() {
		return nil, ErrRecord
	}
	return d, nil
}

// sealed returns what b holds between magic and its trailing xxhash, and
// whether b has them both right.
func sealed(b []byte, magic string) ([]byte, bool) {
	if len(b) < len(magic)+8 || string(b[:len(magic)]) != magic ||
		xxhash.Sum64(b[:len(b)-8]) != binary.LittleEndian.Uint64(b[len(b)-8:]) {
		return nil, false
	}
	return b[len(magic) : len(b)-8], true
}

// EncodeClock returns the stored form of a page's clock.
func EncodeClock(c Clock) []byte {
	b := AppendClock(append(make([]byte, 0, 64), ClockMagic...), c)
	return binary.LittleEndian.AppendUint64(b, xxhash.Sum64(b))
}

// DecodeClock returns the clock EncodeClock stored.
func DecodeClock(b []byte) (Clock, error) {
	body, ok := sealed(b, ClockMagic)
	if !ok {
		return Clock{}, ErrRecord
	}
	d := NewDecoder(body)
	c := d.Clock()
	if !d.Done() {
		return Clock{}, ErrRecord
	}
	return c, nil
}

// EncodeStoredClock returns the stored form of a page's clock c, given
// in era.
func EncodeStoredClock(era time.Time, c Clock) []byte {
	b := AppendTime(append(make([]byte, 0, 80), StoredClockMagic...), era)
	b = AppendClock(b, c)
	return binary.LittleEndian.AppendUint64(b, xxhash.Sum64(b))
}

// DecodeStoredClock returns the era and the clock EncodeStoredClock
// stored.
func DecodeStoredClock(b []byte) (time.Time, Clock, error) {
	body, ok := sealed(b, StoredClockMagic)
	if !ok {
		return time.Time{}, Clock{}, ErrRecord
	}
	d := NewDecoder(body)
	era, c := d.Time(), d.Clock()
	if !d.Done() {
		return time.Time{}, Clock{}, ErrRecord
	}
	return era, c, nil
}
