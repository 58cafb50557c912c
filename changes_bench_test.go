package sitemap

import (
	"bytes"
	"context"
	"io"
	"iter"
	"strconv"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// BenchmarkRebuild rebuilds a cached 50,000-URL page in place, as a
// refresh or an Invalidate does, without and with change tracking
// (Config.OnChange): with it, each URL is hashed and compared with the
// previous copy's hashes, kept with it (track=true) or, for a copy taken
// from the Store, read back from its gzip bytes (track=stored). The
// Source changes one URL in a hundred between builds, so there are
// changes to derive.
func BenchmarkRebuild(b *testing.B) {
	for _, n := range benchSizes {
		for _, mode := range []string{"false", "true", "stored"} {
			track := mode != "false"
			b.Run("urls="+strconv.Itoa(n)+"/track="+mode, func(b *testing.B) {
				_, _, doc := benchDoc(b, n)
				urls := [2][]URL{benchURLs(n), benchURLs(n)}
				for i := 0; i < n; i += 100 {
					urls[1][i].LastMod = urls[1][i].LastMod.AddDate(0, 0, 1)
				}
				var round int
				src := FromSlice(nil, 0)
				cfg := Config{BaseURL: benchBase}
				changes := 0 // derived by the builds (OnChange is called by documents, not here)
				if track {
					cfg.OnChange = func(Change) {}
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
					prev := old
					if mode == "stored" { // the previous copy as the Store gives it: no hashes
						prev = old.renewed(old.built)
						prev.sums = nil
					}
					e, fx, err := sm.docs.builders[docPage].build(b.Context(), job{key: k, old: old, current: true, prev: prev})
					if err != nil {
						b.Fatal(err)
					}
					if fx.change != nil {
						changes += len(fx.change.Changed)
					}
					old = e
				}
			})
		}
	}
}

// BenchmarkSumsOf reads the URL hashes of a 50,000-URL page back from its
// gzip bytes, as a rebuild does when its previous copy came from the
// Store, beside gunzip alone of the same bytes (its floor) and the page's
// rebuild with tracking (BenchmarkRebuild, what it adds to).
func BenchmarkSumsOf(b *testing.B) {
	_, _, doc := benchDoc(b, 50_000)
	gz, _, err := compress(6, func(w io.Writer) error { _, err := w.Write(doc); return err })
	if err != nil {
		b.Fatal(err)
	}
	b.Run("sumsOf", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(doc)))
		for b.Loop() {
			if s, err := sumsOf(gz); err != nil || len(s) != 50_000 {
				b.Fatal(len(s), err)
			}
		}
	})
	b.Run("gunzip", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(doc)))
		for b.Loop() {
			zr, err := gzip.NewReader(bytes.NewReader(gz))
			if err != nil {
				b.Fatal(err)
			}
			if _, err := io.Copy(io.Discard, zr); err != nil {
				b.Fatal(err)
			}
		}
	})
}
