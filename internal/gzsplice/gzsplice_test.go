package gzsplice

import (
	"bytes"
	"compress/gzip"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"testing"
)

func TestCombine(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 500; i++ {
		a := make([]byte, r.IntN(300))
		b := make([]byte, r.IntN(3000))
		for j := range a {
			a[j] = byte(r.Uint32())
		}
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		want := crc32.ChecksumIEEE(append(bytes.Clone(a), b...))
		if got := Combine(crc32.ChecksumIEEE(a), crc32.ChecksumIEEE(b), int64(len(b))); got != want {
			t.Fatalf("len %d+%d: Combine = %08x, want %08x", len(a), len(b), got, want)
		}
	}
}

// TestAppend reads the spliced files back with the standard library's
// gzip reader, which checks the CRC-32 and the length, for heads of no
// bytes, of one stored block and of several, and tails of several sizes.
func TestAppend(t *testing.T) {
	tail := bytes.Repeat([]byte("<tr><td>row</td><td>https://example.com/p/1</td></tr>\n"), 20000)
	for _, tl := range [][]byte{nil, []byte("x"), tail} {
		tt, err := NewTail(tl, 6)
		if err != nil {
			t.Fatal(err)
		}
		for _, hl := range []int{0, 1, 100, maxStored, maxStored + 1, 3*maxStored + 7} {
			head := bytes.Repeat([]byte{'h'}, hl)
			gz := tt.Append([]byte("keep"), head)
			if string(gz[:4]) != "keep" {
				t.Fatal("dst not kept")
			}
			gz = gz[4:]
			if len(gz) != tt.Len(hl) {
				t.Errorf("head %d, tail %d: Len = %d, want %d", hl, len(tl), tt.Len(hl), len(gz))
			}
			zr, err := gzip.NewReader(bytes.NewReader(gz))
			if err != nil {
				t.Fatal(err)
			}
			zr.Multistream(false)
			got, err := io.ReadAll(zr)
			if err != nil {
				t.Fatalf("head %d, tail %d: %v", hl, len(tl), err)
			}
			if want := append(bytes.Clone(head), tl...); !bytes.Equal(got, want) {
				t.Fatalf("head %d, tail %d: data differs", hl, len(tl))
			}
			if tt.Size() != int64(len(tl)) {
				t.Errorf("Size = %d", tt.Size())
			}
		}
	}
}

// TestAppendCost: splicing a head onto a large Tail does not compress
// the Tail again (a copy of its bytes, 2 allocations at most).
func TestAppendCost(t *testing.T) {
	data := make([]byte, 2<<20)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range data {
		data[i] = "abcdefgh<>/ \n"[r.IntN(13)]
	}
	tt, err := NewTail(data, 6)
	if err != nil {
		t.Fatal(err)
	}
	head := []byte("<ul><li>note</li></ul>")
	dst := make([]byte, 0, tt.Len(len(head)))
	if n := testing.AllocsPerRun(10, func() { tt.Append(dst[:0], head) }); n != 0 {
		t.Errorf("Append into room enough: %v allocations", n)
	}
}

func BenchmarkAppend(b *testing.B) {
	data := bytes.Repeat([]byte("<tr><td>row</td><td>https://example.com/p/1</td></tr>\n"), 36000)
	tt, err := NewTail(data, 6)
	if err != nil {
		b.Fatal(err)
	}
	head := bytes.Repeat([]byte("h"), 4000)
	dst := make([]byte, 0, tt.Len(len(head)))
	b.ReportAllocs()
	b.SetBytes(int64(tt.Len(len(head))))
	for b.Loop() {
		dst = tt.Append(dst[:0], head)
	}
}
