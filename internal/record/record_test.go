package record

import (
	"bytes"
	"encoding/binary"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/cespare/xxhash/v2"
)

// gz is the smallest run of bytes a file may hold (a gzip header and
// trailer's length); the format does not read them.
var gz = bytes.Repeat([]byte{0x1f}, 18)

func testDoc() *Doc {
	t0 := time.Unix(1_700_000_000, 123).UTC()
	c := Clock{At: t0, Served: t0.Add(-time.Second), Hash: 7, Built: true, Version: "v1"}
	return &Doc{
		Main: File{Hash: 1, Level: 6, LastMod: t0, Built: t0.Add(time.Minute), Clock: c, Gz: gz},
		Gen:  42, Era: t0.Add(-time.Hour),
		Info: Info{Number: 3, LastMod: t0, Version: "x"},
		Pages: [][]Page{
			{{Info{Number: 1, LastMod: t0}, c}, {Info{Number: 4, Version: "p4"}, Clock{Ungiven: true}}},
			{},
		},
		More:  []File{{Hash: 2, Level: 1, Gz: append(bytes.Clone(gz), 'x')}},
		Table: []byte("a table"),
	}
}

// reseal returns b, a record body without its checksum, with one.
func reseal(b []byte) []byte { return binary.LittleEndian.AppendUint64(b, xxhash.Sum64(b)) }

// asV2 returns the record of d, which has no extension field: of
// version 2, as an older replica writes it.
func asV2(t *testing.T, d *Doc) []byte {
	t.Helper()
	b := Encode(d)
	if string(b[:len(MagicV2)]) != MagicV2 {
		t.Fatal("a record without extension fields is not written as version 2")
	}
	return b
}

// remagic returns record b sealed again with magic m in place of its own.
func remagic(b []byte, m string) []byte {
	return reseal(append([]byte(m), b[len(m):len(b)-8]...))
}

// TestVersions: a record of version 2 (an older replica's) decodes, with
// no table; extension fields of tags this version does not know are
// skipped; a table given twice, or empty, does not decode.
func TestVersions(t *testing.T) {
	if b := Encode(testDoc()); string(b[:len(Magic)]) != Magic {
		t.Error("a record with a table is not written as version 3")
	}
	d := testDoc()
	d.Table = nil
	got, err := Decode(asV2(t, d))
	if err != nil {
		t.Fatal(err)
	}
	if got.Table != nil || got.Main.Hash != d.Main.Hash || len(got.More) != 1 {
		t.Errorf("a version 2 record decoded as %+v", got)
	}
	ext := func(fields ...[]byte) []byte {
		b := Encode(d)
		b = append([]byte(Magic), b[len(MagicV2):len(b)-8]...)
		b = append(b, byte(len(fields)))
		for _, f := range fields {
			b = append(b, f...)
		}
		return reseal(b)
	}
	field := func(tag byte, v string) []byte { return append([]byte{tag, byte(len(v))}, v...) }
	got, err = Decode(ext(field(9, "later"), field(TagTable, "tab"), field(100, "")))
	if err != nil || string(got.Table) != "tab" {
		t.Fatalf("unknown tags: %+v %v", got, err)
	}
	for name, b := range map[string][]byte{
		"table twice":  ext(field(TagTable, "a"), field(TagTable, "b")),
		"empty table":  ext(field(TagTable, "")),
		"field cut":    ext(field(TagTable, "abc")[:3]),
		"count past":   ext(field(TagTable, "abc"), nil, nil),
		"v2 with ext":  remagic(Encode(testDoc()), MagicV2),
		"v3 with none": remagic(Encode(d), Magic),
	} {
		if _, err := Decode(b); !errors.Is(err, ErrRecord) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	d := testDoc()
	got, err := Decode(Encode(d))
	if err != nil {
		t.Fatal(err)
	}
	d.Pages[1] = []Page{} // an empty section decodes as an empty, not nil, slice
	if !reflect.DeepEqual(got, d) {
		t.Errorf("decoded %+v\nwant %+v", got, d)
	}
	era := time.Unix(5, 6).UTC()
	at, c, err := DecodeStoredClock(EncodeStoredClock(era, d.Main.Clock))
	if err != nil || !at.Equal(era) || c != d.Main.Clock {
		t.Errorf("stored clock: %v %+v %v", at, c, err)
	}
	if c, err := DecodeClock(EncodeClock(d.Main.Clock)); err != nil || c != d.Main.Clock {
		t.Errorf("clock: %+v %v", c, err)
	}
}

// TestGarbage: a value cut anywhere, with any byte changed, or something
// else altogether, does not decode.
func TestGarbage(t *testing.T) {
	for name, b := range map[string][]byte{
		"record":       Encode(testDoc()),
		"clock":        EncodeClock(testDoc().Main.Clock),
		"stored clock": EncodeStoredClock(time.Unix(1, 0), testDoc().Main.Clock),
	} {
		decode := func(b []byte) error {
			var err error
			switch name {
			case "record":
				_, err = Decode(b)
			case "clock":
				_, err = DecodeClock(b)
			default:
				_, _, err = DecodeStoredClock(b)
			}
			return err
		}
		if err := decode(b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for n := range len(b) {
			if err := decode(b[:n]); !errors.Is(err, ErrRecord) {
				t.Fatalf("%s cut at %d of %d: %v", name, n, len(b), err)
			}
		}
		for i := range b {
			c := bytes.Clone(b)
			c[i] ^= 0x20
			if err := decode(c); !errors.Is(err, ErrRecord) {
				t.Fatalf("%s byte %d changed: %v", name, i, err)
			}
		}
	}
	for _, v := range []string{"", "OK", Magic, ClockMagic, "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"} {
		if _, err := Decode([]byte(v)); !errors.Is(err, ErrRecord) {
			t.Errorf("%q: %v", v, err)
		}
	}
}

// TestSealedButWrong: a value whose checksum is right but whose fields
// are not (a level out of range, too few gzip bytes, unknown clock
// flags, bytes left over) does not decode.
func TestSealedButWrong(t *testing.T) {
	seal := func(b []byte) []byte { return binary.LittleEndian.AppendUint64(b, xxhash.Sum64(b)) }
	body := func(f func(d *Doc)) []byte {
		d := testDoc()
		f(d)
		b := Encode(d)
		return b[:len(b)-8]
	}
	for name, b := range map[string][]byte{
		"level 0":     seal(body(func(d *Doc) { d.Main.Level = 0 })),
		"level 10":    seal(body(func(d *Doc) { d.More[0].Level = 10 })),
		"short gzip":  seal(body(func(d *Doc) { d.Main.Gz = gz[:17] })),
		"left over":   seal(append(body(func(*Doc) {}), 0)),
		"clock flags": seal(append(AppendClock([]byte(ClockMagic), Clock{})[:len(ClockMagic)+10], 4, 0)),
	} {
		var err error
		if name == "clock flags" {
			_, err = DecodeClock(b)
		} else {
			_, err = Decode(b)
		}
		if !errors.Is(err, ErrRecord) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestDecoder: the first error sticks and later reads return zeros; a
// count the bytes cannot hold fails before any allocation; an Int must
// fit an int32.
func TestDecoder(t *testing.T) {
	b := AppendString(AppendTime(nil, time.Unix(9, 8)), "abc")
	d := NewDecoder(b)
	if got := d.Time(); !got.Equal(time.Unix(9, 8)) {
		t.Errorf("time %v", got)
	}
	if s := d.String(); s != "abc" || !d.Done() {
		t.Errorf("string %q, done %v", s, d.Done())
	}
	d = NewDecoder(binary.AppendUvarint(nil, 5))
	if n := d.Count(1); n != 0 || d.Err() == nil {
		t.Errorf("count %d past the bytes, err %v", n, d.Err())
	}
	if d.Uint64() != 0 || d.Varint() != 0 || d.String() != "" || len(d.Rest()) != 0 {
		t.Error("a read after an error returned something")
	}
	d = NewDecoder([]byte{1, 0, 0xff, 0xff, 0xff, 0xff, 0x0f}) // nanoseconds past a second
	if d.Time(); d.Err() == nil {
		t.Error("nanoseconds ≥ 1e9 decode")
	}
	d = NewDecoder(binary.AppendUvarint(binary.LittleEndian.AppendUint32(nil, 7), 1<<31-1))
	if u, n := d.Uint32(), d.Int(); u != 7 || n != 1<<31-1 || !d.Done() {
		t.Errorf("uint32 %d, int %d, done %v", u, n, d.Done())
	}
	d = NewDecoder(binary.AppendUvarint(nil, 1<<31)) // past an int32
	if n := d.Int(); n != 0 || d.Err() == nil {
		t.Errorf("int %d past an int32, err %v", n, d.Err())
	}
	if d = NewDecoder([]byte{1, 2, 3}); d.Uint32() != 0 || d.Err() == nil {
		t.Error("a uint32 of three bytes decodes")
	}
}

// FuzzDecode: whatever a store returns, decoding neither panics nor
// allocates past the value's size, and what decodes encodes to the same
// bytes again once its sums are dropped.
func FuzzDecode(f *testing.F) {
	f.Add(Encode(testDoc()))
	d := testDoc()
	d.Table = nil
	f.Add(asV2(&testing.T{}, d))
	f.Add([]byte(Magic))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 12 && b[0] == 'S' {
			binary.LittleEndian.PutUint64(b[len(b)-8:], xxhash.Sum64(b[:len(b)-8]))
		}
		d, err := Decode(b)
		if err != nil {
			return
		}
		d.Sums = nil
		once := Encode(d)
		again, err := Decode(once)
		if err != nil {
			t.Fatalf("a decoded record, encoded, does not decode: %v", err)
		}
		if twice := Encode(again); !bytes.Equal(twice, once) {
			t.Fatalf("a record changed through an encoding")
		}
	})
}
