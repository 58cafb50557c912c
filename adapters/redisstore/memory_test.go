package redisstore_test

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/redisstore"
	"github.com/freshmap/sitemap/internal/testkit"
)

// envMemory turns on TestRedisMemoryAtScale: SITEMAP_TEST_REDIS_MEMORY=N
// builds a site of N URLs (such as 10000000) into Redis and reports what
// Redis holds for it.
const envMemory = "SITEMAP_TEST_REDIS_MEMORY"

// TestRedisMemoryAtScale builds every file of a site of N URLs in pages of
// 50,000 through the Store, without and with change tracking (OnChange,
// which keeps each URL's hashes with its page), and reports Redis's
// MEMORY USAGE of its keys, by kind, per file and per URL, and that
// projected to 1,000,000,000 URLs. Figures in BENCHMARKS.md.
func TestRedisMemoryAtScale(t *testing.T) {
	n, err := strconv.ParseInt(os.Getenv(envMemory), 10, 64)
	if err != nil || n <= 0 {
		t.Skip(envMemory + " is not set to a number of URLs")
	}
	c, prefix := redisClient(t)
	lastmod := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	src := sitemap.FromRange(func(context.Context) (int64, error) { return n, nil },
		func(_ context.Context, lo, hi int64) iter.Seq2[sitemap.URL, error] {
			return func(yield func(sitemap.URL, error) bool) {
				for i := lo; i < hi; i++ {
					if !yield(sitemap.URL{Loc: "https://shop.example.com/products/blue-widget-" + strconv.FormatInt(i, 10), LastMod: lastmod}, nil) {
						return
					}
				}
			}
		}, 0)
	for _, tracking := range []bool{false, true} {
		t.Run(fmt.Sprint("tracking=", tracking), func(t *testing.T) {
			p := prefix + fmt.Sprint(tracking) + ":"
			cfg := sitemap.Config{BaseURL: "https://shop.example.com", TTL: time.Hour, CacheBytes: 1 << 20,
				Store: newStore(t, c, redisstore.Options{Prefix: p})}
			if tracking {
				cfg.OnChange = func(sitemap.Change) {}
			}
			sm, err := sitemap.New(cfg, sitemap.Section{Source: src})
			if err != nil {
				t.Fatal(err)
			}
			defer sm.Close()
			files := int64(0)
			for page := int64(1); (page-1)*sitemap.MaxURLs < n; page++ {
				if w := testkit.Fetch(sm, "/sitemap-"+strconv.FormatInt(page, 10)+".xml.gz"); w.Code != http.StatusOK {
					t.Fatalf("page %d: %d", page, w.Code)
				}
				files++
			}
			if w := testkit.Fetch(sm, "/sitemap_index.xml"); w.Code != http.StatusOK {
				t.Fatalf("index: %d", w.Code)
			}
			kinds := map[string]int64{}
			counts := map[string]int64{}
			lens := map[string]int64{} // the values' own lengths (MEMORY USAGE rounds to the allocator's size classes)
			iter := c.Scan(t.Context(), 0, p+"*", 1000).Iterator()
			for iter.Next(t.Context()) {
				k := iter.Val()
				kind := "site"
				switch {
				case strings.Contains(k, "sitemap_index"):
					kind = "index"
				case strings.HasSuffix(k, "}:copy"):
					kind = "page copy"
				case strings.HasSuffix(k, "}:clock"):
					kind = "page clock"
				}
				kinds[kind] += c.MemoryUsage(t.Context(), k).Val()
				lens[kind] += c.StrLen(t.Context(), k).Val()
				counts[kind]++
			}
			var total int64
			for kind, b := range kinds {
				total += b
				t.Logf("%-10s %6d keys %12d bytes (values %d bytes)", kind, counts[kind], b, lens[kind])
			}
			t.Logf("%d URLs in %d files, tracking %v: %d bytes in Redis, %.0f a file, %.2f a URL; at 1,000,000,000 URLs: %.1f GB",
				n, files, tracking, total, float64(total)/float64(files), float64(total)/float64(n), float64(total)/float64(n)*1e9/1e9)
		})
	}
}
