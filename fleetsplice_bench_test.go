package sitemap

import (
	"strconv"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/record"
	"github.com/freshmap/sitemap/internal/testkit"
)

// BenchmarkFleetSplice rebuilds a 50,000-URL page of a SegmentSource (20
// segments of 2,500 keys) after one URL changed and was told with its key
// (InvalidateKeys), on a replica whose previous copy is:
//
//   - here: one it built (its table in memory; BenchmarkSplice's one);
//   - stored: one it took from the Store, with its table: the record is
//     decoded (the copy's bytes copied, the table read and checked
//     against them) and each segment decompressed before the splice;
//   - stored-v2: one it took from the Store without a table (an older
//     replica's record): the page is read and compressed whole.
//
// record-bytes is the stored record's length; rows/op the Source's URLs
// read a build.
func BenchmarkFleetSplice(b *testing.B) {
	const n = 50_000
	for _, mode := range []string{"here", "stored", "stored-v2"} {
		b.Run("urls="+strconv.Itoa(n)+"/"+mode, func(b *testing.B) {
			_, _, doc := benchDoc(b, n)
			src := &benchSegSource{urls: benchURLs(n)}
			sm, old, pb := builtSegPage(b, src)
			k := pageKey(0, 1)
			const key = 12_345
			_, seg := src.SegmentOf(key)
			src.read = 0
			round, recBytes := 0, 0
			b.ReportAllocs()
			b.SetBytes(int64(len(doc)))
			cpu := testkit.StartCPU(b)
			for b.Loop() {
				round++
				src.urls[key].LastMod = src.urls[key].LastMod.Add(time.Second)
				prev := old
				if mode != "here" {
					if mode == "stored-v2" {
						prev = old.renewed(old.built)
						prev.segs = nil
					}
					rec := encodeRecord(k, prev, sm.docs.clocks.state)
					recBytes = len(rec)
					var err error
					if prev, _, err = decodeRecord(k, rec); err != nil {
						b.Fatal(err)
					}
				}
				pb.marks.Mark(k, []int{seg})
				e, _, err := pb.build(b.Context(), job{key: k, old: prev, current: true, prev: prev})
				if err != nil {
					b.Fatal(err)
				}
				old = e
			}
			cpu.Report()
			b.ReportMetric(float64(src.read)/float64(round), "rows/op")
			b.ReportMetric(float64(recBytes), "record-bytes")
			st := sm.Stats()
			if mode == "stored-v2" {
				if st.Splices != 0 || st.SpliceFallbacks < int64(round) {
					b.Fatalf("%d splices, %d fallbacks in %d builds", st.Splices, st.SpliceFallbacks, round)
				}
			} else if st.Splices < int64(round) || st.SpliceFallbacks > 0 {
				b.Fatalf("%d splices, %d fallbacks in %d builds", st.Splices, st.SpliceFallbacks, round)
			}
		})
	}
}

// BenchmarkRecordTable decodes the stored record of a 50,000-URL page of
// 20 segments, with its segment table and without (what a replica pays
// to take a copy from the Store, once a copy), and checks the table
// (each segment decompressed alone: what it pays once before it splices).
func BenchmarkRecordTable(b *testing.B) {
	const n = 50_000
	src := &benchSegSource{urls: benchURLs(n)}
	sm, e, _ := builtSegPage(b, src)
	k := pageKey(0, 1)
	with := encodeRecord(k, e, sm.docs.clocks.state)
	bare := e.renewed(e.built)
	bare.segs = nil
	without := encodeRecord(k, bare, sm.docs.clocks.state)
	d, err := record.Decode(with)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("record %d bytes with its table of %d segments (%d bytes), %d without; gzip %d bytes",
		len(with), len(e.segs.Segs), len(d.Table), len(without), len(e.gz))
	for name, rec := range map[string][]byte{"with": with, "without": without} {
		b.Run("decode/"+name, func(b *testing.B) {
			b.ReportAllocs()
			b.ReportMetric(float64(len(rec)), "record-bytes")
			cpu := testkit.StartCPU(b)
			for b.Loop() {
				if _, _, err := decodeRecord(k, rec); err != nil {
					b.Fatal(err)
				}
			}
			cpu.Report()
		})
	}
	b.Run("check", func(b *testing.B) {
		got, _, err := decodeRecord(k, with)
		if err != nil || got.segs == nil {
			b.Fatal("no table", err)
		}
		b.ReportAllocs()
		b.SetBytes(got.size)
		cpu := testkit.StartCPU(b)
		for b.Loop() {
			if err := got.segs.Check(nil); err != nil {
				b.Fatal(err)
			}
		}
		cpu.Report()
	})
}
