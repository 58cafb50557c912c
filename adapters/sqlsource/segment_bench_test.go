package sqlsource_test

import (
	"context"
	"iter"
	"testing"

	"github.com/freshmap/sitemap"
)

// BenchmarkSQLSegment reads the middle page of a big table three ways,
// one run beside the other: whole (URLs, the reference), one segment of
// it (SegmentURLs: what a change costs the database with segments), and
// every segment in turn (what a cold build by segments costs over a
// whole read).
func BenchmarkSQLSegment(b *testing.B) {
	tables := newBenchTables(b, benchRows(b))
	for _, name := range []string{"sqlite", "postgres"} {
		b.Run(name, func(b *testing.B) {
			bt := tables.get(b, name)
			src := sitemap.SegmentSource(bt.src)
			page := (bt.pages + 1) / 2
			ctx := context.Background()
			for _, read := range []struct {
				name string
				seqs func() []iter.Seq2[sitemap.URL, error]
			}{
				{"page", func() []iter.Seq2[sitemap.URL, error] { return []iter.Seq2[sitemap.URL, error]{src.URLs(ctx, page)} }},
				{"one_segment", func() []iter.Seq2[sitemap.URL, error] {
					return []iter.Seq2[sitemap.URL, error]{src.SegmentURLs(ctx, page, src.Segments()/2)}
				}},
				{"every_segment", func() []iter.Seq2[sitemap.URL, error] {
					var s []iter.Seq2[sitemap.URL, error]
					for seg := range src.Segments() {
						s = append(s, src.SegmentURLs(ctx, page, seg))
					}
					return s
				}},
			} {
				b.Run(read.name, func(b *testing.B) {
					count := func() (urls int, size int64) {
						for _, seq := range read.seqs() {
							for u, err := range seq {
								if err != nil {
									b.Fatal(err)
								}
								urls++
								size += int64(len(u.Loc))
							}
						}
						return urls, size
					}
					urls, size := count()
					if urls == 0 {
						b.Fatalf("page %d is empty", page)
					}
					b.SetBytes(size) // bytes of locs streamed
					b.ReportAllocs()
					for b.Loop() {
						if n, _ := count(); n != urls {
							b.Fatalf("%d URLs, want %d", n, urls)
						}
					}
					b.ReportMetric(float64(urls), "urls/op")
				})
			}
		})
	}
}
