package sitemap

import (
	"context"
	"iter"
	"strconv"
	"testing"
)

// BenchmarkRebuild rebuilds a cached 50,000-URL page in place, as a
// refresh or an Invalidate does, without and with change tracking
// (Config.OnChange): with it, each URL is hashed and compared with the
// previous copy's hashes. The Source changes one URL in a hundred between
// builds, so there are changes to derive.
func BenchmarkRebuild(b *testing.B) {
	for _, n := range benchSizes {
		for _, track := range []bool{false, true} {
			b.Run("urls="+strconv.Itoa(n)+"/track="+strconv.FormatBool(track), func(b *testing.B) {
				_, _, doc := benchDoc(b, n)
				urls := [2][]URL{benchURLs(n), benchURLs(n)}
				for i := 0; i < n; i += 100 {
					urls[1][i].LastMod = urls[1][i].LastMod.AddDate(0, 0, 1)
				}
				var round int
				src := FromSlice(nil, 0)
				cfg := Config{BaseURL: benchBase}
				if track {
					changes := 0
					cfg.OnChange = func(c Change) { changes += len(c.Changed) }
					defer func() {
						if b.N > 1 && changes == 0 {
							b.Error("no change was derived")
						}
					}()
				}
				sm, err := New(cfg, Section{Source: SourceFunc{PagesFunc: src.Pages, URLsFunc: func(ctx context.Context, page int64) iter.Seq2[URL, error] {
					return FromSlice(urls[round%2], 0).URLs(ctx, page)
				}}})
				if err != nil {
					b.Fatal(err)
				}
				defer sm.Close()
				k := pageKey(0, 1)
				old, err := sm.docs.load(k, nil)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.SetBytes(int64(len(doc)))
				for b.Loop() {
					round++
					e, _, err := sm.docs.builders[docPage].build(b.Context(), job{key: k, old: old, current: true, prev: old})
					if err != nil {
						b.Fatal(err)
					}
					old = e
				}
			})
		}
	}
}
