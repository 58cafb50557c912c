package sqlsource_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/internal/testkit"
)

// BenchmarkWatchLag measures, over b.N commits (run it with
// -benchtime=1000x), the lag from a commit to a significant column until
// the Sitemap serves the page's new bytes (serve-p50-ms, serve-p99-ms) and
// until a local IndexNow endpoint receives the new URL (push-p50-ms,
// push-p99-ms), for each way a change reaches the Sitemap:
//
//   - postgres/notify: Watch's listener (pgx), WatchInterval 100 ms;
//   - postgres/poll, sqlite/poll, mysql/poll: Watch's poll of the
//     summary's counters every 100 ms (PostgreSQL through a driver that
//     is not pgx's, so that Watch polls);
//   - sqlite/ttl-1s: no Watch, the baseline: a TTL of one second, the page
//     rebuilt when a request finds it expired.
//
// The catalogue is 1,000 rows in 100 pages of 10. With Watch, commit i
// renames one row of page i mod 100 (so a page changes every 100 commits)
// and is made 100 to 200 ms after the one before was served and posted,
// at a random phase of the poll's ticks and out of the 100 ms in which
// the watcher coalesces. The baseline renames a row of page 1 each time,
// 0.1 to 1.1 s after the one before, and requests page 1 every millisecond
// in between, as a busy site's crawlers and CDN would, so that it is
// rebuilt once per TTL and the commit comes at a random phase of that.
// The page is requested in process every millisecond until its bytes
// change; ns/op is the whole cycle and means nothing.
func BenchmarkWatchLag(b *testing.B) {
	const every = 100 * time.Millisecond
	for _, bc := range []struct {
		name, db string
		watch    bool
		ttl      time.Duration
	}{
		{"postgres/poll", "postgres", true, freshTTL},
		{"sqlite/poll", "sqlite", true, freshTTL},
		{"mysql/poll", "mysql", true, freshTTL},
		{"sqlite/ttl-1s", "sqlite", false, time.Second},
	} {
		b.Run(bc.name, func(b *testing.B) {
			d := openDB(b, bc.db)
			c := d.createCatalogue(b, products(ids(0, 999)...))
			db := d.db
			cfg := c.config(10)
			cfg.Summary, cfg.Significant, cfg.WatchInterval = true, []string{"slug", "published", "noindex"}, every
			src := newSource(b, db, cfg)
			installSummary(b, src)
			ep := newIndexNowEndpoint(b)
			smCfg := sitemap.Config{BaseURL: "https://shop.example.com", TTL: bc.ttl}
			indexNowTo(ep)(&smCfg)
			sm, err := sitemap.New(smCfg, sitemap.Section{Name: "products", Source: src})
			if err != nil {
				b.Fatal(err)
			}
			defer sm.Close()
			for n := int64(1); n <= 100; n++ {
				testkit.Fetch(sm, pagePath(n))
			}
			if bc.watch {
				w, err := src.Watch(context.Background(), sm, "products")
				if err != nil {
					b.Fatal(err)
				}
				defer w.Close()
			}
			time.Sleep(2 * time.Second) // past the clocks the first builds gave
			serve, push := make([]time.Duration, 0, b.N), make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := range b.N {
				id := int64(i%100)*10 + 5
				if !bc.watch {
					id = 5
				}
				slug := fmt.Sprintf("v%d-%d", i, id)
				committed := time.Now()
				d.exec(b, "UPDATE "+c.products+" SET slug = ? WHERE id = ?", slug, id)
				deadline := committed.Add(30 * time.Second)
				for {
					w := testkit.Fetch(sm, pagePath(id/10+1))
					if w.Code == http.StatusOK && bytes.Contains(testkit.Gunzip(b, w.Body.Bytes()), []byte(slug)) {
						break
					}
					if time.Now().After(deadline) {
						b.Fatalf("change %d not served after 30 s", i)
					}
					time.Sleep(time.Millisecond)
				}
				serve = append(serve, time.Since(committed))
				for {
					if at, ok := ep.firstAt(base + slug); ok {
						push = append(push, at.Sub(committed))
						break
					}
					if time.Now().After(deadline) {
						b.Fatalf("change %d not posted to IndexNow after 30 s", i)
					}
					time.Sleep(time.Millisecond)
				}
				if bc.watch {
					time.Sleep(every + rand.N(every))
					continue
				}
				// The page is requested all the while, as on a busy
				// site, so that it is rebuilt once per TTL, and the next
				// commit comes at a random phase of that.
				for idle := time.Now().Add(every + rand.N(bc.ttl)); time.Now().Before(idle); {
					testkit.Fetch(sm, pagePath(1))
					time.Sleep(time.Millisecond)
				}
			}
			b.StopTimer()
			reportPercentiles(b, "serve", serve)
			reportPercentiles(b, "push", push)
		})
	}
}

// reportPercentiles reports the median and 99th percentile of ds, in
// milliseconds, as name-p50-ms and name-p99-ms.
func reportPercentiles(b *testing.B, name string, ds []time.Duration) {
	slices.Sort(ds)
	at := func(q float64) float64 {
		return float64(ds[min(len(ds)-1, int(q*float64(len(ds))))]) / float64(time.Millisecond)
	}
	b.ReportMetric(at(0.5), name+"-p50-ms")
	b.ReportMetric(at(0.99), name+"-p99-ms")
}
