package sitemap

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/freshmap/sitemap/internal/testkit"
)

// clusterBenchSizes are Source URLs a page, each written in 3 languages:
// the last is the most a file holds.
var clusterBenchSizes = []int{1_000, 10_000, 16_666}

// BenchmarkEncodeCluster writes a page of n Source URLs expanded by
// Section.Hreflang into 3n entries, each with 4 links; its reference,
// BenchmarkEncodeClusterGiven, writes the same bytes from 3n URLs whose
// alternates the Source gave, made before the timer starts.
func BenchmarkEncodeCluster(b *testing.B) {
	c, err := threeLanguages.cluster("b")
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range clusterBenchSizes {
		b.Run("urls="+strconv.Itoa(n), func(b *testing.B) {
			src := FromSlice(benchURLs(n), n)
			spec := pageSpec{base: benchBase, ext: ExtAlternates, cluster: c, maxURLs: n}
			benchEncode(b, src, spec, 3*n)
		})
	}
}

// BenchmarkEncodeClusterGiven is BenchmarkEncodeCluster's reference.
func BenchmarkEncodeClusterGiven(b *testing.B) {
	c, err := threeLanguages.cluster("b")
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range clusterBenchSizes {
		b.Run("urls="+strconv.Itoa(n), func(b *testing.B) {
			var given []URL
			for _, u := range benchURLs(n) {
				alts, err := c.Members(benchBase, u.Loc, nil)
				if err != nil {
					b.Fatal(err)
				}
				for i := range c.Size() {
					m := u
					m.Loc, m.Alternates = alts[i].Href, alts
					given = append(given, m)
				}
			}
			spec := pageSpec{base: benchBase, ext: ExtAlternates}
			benchEncode(b, FromSlice(given, 0), spec, 3*n)
		})
	}
}

// benchEncode runs encodePage over page 1 of src, which must write want
// entries, reporting its bytes.
func benchEncode(b *testing.B, src Source, spec pageSpec, want int) {
	var buf bytes.Buffer
	st, err := encodePage(context.Background(), src, 1, &buf, &spec)
	if err != nil || st.urls != want || strings.Count(buf.String(), "<xhtml:link") != 4*want {
		b.Fatalf("encodePage: %v, %d entries, want %d", err, st.urls, want)
	}
	b.ReportAllocs()
	b.SetBytes(int64(buf.Len()))
	cpu := testkit.StartCPU(b) // CPU time: less bent by a busy machine than wall time
	for b.Loop() {
		buf.Reset()
		if _, err := encodePage(context.Background(), src, 1, &buf, &spec); err != nil {
			b.Fatal(err)
		}
	}
	cpu.Report()
}
