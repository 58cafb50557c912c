package sitemap

import (
	"bytes"
	"encoding/binary"
	"errors"
	"time"

	"github.com/cespare/xxhash/v2"
)

// The record of a document in a Store: everything a replica needs to
// serve it and to answer conditional requests without building it (the
// gzip bytes, the validators' hash, the content clock, when it was built,
// its PageInfo, the store generation its build started at and the Store's
// era then), and what
// the next build needs to keep the clock going forward (the clock's
// state; for an index, every page's). The URL sums that derive changes
// are read back from the gzip bytes instead (sumsOf); a record from an
// older replica may still carry them, and they decode. It ends in the xxhash of what precedes it: a value that was cut,
// or is not a record at all, does not decode, and is a miss.

// recordMagic starts every record; its last byte is the format version.
const recordMagic = "SMR\x02"

// errRecord is the error of decodeRecord for a value that is not a
// record of this version.
var errRecord = errors.New("store value is not a valid record")

// keyClock is the clock of one file, as a record carries it.
type keyClock struct {
	k docKey
	c fileClock
}

// encodeRecord returns the record of e, the copy of k, with the clocks
// clock gives: k's, and for an index those of its other files and of every
// page it lists.
func encodeRecord(k docKey, e *entry, clock func(docKey) fileClock) []byte {
	n := len(recordMagic) + len(e.gz) + 128
	for _, f := range e.more {
		n += len(f.gz) + 64
	}
	for _, ps := range e.pages {
		n += 48 * len(ps)
	}
	b := make([]byte, 0, n)
	b = append(b, recordMagic...)
	b = appendFile(b, e, clock(k))
	b = binary.AppendVarint(b, e.gen)
	b = appendTime(b, e.era)
	b = binary.AppendVarint(b, e.info.Number)
	b = appendTime(b, e.info.LastMod)
	b = appendString(b, e.info.Version)
	// The URL hashes of change tracking are not stored (16 bytes a URL,
	// five times the gzip bytes): a replica that rebuilds the page reads
	// them back from this copy's bytes (sumsOf). The count stays, 0, so
	// records with hashes, from older replicas, still decode.
	b = binary.AppendUvarint(b, 0)
	b = binary.AppendUvarint(b, uint64(len(e.pages)))
	for i, ps := range e.pages {
		b = binary.AppendUvarint(b, uint64(len(ps)))
		for _, p := range ps {
			b = binary.AppendVarint(b, p.Number)
			b = appendTime(b, p.LastMod)
			b = appendString(b, p.Version)
			b = appendClock(b, clock(pageKey(i, p.Number)))
		}
	}
	b = binary.AppendUvarint(b, uint64(len(e.more)))
	for i, f := range e.more {
		b = appendFile(b, f, clock(indexFileKey(i+2)))
	}
	return binary.LittleEndian.AppendUint64(b, xxhash.Sum64(b))
}

// appendFile appends what every file of a record has: its bytes,
// validators and clock.
func appendFile(b []byte, e *entry, c fileClock) []byte {
	b = binary.LittleEndian.AppendUint64(b, e.hash)
	b = append(b, byte(e.level))
	b = appendTime(b, e.lastMod)
	b = appendTime(b, e.built)
	b = appendClock(b, c)
	b = binary.AppendUvarint(b, uint64(len(e.gz)))
	return append(b, e.gz...)
}

func appendClock(b []byte, c fileClock) []byte {
	b = appendTime(b, c.at)
	b = appendTime(b, c.served)
	b = binary.LittleEndian.AppendUint64(b, c.hash)
	var flags byte
	if c.built {
		flags |= clockBuilt
	}
	if c.ungiven {
		flags |= clockUngiven
	}
	return appendString(append(b, flags), c.version)
}

// The flags of a clock: built, and ungiven (a clock file written before
// ungiven was kept has none: every clock in it was given).
const (
	clockBuilt   = 1 << 0
	clockUngiven = 1 << 1
)

// clockMagic starts the stored clock of a page.
const clockMagic = "SMK\x01"

// encodeClock returns the stored form of a page's clock.
func encodeClock(c fileClock) []byte {
	b := appendClock(append(make([]byte, 0, 64), clockMagic...), c)
	return binary.LittleEndian.AppendUint64(b, xxhash.Sum64(b))
}

// decodeClock returns the clock encodeClock stored.
func decodeClock(b []byte) (fileClock, error) {
	if len(b) < len(clockMagic)+8 || string(b[:len(clockMagic)]) != clockMagic ||
		xxhash.Sum64(b[:len(b)-8]) != binary.LittleEndian.Uint64(b[len(b)-8:]) {
		return fileClock{}, errRecord
	}
	d := &decoder{b: b[len(clockMagic) : len(b)-8]}
	c := d.clock()
	if d.err != nil || len(d.b) != 0 {
		return fileClock{}, errRecord
	}
	return c, nil
}

// storedClockMagic starts the clock of a page as a Store keeps it, with
// the era it was given in.
const storedClockMagic = "SME\x01"

// encodeStoredClock returns the stored form of a page's clock c, given in
// era (shared.setClock).
func encodeStoredClock(era time.Time, c fileClock) []byte {
	b := appendTime(append(make([]byte, 0, 80), storedClockMagic...), era)
	b = appendClock(b, c)
	return binary.LittleEndian.AppendUint64(b, xxhash.Sum64(b))
}

// decodeStoredClock returns the era and the clock encodeStoredClock
// stored.
func decodeStoredClock(b []byte) (time.Time, fileClock, error) {
	if len(b) < len(storedClockMagic)+8 || string(b[:len(storedClockMagic)]) != storedClockMagic ||
		xxhash.Sum64(b[:len(b)-8]) != binary.LittleEndian.Uint64(b[len(b)-8:]) {
		return time.Time{}, fileClock{}, errRecord
	}
	d := &decoder{b: b[len(storedClockMagic) : len(b)-8]}
	era, c := d.time(), d.clock()
	if d.err != nil || len(d.b) != 0 {
		return time.Time{}, fileClock{}, errRecord
	}
	return era, c, nil
}

// appendTime appends t to the nanosecond, or a zero time as one byte.
func appendTime(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(b, 0)
	}
	b = append(b, 1)
	b = binary.AppendVarint(b, t.Unix())
	return binary.AppendUvarint(b, uint64(t.Nanosecond()))
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// decodeRecord returns the entry a record of k holds, and the clocks it
// carries. The entry shares no memory with b: its gzip bytes are copied,
// so that a cached copy does not keep the whole record alive (with change
// tracking, the URL sums make it several times the gzip size), and start
// on an aligned address, which makes serving it several times faster
// (BENCHMARKS.md, "Shared store").
func decodeRecord(k docKey, b []byte) (*entry, []keyClock, error) {
	if len(b) < len(recordMagic)+8 || string(b[:len(recordMagic)]) != recordMagic {
		return nil, nil, errRecord
	}
	body := b[:len(b)-8]
	if xxhash.Sum64(body) != binary.LittleEndian.Uint64(b[len(b)-8:]) {
		return nil, nil, errRecord
	}
	d := &decoder{b: body[len(recordMagic):]}
	e, c := d.file()
	clocks := []keyClock{{k, c}}
	e.gen = d.varint()
	e.era = d.time()
	e.info.Number = d.varint()
	e.info.LastMod = d.time()
	e.info.Version = d.string()
	if n := d.count(16); n > 0 {
		e.sums = make([]urlSum, n)
		for i := range e.sums {
			e.sums[i] = urlSum{loc: d.uint64(), entry: d.uint64()}
		}
	}
	if n := d.count(1); n > 0 {
		e.pages = make([][]PageInfo, n)
		for i := range e.pages {
			e.pages[i] = make([]PageInfo, d.count(8))
			for j := range e.pages[i] {
				p := PageInfo{Number: d.varint(), LastMod: d.time(), Version: d.string()}
				e.pages[i][j] = p
				clocks = append(clocks, keyClock{pageKey(i, p.Number), d.clock()})
			}
		}
	}
	if n := d.count(12); n > 0 {
		e.more = make([]*entry, n)
		for i := range e.more {
			e.more[i], c = d.file()
			clocks = append(clocks, keyClock{indexFileKey(i + 2), c})
		}
	}
	if d.err != nil || len(d.b) != 0 {
		return nil, nil, errRecord
	}
	return e, clocks, nil
}

// decoder reads a record; the first error sticks, and every read after
// it returns zero values.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail() { d.err, d.b = errRecord, nil }

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) bytes(n uint64) []byte {
	if n > uint64(len(d.b)) {
		d.fail()
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

func (d *decoder) byte() byte {
	if v := d.bytes(1); v != nil {
		return v[0]
	}
	return 0
}

func (d *decoder) uint64() uint64 {
	if v := d.bytes(8); v != nil {
		return binary.LittleEndian.Uint64(v)
	}
	return 0
}

func (d *decoder) string() string { return string(d.bytes(d.uvarint())) }

// count reads a number of items of at least size bytes each, refusing
// one the remaining bytes cannot hold, so garbage cannot make a huge
// allocation.
func (d *decoder) count(size int) int {
	n := d.uvarint()
	if n > uint64(len(d.b)/size) {
		d.fail()
		return 0
	}
	return int(n)
}

func (d *decoder) time() time.Time {
	switch d.byte() {
	case 0:
		return time.Time{}
	case 1:
		sec, nsec := d.varint(), d.uvarint()
		if nsec >= 1e9 {
			d.fail()
			return time.Time{}
		}
		return time.Unix(sec, int64(nsec)).UTC()
	}
	d.fail()
	return time.Time{}
}

func (d *decoder) clock() fileClock {
	c := fileClock{at: d.time(), served: d.time(), hash: d.uint64()}
	flags := d.byte()
	if flags&^(clockBuilt|clockUngiven) != 0 {
		d.fail()
	}
	c.built, c.ungiven = flags&clockBuilt != 0, flags&clockUngiven != 0
	c.version = d.string()
	return c
}

// file reads what appendFile wrote, and makes the entry (its ETags and
// lengths derive from its hash, level and bytes, as a build makes them)
// and returns it with its clock.
func (d *decoder) file() (*entry, fileClock) {
	hash, level := d.uint64(), int(d.byte())
	lastMod, built, clock := d.time(), d.time(), d.clock()
	gz := d.bytes(d.uvarint())
	if level < 1 || level > 9 || len(gz) < 18 {
		d.fail()
	}
	if d.err != nil {
		return &entry{}, fileClock{}
	}
	e := newEntry(bytes.Clone(gz), hash, level, lastMod, built)
	e.unclocked = lastMod.IsZero() // a stored copy is never one built alone (fleet.go)
	return e, clock
}
