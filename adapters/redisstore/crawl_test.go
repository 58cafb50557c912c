package redisstore_test

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/redisstore"
	"github.com/freshmap/sitemap/internal/testkit"
	"github.com/redis/go-redis/v9"
)

// TestFleetCrawlInvariant: three replicas on a real Redis (one server, and
// the local cluster: topologies), the catalogue
// changing every 100 ms, crawlers re-checking every 304 by a GET
// (testkit.Crawl), while Redis is killed, slowed to 500 ms a reply,
// flushed, restarted empty, given a garbage or a forged generation, or
// while one replica's clock is an hour ahead: no lie, and within 2 s of
// the end every replica serves the last revision under one
// Last-Modified, which the index lists. Each fault lasts half the run:
// 1.5 s, or 15 s with SITEMAP_CRAWL_RUN=30s.
func TestFleetCrawlInvariant(t *testing.T) {
	run := testkit.CrawlRun(t)
	type fault struct {
		start, end func(p *proxies, admin redis.UniversalClient, prefix string)
		ahead      bool // replica 2's clock is an hour ahead
	}
	ctx := context.Background()
	gen := func(prefix string) string { return prefix + "{https://example.com/}:gen" }
	flush := func(_ *proxies, admin redis.UniversalClient, prefix string) { deletePrefix(ctx, admin, prefix) }
	faults := map[string]fault{
		"none":    {},
		"killed":  {start: func(p *proxies, _ redis.UniversalClient, _ string) { p.Cut() }, end: func(p *proxies, _ redis.UniversalClient, _ string) { p.Restore() }},
		"slowed":  {start: func(p *proxies, _ redis.UniversalClient, _ string) { p.Slow(500 * time.Millisecond) }, end: func(p *proxies, _ redis.UniversalClient, _ string) { p.Slow(0) }},
		"flushed": {start: flush, end: flush},
		"restarted empty": {
			start: func(p *proxies, _ redis.UniversalClient, _ string) { p.Cut() },
			end: func(p *proxies, admin redis.UniversalClient, prefix string) {
				flush(p, admin, prefix)
				p.Restore()
			},
		},
		"garbage generation": {
			start: func(_ *proxies, admin redis.UniversalClient, prefix string) {
				admin.Set(ctx, gen(prefix), "garbage", 0)
			},
			end: func(_ *proxies, admin redis.UniversalClient, prefix string) { admin.Del(ctx, gen(prefix)) },
		},
		"forged generation": {
			start: func(_ *proxies, admin redis.UniversalClient, prefix string) {
				admin.Set(ctx, gen(prefix), strconv.FormatInt(1<<50, 10), 0)
			},
			end: func(*proxies, redis.UniversalClient, string) {},
		},
		"clock an hour ahead": {ahead: true},
	}
	for name, f := range faults {
		for _, top := range topologies {
			t.Run(top.name+"/"+name, func(t *testing.T) {
				t.Parallel()
				admin, prefix := top.admin(t)
				proxy := top.proxied(t)
				src := newCatalogue(150) // 3 pages
				var sms []*sitemap.Sitemap
				var replicas []http.Handler
				for i := range 3 {
					cfg := sitemap.Config{BaseURL: "https://example.com", TTL: testkit.CrawlTTL(t),
						Store: newStore(t, proxy.client(t), redisstore.Options{Prefix: prefix, Timeout: 250 * time.Millisecond, LockTTL: time.Second})}
					if f.ahead && i == 2 {
						cfg.Now = func() time.Time { return time.Now().Add(time.Hour) }
					}
					sm, err := sitemap.New(cfg, sitemap.Section{Source: src})
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() { sm.Close() })
					sms, replicas = append(sms, sm), append(replicas, sm)
				}
				ctx, cancel := context.WithTimeout(t.Context(), run)
				defer cancel()
				var wg sync.WaitGroup
				if f.start != nil {
					wg.Go(func() {
						time.Sleep(run / 4)
						f.start(proxy, admin, prefix)
						time.Sleep(run / 2)
						f.end(proxy, admin, prefix)
					})
				}
				wg.Go(func() { // the catalogue changes
					for ctx.Err() == nil {
						src.rev.Add(1)
						sms[rand.N(3)].Invalidate("")
						time.Sleep(100 * time.Millisecond)
					}
				})
				paths := files(150)[1:]
				res := testkit.Crawl(ctx, t, 2, replicas, paths, testkit.Rev)
				wg.Wait()
				res.Report(t)
				testkit.Converged(t, replicas, paths, func(string) int64 { return src.rev.Load() })
			})
		}
	}
}
