// Command bigtree serves a synthetic sitemap tree of any size with this
// library, for measuring `sitemap check` on trees larger than the demo's
// (BENCHMARKS.md, "The checker in bounded memory"):
//
//	go run ./internal/cmd/bigtree -addr 127.0.0.1:18090 -urls 10000000
//
// Each product has one page per language (en, de, fr, es), and each page
// lists the four as hreflang alternates, itself among them, so that every
// link is returned and the rules across files have 4 links a URL to join.
// The URLs come from sitemap.FromRange by position, 50,000 a file, with a
// lastmod each; robots.txt names the index.
package main

import (
	"context"
	"flag"
	"iter"
	"log"
	"net/http"
	"strconv"
	"time"

	"github.com/freshmap/sitemap"
)

// languages are the hreflang versions of every product, in the order of
// its items: item i is product i/4 in languages[i%4].
var languages = []struct{ tag, prefix string }{{"en", ""}, {"de", "/de"}, {"fr", "/fr"}, {"es", "/es"}}

func main() {
	addr := flag.String("addr", "127.0.0.1:18090", "address to serve on")
	urls := flag.Int64("urls", 10_000_000, "URLs in the tree (a multiple of 4: every product in 4 languages)")
	pageSize := flag.Int("pagesize", 50_000, "URLs a file")
	flag.Parse()
	base := "http://" + *addr
	sm, err := sitemap.New(sitemap.Config{BaseURL: base},
		sitemap.Section{Name: "products", Source: products(base, *urls, *pageSize), Extensions: sitemap.ExtAlternates})
	if err != nil {
		log.Fatal(err)
	}
	defer sm.Close()
	log.Printf("serving %d URLs on %s", *urls, base)
	log.Fatal(http.ListenAndServe(*addr, sm.Handler(http.NotFoundHandler())))
}

// products is the synthetic catalogue of n URLs.
func products(base string, n int64, pageSize int) sitemap.Source {
	modified := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	page := func(product int64, lang int) string {
		return base + languages[lang].prefix + "/p/" + strconv.FormatInt(product, 10)
	}
	count := func(context.Context) (int64, error) { return n, nil }
	read := func(_ context.Context, lo, hi int64) iter.Seq2[sitemap.URL, error] {
		return func(yield func(sitemap.URL, error) bool) {
			for i := lo; i < hi; i++ {
				product, lang := i/4, int(i%4)
				alts := make([]sitemap.Alternate, len(languages))
				for k, l := range languages {
					alts[k] = sitemap.Alternate{Hreflang: l.tag, Href: page(product, k)}
				}
				u := sitemap.URL{Loc: page(product, lang), LastMod: modified.Add(time.Duration(i%86400) * time.Second), Alternates: alts}
				if !yield(u, nil) {
					return
				}
			}
		}
	}
	return sitemap.FromRange(count, read, pageSize)
}
