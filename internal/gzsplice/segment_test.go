package gzsplice

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/freshmap/sitemap/internal/testkit"
)

// page returns n lines shaped like a sitemap's <url> elements.
func page(r *rand.Rand, n int) []byte {
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "<url><loc>https://shop.example.com/p/%d-%x</loc><lastmod>2026-11-%02dT10:00:00Z</lastmod></url>\n", r.IntN(1<<30), r.Uint32(), 1+r.IntN(28))
	}
	return b.Bytes()
}

func segmentsOf(t testing.TB, runs [][]byte, level int) []*Segment {
	t.Helper()
	segs := make([]*Segment, len(runs))
	for i, r := range runs {
		s, err := NewSegment(r, level)
		if err != nil {
			t.Fatal(err)
		}
		segs[i] = s
	}
	return segs
}

// TestJoin: runs of every size, empty ones too, joined at every level,
// read back as their concatenation; JoinLen is the length.
func TestJoin(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	big := page(r, 3000)
	for _, level := range []int{-2, 0, 1, 5, 9} {
		for _, cuts := range [][]int{{}, {0}, {1}, {0, 0, 0}, {len(big)}, {1000, 0, 70000, 5}, {100, 100, 100, 100}} {
			var runs [][]byte
			rest := big
			for _, c := range cuts {
				c = min(c, len(rest))
				runs, rest = append(runs, rest[:c]), rest[c:]
			}
			segs := segmentsOf(t, runs, level)
			gz := Join([]byte("keep"), segs)
			if string(gz[:4]) != "keep" {
				t.Fatal("dst not kept")
			}
			gz = gz[4:]
			if len(gz) != JoinLen(segs) {
				t.Errorf("level %d cuts %v: JoinLen %d, want %d", level, cuts, JoinLen(segs), len(gz))
			}
			if got, want := testkit.GunzipMember(t, gz), bytes.Join(runs, nil); !bytes.Equal(got, want) {
				t.Fatalf("level %d cuts %v: data differs", level, cuts)
			}
		}
	}
}

// TestSpliceProperty: a file kept as segments goes through random
// inserts, updates and deletes of whole runs and of lines inside runs
// (at their first and last lines too). After each, the file joined from
// the kept segments with only the touched ones compressed again has the
// same bytes as the file whose every segment was compressed afresh, and
// reads back as the edited data; SumOf moves exactly when the data does.
func TestSpliceProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const level = 5
	var runs [][][]byte // runs of lines
	for range 6 {
		var lines [][]byte
		for range 1 + r.IntN(40) {
			lines = append(lines, page(r, 1))
		}
		runs = append(runs, lines)
	}
	flat := func(lines [][]byte) []byte { return bytes.Join(lines, nil) }
	kept := make([]*Segment, len(runs))
	for i := range runs {
		kept[i], _ = NewSegment(flat(runs[i]), level)
	}
	for step := range 400 {
		before := SumOf(kept)
		i := r.IntN(len(runs))
		changed := true
		switch op := r.IntN(6); {
		case op == 0 && len(runs) < 12: // a new run
			runs = append(runs[:i], append([][][]byte{{page(r, 1)}}, runs[i:]...)...)
			kept = append(kept[:i], append([]*Segment{nil}, kept[i:]...)...)
		case op == 1 && len(runs) > 1: // a run removed
			runs, kept = append(runs[:i], runs[i+1:]...), append(kept[:i], kept[i+1:]...)
			i = -1
		case op == 2: // a line inserted at the start, the end or inside
			at := []int{0, len(runs[i]), r.IntN(len(runs[i]) + 1)}[r.IntN(3)]
			runs[i] = append(runs[i][:at], append([][]byte{page(r, 1)}, runs[i][at:]...)...)
		case op == 3 && len(runs[i]) > 1: // a line deleted
			at := []int{0, len(runs[i]) - 1, r.IntN(len(runs[i]))}[r.IntN(3)]
			runs[i] = append(runs[i][:at], runs[i][at+1:]...)
		case op == 4: // a line updated
			runs[i][r.IntN(len(runs[i]))] = page(r, 1)
		default: // a run compressed again with nothing changed
			changed = false
		}
		if i >= 0 {
			kept[i], _ = NewSegment(flat(runs[i]), level) // only the touched run
		}
		var all [][]byte
		for _, lines := range runs {
			all = append(all, flat(lines))
		}
		fresh := segmentsOf(t, all, level)
		inc, full := Join(nil, kept), Join(nil, fresh)
		if !bytes.Equal(inc, full) {
			t.Fatalf("step %d: the spliced file differs from the full build", step)
		}
		if !bytes.Equal(testkit.GunzipMember(t, inc), bytes.Join(all, nil)) {
			t.Fatalf("step %d: the spliced file reads back wrong", step)
		}
		if after := SumOf(kept); (after != before) != changed && changed {
			t.Fatalf("step %d: SumOf did not move with the data", step)
		} else if !changed && after != before {
			t.Fatalf("step %d: SumOf moved with no change", step)
		}
	}
}

// TestSegmentErrors: a level flate does not have is an error.
func TestSegmentErrors(t *testing.T) {
	for _, level := range []int{-3, 10} {
		if _, err := NewSegment([]byte("x"), level); err == nil {
			t.Errorf("level %d taken", level)
		}
	}
}

// BenchmarkSegments compresses a 50,000-line page as one stream (the
// reference: what a full build's gzip costs) and as segments of 2,500
// lines; then a splice: one segment compressed again and the page joined.
// The sizes are reported as the segmented page's bytes over the single
// stream's.
func BenchmarkSegments(b *testing.B) {
	r := rand.New(rand.NewPCG(9, 10))
	const lines, per = 50000, 2500
	data := page(r, lines)
	var runs [][]byte
	for rest := data; len(rest) > 0; {
		cut := 0
		for n := 0; n < per && cut < len(rest); n++ {
			cut += bytes.IndexByte(rest[cut:], '\n') + 1
		}
		runs, rest = append(runs, rest[:cut]), rest[cut:]
	}
	one, _ := NewTail(data, 5)
	segs := segmentsOf(b, runs, 5)
	b.Run("one-stream", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			NewTail(data, 5)
		}
		b.ReportMetric(float64(one.Len(0)), "gz-bytes")
	})
	b.Run("segments", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			Join(nil, segmentsOf(b, runs, 5))
		}
		b.ReportMetric(float64(JoinLen(segs)), "gz-bytes")
		b.ReportMetric(float64(JoinLen(segs))/float64(one.Len(0)), "size-ratio")
	})
	b.Run("splice-one", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		kept := append([]*Segment(nil), segs...)
		buf := make([]byte, 0, JoinLen(segs)+1024)
		for b.Loop() {
			kept[7], _ = NewSegment(runs[7], 5)
			buf = Join(buf[:0], kept)
		}
	})
}

// TestJoinSharedMoves: JoinShared moves Segments just compressed into the
// file and gives their buffers back, and copies Segments kept from before,
// leaving them as they were: after more Segments are compressed into the
// buffers given back, every Segment still reads back its own run, the
// file's and the previous file's.
func TestJoinSharedMoves(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	runs := [][]byte{page(r, 500), page(r, 20), {}, page(r, 900)}
	_, prev := JoinShared(segmentsOf(t, runs, 6))
	newRuns := [][]byte{page(r, 300), page(r, 40)}
	fresh := segmentsOf(t, newRuns, 6)
	mixed := []*Segment{prev[0], fresh[0], prev[2], fresh[1]}
	gz, shared := JoinShared(mixed)
	if shared[1] != fresh[0] || shared[3] != fresh[1] || shared[0] == prev[0] || shared[2] == prev[2] {
		t.Fatal("fresh Segments not moved, or kept ones not copied")
	}
	for _, s := range mixed {
		if s.own != nil {
			t.Fatal("a Segment still holds its buffer after JoinShared")
		}
	}
	segmentsOf(t, [][]byte{page(r, 800), page(r, 800), page(r, 800)}, 6) // reuse the buffers given back
	want := [][]byte{runs[0], newRuns[0], runs[2], newRuns[1]}
	for i, s := range shared {
		if got := testkit.GunzipMember(t, s.Member()); !bytes.Equal(got, want[i]) {
			t.Fatalf("segment %d reads back other bytes", i)
		}
	}
	for i, s := range prev {
		if got := testkit.GunzipMember(t, s.Member()); !bytes.Equal(got, runs[i]) {
			t.Fatalf("the previous file's segment %d changed", i)
		}
	}
	if !bytes.Equal(testkit.GunzipMember(t, gz), bytes.Join([][]byte{runs[0], want[1], runs[2], want[3]}, nil)) {
		t.Fatal("the file reads back other bytes")
	}
}
