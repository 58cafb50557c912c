package sqlsource_test

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/redisstore"
	"github.com/freshmap/sitemap/adapters/sqlsource"
	"github.com/freshmap/sitemap/internal/testenv"
	"github.com/freshmap/sitemap/internal/testkit"
	"github.com/redis/go-redis/v9"
)

// envRedis names the test Redis, as in adapters/redisstore's tests.
const envRedis = "SITEMAP_TEST_REDIS_ADDR"

// redisFleet returns n Sitemaps serving src as "products", each on a
// Redis client of its own, sharing one Store prefix (a fleet of
// replicas), each posting to IndexNow at ep if set. It stops t with
// testenv.Unavailable without the test Redis.
func redisFleet(t testing.TB, src sitemap.Source, n int, ep *indexNowEndpoint) []*sitemap.Sitemap {
	t.Helper()
	addr := os.Getenv(envRedis)
	if addr == "" {
		testenv.Unavailable(t, "Redis", envRedis+" is not set; set it to an address such as 127.0.0.1:6379")
	}
	prefix := "sqlsourcetest:" + tableName(t, "fleet") + ":"
	var sms []*sitemap.Sitemap
	for range n {
		c := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true})
		ctx, cancel := context.WithTimeout(context.Background(), pingTimeout)
		err := c.Ping(ctx).Err()
		cancel()
		if err != nil {
			c.Close()
			testenv.Unavailable(t, "Redis", "no answer at "+envRedis+"="+addr+": "+err.Error())
		}
		st, err := redisstore.New(c, redisstore.Options{Prefix: prefix, TTL: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		cfg := sitemap.Config{BaseURL: "https://shop.example.com", TTL: freshTTL, Store: st}
		if ep != nil {
			indexNowTo(ep)(&cfg)
		}
		sm, err := sitemap.New(cfg, sitemap.Section{Name: "products", Source: src})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			sm.Close()
			c.Close()
		})
		sms = append(sms, sm)
	}
	return sms
}

// TestWatchFleet serves a PostgreSQL catalogue from three replicas on one
// Redis, with one watcher, on the first, whose interval is an hour: a
// commit reaches the watcher through the change table, and every replica serves
// page 2's new bytes (built once for the fleet) while the other pages
// keep theirs; IndexNow hears of it once. The lag from commit to new bytes
// on each replica is logged (BenchmarkWatchLag measures it).
func TestWatchFleet(t *testing.T) {
	d := openDB(t, "postgres")
	c := d.createCatalogue(t, products(ids(1, 35)...))
	cfg := c.config(10)
	cfg.Summary, cfg.WatchInterval = true, 100*time.Millisecond
	src := newSource(t, d.db, cfg)
	installSummary(t, src)
	ep := newIndexNowEndpoint(t)
	sms := redisFleet(t, src, 3, ep)

	paths := []string{indexPath}
	for n := int64(1); n <= freshPages; n++ {
		paths = append(paths, pagePath(n))
	}
	for _, p := range paths {
		testkit.Fetch(sms[0], p)
	}
	// The first clocks are the new Store's floor, up to two seconds ahead:
	// served as Last-Modified once the Date reaches them.
	time.Sleep(2 * time.Second)
	before := map[string]string{} // path → ETag, as every replica serves it
	var clock time.Time           // the newest Last-Modified served
	for _, p := range paths {
		for i, sm := range sms {
			w := testkit.Fetch(sm, p)
			if w.Code != http.StatusOK {
				t.Fatalf("replica %d %s: %d", i, p, w.Code)
			}
			if e, ok := before[p]; ok && e != w.Header().Get("Etag") {
				t.Fatalf("replica %d %s: ETag %s; replica 0 serves %s", i, p, w.Header().Get("Etag"), e)
			}
			before[p] = w.Header().Get("Etag")
			if lm, err := http.ParseTime(w.Header().Get("Last-Modified")); err == nil && lm.After(clock) {
				clock = lm
			}
		}
	}
	w, err := src.Watch(context.Background(), sms[0], "products")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	builds := sms[0].Stats().Builds + sms[1].Stats().Builds + sms[2].Stats().Builds
	// Commit a second after the clocks the files were given, so that
	// theirs can move to the change without running ahead.
	time.Sleep(time.Until(clock.Add(time.Second)))

	committed := time.Now()
	d.exec(t, "UPDATE "+c.products+" SET slug = 'renamed-12' WHERE id = 12")
	for i, sm := range sms {
		poll(t, "replica to serve page 2's new bytes", func() bool {
			w := testkit.Fetch(sm, pagePath(2))
			return w.Code == http.StatusOK && bytes.Contains(testkit.Gunzip(t, w.Body.Bytes()), []byte("renamed-12"))
		})
		t.Logf("replica %d serves the new bytes %v after the commit", i, time.Since(committed).Round(time.Millisecond))
		poll(t, "replica to serve a new index", func() bool { return testkit.Fetch(sm, indexPath).Header().Get("Etag") != before[indexPath] })
	}
	for _, p := range paths {
		for i, sm := range sms {
			w := testkit.Fetch(sm, p)
			if changed := w.Header().Get("Etag") != before[p]; changed != (p == indexPath || p == pagePath(2)) {
				t.Errorf("replica %d %s: ETag %s → %s; want a change of page 2 and the index only", i, p, before[p], w.Header().Get("Etag"))
			}
		}
	}
	if got := sms[0].Stats().Builds + sms[1].Stats().Builds + sms[2].Stats().Builds - builds; got > 2 {
		t.Errorf("%d builds for the fleet after the commit; want 2, page 2 and the index, once", got)
	}
	want := []string{base + "renamed-12", productLoc(12)}
	poll(t, "IndexNow to receive product 12's URLs", func() bool { return len(ep.received()) >= len(want) })
	time.Sleep(100 * time.Millisecond) // time for a second post to come
	if got := ep.received(); len(got) != len(want) {
		t.Errorf("IndexNow received %q; want %q, once each for the fleet", got, want)
	}
	if err := w.Close(); err != nil {
		t.Error(err)
	}
}

var _ sqlsource.Invalidator = (*sitemap.Sitemap)(nil)
