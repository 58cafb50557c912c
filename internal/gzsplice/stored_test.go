package gzsplice

import (
	"bytes"
	"errors"
	"hash/crc32"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/freshmap/sitemap/internal/testkit"
	"github.com/klauspost/compress/flate"
)

// TestSplitCheck: Segments joined, then split from the file by their
// figures, check; a Segment whose bytes refer to a run before it, hold a
// final block, or do not give its figures does not; figures that do not
// tile the file or combine to its trailer do not split.
func TestSplitCheck(t *testing.T) {
	runs := [][]byte{[]byte("<urlset>"), bytes.Repeat([]byte("<url>x</url>"), 500), nil, []byte("</urlset>")}
	var segs []*Segment
	var parts []Parts
	for _, r := range runs {
		s, err := NewSegment(r, 6)
		if err != nil {
			t.Fatal(err)
		}
		segs, parts = append(segs, s), append(parts, PartsOf(s))
	}
	gz := Join(nil, segs)
	got, err := Split(gz, parts)
	if err != nil {
		t.Fatal(err)
	}
	var c Checker
	for i, s := range got {
		run, err := c.Check(s)
		if err != nil || !bytes.Equal(run, runs[i]) {
			t.Fatalf("segment %d: %q, %v", i, run, err)
		}
	}
	for name, p := range map[string]func([]Parts){
		"short":   func(p []Parts) { p[1].Compressed-- },
		"long":    func(p []Parts) { p[3].Compressed++ },
		"crc":     func(p []Parts) { p[0].CRC++ },
		"length":  func(p []Parts) { p[2].N++ },
		"one off": func(p []Parts) { p[0].Compressed = -1 },
	} {
		q := append([]Parts(nil), parts...)
		p(q)
		if _, err := Split(gz, q); !errors.Is(err, ErrSplit) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := Split(gz[1:], parts); !errors.Is(err, ErrSplit) {
		t.Errorf("no header: %v", err)
	}

	// Two runs compressed as one stream, flushed between: the second
	// refers to the first.
	var buf bytes.Buffer
	zw, _ := flate.NewWriter(&buf, 6)
	a := make([]byte, 2000) // bytes that do not repeat within
	for i, x := 0, uint32(1); i < len(a); i++ {
		x = x*1664525 + 1013904223
		a[i] = byte(x >> 24)
	}
	b := a[:1000] // but repeat a
	zw.Write(a)
	zw.Flush()
	cut := buf.Len()
	zw.Write(b)
	zw.Flush()
	second := &Segment{deflate: buf.Bytes()[cut:], crc: crc32.ChecksumIEEE(b), n: int64(len(b)), sum: xxhash.Sum64(b)}
	if _, err := c.Check(second); !errors.Is(err, ErrSplit) {
		t.Errorf("a segment that refers to the run before it checks: %v", err)
	}
	// A final block inside: the stream ends there.
	buf.Reset()
	zw.Reset(&buf)
	zw.Write(a)
	zw.Close()
	fin := append(bytes.Clone(buf.Bytes()), 0, 0, 0, 0xff, 0xff)
	if _, err := c.Check(&Segment{deflate: fin, crc: crc32.ChecksumIEEE(a), n: int64(len(a)), sum: xxhash.Sum64(a)}); !errors.Is(err, ErrSplit) {
		t.Errorf("a segment with a final block checks: %v", err)
	}
	// Figures that are not its run's.
	s := *segs[1]
	s.sum++
	if _, err := c.Check(&s); !errors.Is(err, ErrSplit) {
		t.Errorf("another sum checks: %v", err)
	}
	s = *segs[1]
	s.n--
	if _, err := c.Check(&s); !errors.Is(err, ErrSplit) {
		t.Errorf("another length checks: %v", err)
	}
	// Any byte changed.
	for i := range segs[1].deflate {
		s := *segs[1]
		s.deflate = bytes.Clone(s.deflate)
		s.deflate[i] ^= 0x04
		if run, err := c.Check(&s); err == nil {
			t.Fatalf("byte %d changed: checks, %d bytes", i, len(run))
		}
	}
}

// TestSplitCheckUnits: Segments of several units, joined, split from the
// file by their figures (PartsOf), check and give their runs; figures of
// units that do not tile the Segment's bytes, do not make its figures, or
// are one unit, or a first unit with a dictionary, do not split.
func TestSplitCheckUnits(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	runs := [][]byte{[]byte("<urlset>"), page(r, 1500), page(r, 800), []byte("</urlset>")}
	cuts := [][]int{nil, {40000, 60000, 100000}, {DictSize / 2, 30000}, nil}
	var segs []*Segment
	var parts []Parts
	for i, run := range runs {
		s, _ := chainOf(t, run, cuts[i], 6)
		segs, parts = append(segs, s), append(parts, PartsOf(s))
	}
	if len(parts[1].Units) != 4 || len(parts[2].Units) != 3 || parts[0].Units != nil {
		t.Fatalf("units %d, %d, %d", len(parts[0].Units), len(parts[1].Units), len(parts[2].Units))
	}
	gz := Join(nil, segs)
	got, err := Split(gz, parts)
	if err != nil {
		t.Fatal(err)
	}
	var c Checker
	for i, s := range got {
		if !reflect.DeepEqual(s, segs[i]) {
			t.Fatalf("segment %d split is not the one joined", i)
		}
		run, err := c.Check(s)
		if err != nil || !bytes.Equal(run, runs[i]) {
			t.Fatalf("segment %d: %d bytes, %v", i, len(run), err)
		}
	}
	for name, forge := range map[string]func(p []UnitParts){
		"one unit": func(p []UnitParts) {
			p[0] = UnitParts{Compressed: parts[1].Compressed, CRC: parts[1].CRC, N: parts[1].N, Sum: parts[1].Sum}
		},
		"first has a dict":  func(p []UnitParts) { p[0].Dict = 1 },
		"short":             func(p []UnitParts) { p[3].Compressed-- },
		"long":              func(p []UnitParts) { p[3].Compressed++ },
		"negative":          func(p []UnitParts) { p[0].Compressed = -1 },
		"unit crc":          func(p []UnitParts) { p[1].CRC++ },
		"unit length":       func(p []UnitParts) { p[2].N++ },
		"unit sum":          func(p []UnitParts) { p[2].Sum++ },
		"unit dict":         func(p []UnitParts) { p[2].Dict++ },
		"units swapped":     func(p []UnitParts) { p[1], p[2] = p[2], p[1] },
		"a length moved":    func(p []UnitParts) { p[1].N -= 10; p[2].N += 10 },
		"past the segment":  func(p []UnitParts) { p[0].Compressed += parts[1].Compressed },
		"longer than all N": func(p []UnitParts) { p[0].N = parts[1].N + 1 },
	} {
		q := slices.Clone(parts)
		q[1].Units = slices.Clone(parts[1].Units)
		forge(q[1].Units)
		if name == "one unit" {
			q[1].Units = q[1].Units[:1]
		}
		if _, err := Split(gz, q); !errors.Is(err, ErrSplit) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// A boundary between units moved: the lengths tile the Segment and
	// every figure is as it was; the units' bytes are not.
	for _, d := range []int{-3, -1, 1, 2} {
		q := slices.Clone(parts)
		q[1].Units = slices.Clone(parts[1].Units)
		q[1].Units[1].Compressed += d
		q[1].Units[2].Compressed -= d
		zs, err := Split(gz, q)
		if err != nil {
			t.Fatalf("moved by %d: %v", d, err)
		}
		if _, err := c.Check(zs[1]); !errors.Is(err, ErrSplit) {
			t.Errorf("a unit boundary moved by %d checks: %v", d, err)
		}
	}
	// Units as Check sees them, made without Split: ends out of order or
	// past the bytes are refused, not a panic.
	for _, end := range []int{-1, len(segs[1].deflate) + 1, 0} {
		s := *segs[1]
		s.units = slices.Clone(s.units)
		s.units[1].end = end
		if _, err := c.Check(&s); !errors.Is(err, ErrSplit) {
			t.Errorf("a unit ending at %d checks: %v", end, err)
		}
	}
	// A length no deflate bytes of that size can give is refused before
	// room is made for it.
	s := *segs[0]
	s.n = 1 << 40
	if _, err := c.Check(&s); !errors.Is(err, ErrSplit) {
		t.Errorf("a length of 1 TiB from %d bytes checks: %v", len(s.deflate), err)
	}
}

// TestCheckUnitDict: a unit is checked after its dictionary alone. One
// compressed after the whole run before it, whose bytes refer 20 KiB back,
// past its 12 KiB dictionary, reads back right in the joined file, yet
// fails the check; one that names another dictionary's sum fails too.
func TestCheckUnitDict(t *testing.T) {
	a := make([]byte, 32<<10) // bytes that do not repeat within
	for i, x := 0, uint32(7); i < len(a); i++ {
		x = x*1664525 + 1013904223
		a[i] = byte(x >> 24)
	}
	b := bytes.Clone(a[len(a)-20<<10:][:4000]) // 20 KiB before the end of a
	first, err := NewUnit(a, nil, 6, xxhash.Sum64(a))
	if err != nil {
		t.Fatal(err)
	}
	honest, err := NewUnit(b, DictOf(a), 6, xxhash.Sum64(b))
	if err != nil {
		t.Fatal(err)
	}
	var c Checker
	if run, err := c.Check(Chain([]Unit{first, honest})); err != nil || !bytes.Equal(run, append(bytes.Clone(a), b...)) {
		t.Fatalf("the honest chain: %v", err)
	}
	// The same unit compressed after all of a: it refers 20 KiB back.
	var buf bytes.Buffer
	zw, _ := flate.NewWriterDict(&buf, 6, a)
	zw.Write(b)
	zw.Flush()
	if len(buf.Bytes()) > len(b)/4 {
		t.Fatalf("the forged unit is %d bytes of %d: it does not refer back", len(buf.Bytes()), len(b))
	}
	forged := Unit{Deflate: buf.Bytes(), CRC: crc32.ChecksumIEEE(b), N: int64(len(b)), Sum: xxhash.Sum64(b), Dict: DictSum(DictOf(a))}
	s := Chain([]Unit{first, forged})
	if !bytes.Equal(testkit.GunzipMember(t, s.Member()), append(bytes.Clone(a), b...)) {
		t.Fatal("the forged chain does not read back whole: the test shows nothing")
	}
	if _, err := c.Check(s); !errors.Is(err, ErrSplit) {
		t.Errorf("a unit that refers past its dictionary checks: %v", err)
	}
	// Split from its file by its figures, it fails the same.
	zs, err := Split(s.Member(), []Parts{PartsOf(s)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Check(zs[0]); !errors.Is(err, ErrSplit) {
		t.Errorf("split, a unit that refers past its dictionary checks: %v", err)
	}
	// The honest unit naming another dictionary (Chain makes the Sum of
	// what it names, so only the dictionary is wrong).
	other := honest
	other.Dict++
	if _, err := c.Check(Chain([]Unit{first, other})); !errors.Is(err, ErrSplit) {
		t.Errorf("a unit naming another dictionary checks: %v", err)
	}
	none := honest
	none.Dict = 0
	if _, err := c.Check(Chain([]Unit{first, none})); !errors.Is(err, ErrSplit) {
		t.Errorf("a unit naming no dictionary checks: %v", err)
	}
}
