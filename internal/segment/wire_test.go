package segment

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"math/bits"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/gzsplice"
)

// wireFields are the fields of the types a table is made of that
// AppendTable writes (Seg.Z as its gzsplice figures, gzsplice.Parts, the
// units' as gzsplice.UnitParts; Table.Segs as the segments). A field
// added to one of them fails TestWireFields until it is written and read
// back (wire.go) and listed here.
var wireFields = map[reflect.Type][]string{
	reflect.TypeFor[Table]():              {"Level", "BySource", "Full", "Segs"},
	reflect.TypeFor[Seg]():                {"Z", "URLs", "Read", "Newest", "Volatile"},
	reflect.TypeFor[gzsplice.Segment]():   {"deflate", "crc", "n", "sum", "units"},
	reflect.TypeFor[gzsplice.Parts]():     {"Compressed", "CRC", "N", "Sum", "Units"},
	reflect.TypeFor[gzsplice.UnitParts](): {"Compressed", "CRC", "N", "Sum", "Dict"},
}

// unwritten are fields that hold no figure of a kept segment, and so are
// not written: gzsplice.Segment.own is a just-compressed segment's pooled
// buffer, given back when the segment is joined into its page.
var unwritten = map[reflect.Type][]string{
	reflect.TypeFor[gzsplice.Segment](): {"own"},
}

func TestWireFields(t *testing.T) {
	for typ, want := range wireFields {
		var got []string
		for f := range typ.Fields() {
			if !slices.Contains(unwritten[typ], f.Name) {
				got = append(got, f.Name)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%v has the fields %q; the wire form writes %q: write the new ones (internal/segment/wire.go) and list them", typ, got, want)
		}
	}
}

// sourceTable builds a page cut by its Source into segs segments.
func sourceTable(t testing.TB, n, segs int) (page, []byte, *Table) {
	t.Helper()
	r := rand.New(rand.NewPCG(3, 4))
	p := newPage(n, 0)
	var cuts []int
	for i := 1; i <= segs; i++ {
		cuts = append(cuts, i*n/segs)
	}
	w := NewWriter(6, true, nil)
	p.write(r, w, cuts, nil)
	gz, tab, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	return p, gz, tab
}

// fill sets every field of v (a struct, addressable) but skip to a value
// of its kind that differs with i; a kind it does not know fails the test.
func fill(t *testing.T, v reflect.Value, i int, skip ...string) {
	t.Helper()
	for j := range v.NumField() {
		f, name := v.Field(j), v.Type().Field(j).Name
		if slices.Contains(skip, name) {
			continue
		}
		switch {
		case f.Type() == reflect.TypeFor[time.Time]():
			f.Set(reflect.ValueOf(time.Unix(1_700_000_000+int64(i), int64(i)).UTC()))
		case f.Kind() == reflect.Int:
			f.SetInt(int64(1 + (i+j)%9))
		case f.Kind() == reflect.Bool:
			f.SetBool(true)
		default:
			t.Fatalf("%v.%s: this test does not know how to fill a %v; teach it", v.Type(), name, f.Type())
		}
	}
}

// unitsTable builds a page cut by its Source into three segments of
// 8,000 entries, each of several units.
func unitsTable(t testing.TB) ([]byte, *Table) {
	_, gz, tab := sourceTable(t, 24000, 3)
	for _, s := range tab.Body() {
		if len(s.Z.Units()) < 2 {
			t.Fatalf("a segment of 8,000 entries in %d unit", len(s.Z.Units()))
		}
	}
	return gz, tab
}

// TestWireRoundTrip: every field of a table, each set, reads back as it
// was written, with its segments' bytes sliced from the gzip file; so do
// a table's segments of several units, each unit's figures.
func TestWireRoundTrip(t *testing.T) {
	_, gz, tab := sourceTable(t, 5000, 7)
	testRoundTrip(t, gz, tab, 8)
	gz, tab = unitsTable(t)
	units := 0
	for _, s := range tab.Segs {
		if n := len(s.Z.Units()); n > 1 {
			units += n
		}
	}
	t.Logf("%d segments, %d units", len(tab.Segs), units)
	testRoundTrip(t, gz, tab, float64(8+2*bits.Len(uint(units))))
}

func testRoundTrip(t *testing.T, gz []byte, tab *Table, allocs float64) {
	t.Helper()
	fill(t, reflect.ValueOf(tab).Elem(), 0, "Segs")
	tab.Level = 6
	for i := range tab.Segs {
		fill(t, reflect.ValueOf(&tab.Segs[i]).Elem(), i, "Z")
	}
	b := AppendTable(nil, tab)
	got, err := ParseTable(b, gz, tab.Sum())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, tab) {
		t.Errorf("read back %+v\nwant %+v", got, tab)
	}
	if err := got.Check(nil); err != nil {
		t.Errorf("a table as built fails its check: %v", err)
	}
	// The segments read back share the file's bytes: none is copied.
	if zs := got.zs(); !bytes.Equal(gzsplice.Join(nil, zs), gz) {
		t.Error("the segments read back do not join to the file")
	}
	// A few allocations, however many segments: none for each, nor for
	// each unit.
	if n := testing.AllocsPerRun(10, func() { ParseTable(b, gz, tab.Sum()) }); n > allocs {
		t.Errorf("ParseTable makes %v allocations, want %v at most", n, allocs)
	}
	units := 0
	for _, s := range tab.Segs {
		units += len(gzsplice.PartsOf(s.Z).Units)
	}
	if len(b) > 30*len(tab.Segs)+30*units+20 {
		t.Errorf("the wire form of %d segments and %d units takes %d bytes", len(tab.Segs), units, len(b))
	}
}

// TestWireRejects: a table cut anywhere, or with its figures of the
// segments' bytes changed, or read with another file or hash, does not
// parse; a byte of the file changed, where its table still parses, fails
// the check; a table that moves a boundary, its lengths tiling the file
// still, fails the check.
func TestWireRejects(t *testing.T) {
	_, gz, tab := sourceTable(t, 3000, 5)
	testRejects(t, gz, tab)
}

// TestWireRejectsUnits: TestWireRejects of a table whose segments have
// units; and a boundary moved between two units of a segment, their
// lengths tiling it still and every figure the same, fails the check.
func TestWireRejectsUnits(t *testing.T) {
	gz, tab := unitsTable(t)
	testRejects(t, gz, tab)
	parts := make([]gzsplice.Parts, len(tab.Segs))
	for i, s := range tab.Segs {
		parts[i] = gzsplice.PartsOf(s.Z)
	}
	us := parts[2].Units
	us[0].Compressed++
	us[1].Compressed--
	zs, err := gzsplice.Split(gz, parts)
	if err != nil {
		t.Fatal(err)
	}
	forged := *tab
	forged.Segs = slices.Clone(tab.Segs)
	for i := range forged.Segs {
		forged.Segs[i].Z = zs[i]
	}
	got, err := ParseTable(AppendTable(nil, &forged), gz, tab.Sum())
	if err != nil {
		t.Fatalf("a moved unit boundary does not parse: %v", err)
	}
	if err := got.Check(nil); !errors.Is(err, gzsplice.ErrSplit) {
		t.Errorf("a moved unit boundary checks: %v", err)
	}
}

// TestWireV1: a table of version 1, as a replica before units wrote it,
// reads back and checks when its segments are of one unit each; of
// segments of several units (which it cannot describe: read as one,
// their Sum is not their run's) it reads back but does not check, and the
// page is read whole. AppendTable writes version 2.
func TestWireV1(t *testing.T) {
	_, gz, tab := sourceTable(t, 5000, 7)
	if b := AppendTable(nil, tab); b[0] != wireVersion || wireVersion != 2 {
		t.Fatalf("AppendTable writes version %d", b[0])
	}
	got, err := ParseTable(appendTable(nil, tab, wireV1), gz, tab.Sum())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, tab) {
		t.Error("a version 1 table reads back other")
	}
	if err := got.Check(nil); err != nil {
		t.Errorf("a version 1 table of plain segments fails its check: %v", err)
	}
	gz, tab = unitsTable(t)
	got, err = ParseTable(appendTable(nil, tab, wireV1), gz, tab.Sum())
	if err != nil {
		t.Fatal(err)
	}
	if err := got.Check(nil); !errors.Is(err, gzsplice.ErrSplit) {
		t.Errorf("a version 1 table of segments of units checks: %v", err)
	}
	if _, err := ParseTable(append([]byte{3}, AppendTable(nil, tab)[1:]...), gz, tab.Sum()); !errors.Is(err, ErrWire) {
		t.Errorf("version 3: %v", err)
	}
}

func testRejects(t *testing.T, gz []byte, tab *Table) {
	t.Helper()
	b := AppendTable(nil, tab)
	sum := tab.Sum()
	for n := range len(b) {
		if _, err := ParseTable(b[:n], gz, sum); !errors.Is(err, ErrWire) {
			t.Fatalf("cut at %d of %d: %v", n, len(b), err)
		}
	}
	for i := range b {
		for _, bit := range []byte{1, 0x20, 0x80} {
			c := bytes.Clone(b)
			c[i] ^= bit
			got, err := ParseTable(c, gz, sum)
			if err != nil {
				continue
			}
			// Only what is not the segments' bytes may change unseen.
			for j := range got.Segs {
				if !reflect.DeepEqual(got.Segs[j].Z, tab.Segs[j].Z) {
					t.Fatalf("byte %d ^ %#x: segment %d's figures changed, and it parses", i, bit, j)
				}
			}
		}
	}
	if _, err := ParseTable(b, gz, sum+1); !errors.Is(err, ErrWire) {
		t.Errorf("another hash: %v", err)
	}
	_, other, _ := sourceTable(t, 3001, len(tab.Segs)-2)
	if _, err := ParseTable(b, other, sum); !errors.Is(err, ErrWire) {
		t.Errorf("another file: %v", err)
	}
	for i := 0; i < len(gz); i += 1 + len(gz)/300 {
		c := bytes.Clone(gz)
		c[i] ^= 0x10
		got, err := ParseTable(b, c, sum)
		if err == nil && got.Check(nil) == nil {
			t.Fatalf("file byte %d of %d changed: the table parses and checks", i, len(gz))
		}
	}
	// Move a boundary: segment 1 gives its last byte to segment 2. The
	// lengths still tile the file, and the figures are the same.
	parts := make([]gzsplice.Parts, len(tab.Segs))
	for i, s := range tab.Segs {
		parts[i] = gzsplice.PartsOf(s.Z)
	}
	parts[1].Compressed--
	parts[2].Compressed++
	if us := parts[1].Units; len(us) > 0 { // and its last unit to segment 2's first
		us[len(us)-1].Compressed--
	}
	if us := parts[2].Units; len(us) > 0 {
		us[0].Compressed++
	}
	zs, err := gzsplice.Split(gz, parts)
	if err != nil {
		t.Fatal(err)
	}
	forged := *tab
	forged.Segs = slices.Clone(tab.Segs)
	for i := range forged.Segs {
		forged.Segs[i].Z = zs[i]
	}
	got, err := ParseTable(AppendTable(nil, &forged), gz, sum)
	if err != nil {
		t.Fatalf("a moved boundary does not parse: %v", err)
	}
	if err := got.Check(nil); !errors.Is(err, gzsplice.ErrSplit) {
		t.Errorf("a moved boundary checks: %v", err)
	}
}

// FuzzParseTable: whatever bytes come as a table, parsing neither panics
// nor allocates past their size; a table that parses and checks joins to
// the file it came with, and its segments read back its data. The page's
// two segments have units (two each).
func FuzzParseTable(f *testing.F) {
	_, gz, tab := sourceTable(f, 2400, 2)
	if len(tab.Body()[0].Z.Units()) < 2 {
		f.Fatal("the page's first segment has one unit")
	}
	f.Add(AppendTable(nil, tab), uint16(0), byte(0))
	f.Add(appendTable(nil, tab, wireV1), uint16(0), byte(0))
	f.Add([]byte{wireVersion, 6, 1, 0, 2}, uint16(0), byte(0))
	sum := tab.Sum()
	want := gunzipOK(gz)
	f.Fuzz(func(t *testing.T, b []byte, at uint16, flip byte) {
		g := bytes.Clone(gz)
		g[int(at)%len(g)] ^= flip
		got, err := ParseTable(b, g, sum)
		if err != nil {
			return
		}
		if got.Check(nil) != nil {
			return
		}
		if !bytes.Equal(gzsplice.Join(nil, got.zs()), g) {
			t.Fatal("a table that checks does not join to its file")
		}
		var data []byte
		for _, s := range got.Segs {
			data = append(data, gunzipOK(s.Z.Member())...)
		}
		if !bytes.Equal(data, want) {
			t.Fatal("a table that checks reads back other data")
		}
	})
}

// gunzipOK is the data of gz, nil if it does not read back.
func gunzipOK(gz []byte) []byte {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return nil
	}
	return b
}

// BenchmarkTableCheck: Table.Check of a 50,000-entry page read back from
// its wire form, cut by its Source into 25 segments of units ("units",
// each unit inflated alone after its dictionary) or by its content into
// segments of one unit ("plain"); MB/s of the page's XML.
func BenchmarkTableCheck(b *testing.B) {
	for _, name := range []string{"units", "plain"} {
		b.Run(name, func(b *testing.B) {
			var gz []byte
			var tab *Table
			if name == "units" {
				_, gz, tab = sourceTable(b, 50000, 25)
			} else {
				r := rand.New(rand.NewPCG(3, 4))
				p := newPage(50000, 0)
				w := NewWriter(6, false, nil) // cut by content: no units
				p.write(r, w, nil, nil)
				var err error
				if gz, tab, err = w.Close(); err != nil {
					b.Fatal(err)
				}
			}
			units := 0
			for _, s := range tab.Segs {
				units += len(gzsplice.PartsOf(s.Z).Units)
			}
			got, err := ParseTable(AppendTable(nil, tab), gz, tab.Sum())
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(gunzipOK(gz))))
			for b.Loop() {
				if err := got.Check(nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(units), "units")
			b.ReportMetric(float64(len(tab.Segs)), "segs")
		})
	}
}
