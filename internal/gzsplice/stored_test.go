package gzsplice

import (
	"bytes"
	"errors"
	"hash/crc32"
	"testing"

	"github.com/cespare/xxhash/v2"
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
