package redisstore_test

import (
	"bytes"
	"context"
	"iter"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/redisstore"
	"github.com/freshmap/sitemap/internal/testkit"
	"github.com/redis/go-redis/v9"
)

// The fleet: several Sitemaps in one process, each with its own cache,
// sharing one Redis as replicas of a site do (sitemap.Config.Store).

// catalogue is a Source of n URLs in pages of 50 that counts its page
// reads. Its URLs carry rev, which a test may change at any time; block,
// if set, runs before a page is read.
type catalogue struct {
	n     int64
	rev   atomic.Int64
	reads atomic.Int64
	block func(ctx context.Context, page int64)
	sitemap.Source
}

func newCatalogue(n int64) *catalogue {
	c := &catalogue{n: n}
	c.Source = sitemap.FromRange(
		func(context.Context) (int64, error) { return c.n, nil },
		func(ctx context.Context, lo, hi int64) iter.Seq2[sitemap.URL, error] {
			return func(yield func(sitemap.URL, error) bool) {
				if lo%50 == 0 { // URLs also calls read to find the end: count the page once
					c.reads.Add(1)
					if c.block != nil {
						c.block(ctx, lo/50+1)
					}
				}
				rev := strconv.FormatInt(c.rev.Load(), 10)
				for i := lo; i < hi; i++ {
					if !yield(sitemap.URL{Loc: "https://example.com/p/" + strconv.FormatInt(i, 10) + "?rev=" + rev}, nil) {
						return
					}
				}
			}
		}, 50)
	return c
}

// files are the paths of a catalogue of n URLs: the index and its pages.
func files(n int64) []string {
	ps := []string{"/sitemap_index.xml"}
	for p := int64(1); (p-1)*50 < n; p++ {
		ps = append(ps, "/sitemap-"+strconv.FormatInt(p, 10)+".xml.gz")
	}
	return ps
}

// replica is one Sitemap of the fleet, on a Redis client of its own.
func replica(t *testing.T, c redis.UniversalClient, prefix string, src sitemap.Source, opts redisstore.Options) *sitemap.Sitemap {
	t.Helper()
	opts.Prefix = prefix
	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://example.com", Store: newStore(t, c, opts)}, sitemap.Section{Source: src})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sm.Close() })
	return sm
}

// fleet returns three replicas of src on top, each with a client of its
// own, and the key prefix they share.
// floorAhead is how far ahead of now the first clocks in a new Store may
// be (its floor, two seconds after its state began): a Last-Modified
// later than the Date is not sent, so a test that reads the first ones
// waits that long.
const floorAhead = 2 * time.Second

func fleet(t *testing.T, top topology, src sitemap.Source) ([]*sitemap.Sitemap, string) {
	t.Helper()
	c, prefix := top.admin(t)
	sms := []*sitemap.Sitemap{replica(t, c, prefix, src, redisstore.Options{})}
	for range 2 {
		sms = append(sms, replica(t, top.client(t), prefix, src, redisstore.Options{}))
	}
	return sms, prefix
}

func TestFleetCrawlReadsEachPageOnce(t *testing.T) {
	onTopologies(t, func(t *testing.T, top topology) {
		src := newCatalogue(500)
		sms, _ := fleet(t, top, src)
		for _, p := range files(500) {
			for i, sm := range sms {
				if w := testkit.Fetch(sm, p); w.Code != http.StatusOK {
					t.Fatalf("replica %d %s: %d", i, p, w.Code)
				}
			}
		}
		if got := src.reads.Load(); got != 10 {
			t.Errorf("page reads = %d for 10 pages crawled through three replicas, want 10", got)
		}
		for i, sm := range sms {
			if st := sm.Stats(); i > 0 && (st.Builds != 0 || st.StoreHits != 11) {
				t.Errorf("replica %d: %d builds, %d store hits; want 0 and 11", i, st.Builds, st.StoreHits)
			}
		}
	})
}

func TestFleetColdBurst(t *testing.T) {
	onTopologies(t, func(t *testing.T, top topology) {
		src := newCatalogue(500)
		src.block = func(context.Context, int64) { time.Sleep(100 * time.Millisecond) } // let the burst pile up
		sms, _ := fleet(t, top, src)
		codes := make([]int, 200)
		var wg sync.WaitGroup
		for i := range codes {
			wg.Go(func() { codes[i] = testkit.Fetch(sms[i%3], "/sitemap-7.xml.gz").Code })
		}
		wg.Wait()
		for i, c := range codes {
			if c != http.StatusOK {
				t.Fatalf("request %d: %d", i, c)
			}
		}
		if got := src.reads.Load(); got != 1 {
			t.Errorf("page reads = %d for 200 cold requests over three replicas, want 1", got)
		}
	})
}

func TestFleetFreshReplica(t *testing.T) {
	onTopologies(t, func(t *testing.T, top topology) {
		src := newCatalogue(500)
		sms, prefix := fleet(t, top, src)
		for _, p := range files(500) {
			testkit.Fetch(sms[0], p)
		}
		// The first clocks are the new Store's floor, up to two seconds ahead:
		// served as Last-Modified once the Date reaches them.
		time.Sleep(floorAhead)
		first := map[string]*httptest.ResponseRecorder{}
		for _, p := range files(500) {
			first[p] = testkit.Fetch(sms[0], p)
		}
		reads := src.reads.Load()
		// A new process: an empty cache and no clocks of its own.
		fresh := func() *sitemap.Sitemap { return replica(t, top.client(t), prefix, src, redisstore.Options{}) }
		inm, ims, full := fresh(), fresh(), fresh()
		for _, p := range files(500) {
			h := first[p].Header()
			if w := testkit.Fetch(inm, p, "If-None-Match", h.Get("Etag")); w.Code != http.StatusNotModified {
				t.Errorf("%s If-None-Match: %d, want 304", p, w.Code)
			}
			if w := testkit.Fetch(ims, p, "If-Modified-Since", h.Get("Last-Modified")); w.Code != http.StatusNotModified {
				t.Errorf("%s If-Modified-Since: %d, want 304", p, w.Code)
			}
			w := testkit.Fetch(full, p)
			if w.Code != http.StatusOK || !bytes.Equal(w.Body.Bytes(), first[p].Body.Bytes()) ||
				w.Header().Get("Etag") != h.Get("Etag") || w.Header().Get("Last-Modified") != h.Get("Last-Modified") {
				t.Errorf("%s: %d, not the bytes and validators the first replica served", p, w.Code)
			}
		}
		if got := src.reads.Load() - reads; got != 0 {
			t.Errorf("the new replicas read %d pages from the Source, want 0", got)
		}
	})
}

func TestFleetInvalidate(t *testing.T) {
	onTopologies(t, func(t *testing.T, top topology) {
		src := newCatalogue(500)
		// A page read takes a few milliseconds, as from a database, so the
		// other replicas hear of the Invalidate before its rebuild ends.
		src.block = func(context.Context, int64) { time.Sleep(5 * time.Millisecond) }
		sms, _ := fleet(t, top, src)
		for _, p := range files(500) {
			for _, sm := range sms {
				testkit.Fetch(sm, p)
			}
		}
		time.Sleep(floorAhead) // the first clocks, the new Store's floor, are served from then
		before := testkit.Fetch(sms[1], "/sitemap-4.xml.gz").Header()
		// The change comes in a later second than the first build, so the
		// clock can move to it without running more than a second ahead.
		first, _ := http.ParseTime(before.Get("Last-Modified"))
		time.Sleep(time.Until(first.Add(time.Second)))
		src.rev.Add(1)
		if err := sms[0].Invalidate("", 4); err != nil {
			t.Fatal(err)
		}
		old := before.Get("Etag")
		eventually(t, func() bool { return testkit.Fetch(sms[0], "/sitemap-4.xml.gz").Header().Get("Etag") != old })
		for i, sm := range sms[1:] {
			w := testkit.Fetch(sm, "/sitemap-4.xml.gz")
			if w.Header().Get("Etag") == old || !bytes.Contains(testkit.Gunzip(t, w.Body.Bytes()), []byte("rev=1")) {
				t.Errorf("replica %d serves the old bytes after the rebuild", i+1)
			}
			was, _ := http.ParseTime(before.Get("Last-Modified"))
			now, _ := http.ParseTime(w.Header().Get("Last-Modified"))
			if !now.After(was) {
				t.Errorf("replica %d: Last-Modified %v is not after %v", i+1, now, was)
			}
		}
		if got := src.reads.Load(); got != 11 {
			t.Errorf("page reads = %d, want 11 (10 pages, and one rebuild for the fleet)", got)
		}
	})
}

// TestFleetRedisCut cuts Redis in the middle of a crawl, through a proxy
// each replica's client dials, then restores it: every response is good
// throughout, each replica serves alone while Redis is away, and they
// share again once it is back.
func TestFleetRedisCut(t *testing.T) {
	onTopologies(t, func(t *testing.T, top topology) {
		const n = 1500 // 30 pages
		src := newCatalogue(n)
		_, prefix := top.admin(t)
		proxy := top.proxied(t)
		opts := redisstore.Options{Timeout: 100 * time.Millisecond, LockTTL: time.Second}
		var sms []*sitemap.Sitemap
		for range 3 {
			sms = append(sms, replica(t, proxy.client(t), prefix, src, opts))
		}
		paths := files(n)
		crawl := func(paths []string) {
			t.Helper()
			for _, p := range paths {
				for i, sm := range sms {
					if w := testkit.Fetch(sm, p); w.Code != http.StatusOK {
						t.Fatalf("replica %d %s: %d", i, p, w.Code)
					}
				}
			}
		}
		crawl(paths[:10]) // the index and pages 1 to 9, shared
		if got := src.reads.Load(); got != 9 {
			t.Fatalf("before the cut: %d page reads, want 9", got)
		}
		proxy.Cut()
		crawl(paths[10:20]) // pages 10 to 19: each replica builds its own
		for i, sm := range sms {
			if !sm.Stats().StoreDown {
				t.Errorf("replica %d does not report the store down", i)
			}
		}
		if got := src.reads.Load(); got != 9+3*10 {
			t.Errorf("during the cut: %d page reads, want %d (each replica alone)", got, 9+3*10)
		}
		proxy.Restore()
		for i, sm := range sms {
			eventually(t, func() bool { return !sm.Stats().StoreDown })
			if w := testkit.Fetch(sm, paths[20]); w.Code != http.StatusOK {
				t.Fatalf("replica %d after the restore: %d", i, w.Code)
			}
		}
		reads := src.reads.Load()
		crawl(paths[21:]) // pages 21 to 30: shared again
		if got := src.reads.Load() - reads; got != 10 {
			t.Errorf("after the restore: %d page reads for 10 pages, want 10 (shared again)", got)
		}
	})
}

// TestFleetRedisCutUnderLoad cuts and restores Redis while three
// crawlers, one a replica, run: no response fails.
func TestFleetRedisCutUnderLoad(t *testing.T) {
	onTopologies(t, func(t *testing.T, top topology) {
		const n = 5000 // 100 pages
		src := newCatalogue(n)
		_, prefix := top.admin(t)
		proxy := top.proxied(t)
		opts := redisstore.Options{Timeout: 100 * time.Millisecond, LockTTL: time.Second}
		var wg sync.WaitGroup
		var served, failed atomic.Int64
		stop := make(chan struct{})
		var sms []*sitemap.Sitemap
		for range 3 {
			sm := replica(t, proxy.client(t), prefix, src, opts)
			sms = append(sms, sm)
			wg.Go(func() {
				for {
					for _, p := range files(n) {
						select {
						case <-stop:
							return
						default:
						}
						if w := testkit.Fetch(sm, p); w.Code != http.StatusOK {
							failed.Add(1)
							t.Errorf("%s: %d", p, w.Code)
						}
						served.Add(1)
					}
				}
			})
		}
		time.Sleep(300 * time.Millisecond)
		proxy.Cut()
		time.Sleep(500 * time.Millisecond)
		proxy.Restore()
		time.Sleep(300 * time.Millisecond)
		close(stop)
		wg.Wait()
		t.Logf("%d responses, %d failed, %d page reads", served.Load(), failed.Load(), src.reads.Load())
		for _, sm := range sms {
			eventually(t, func() bool { testkit.Fetch(sm, "/sitemap_index.xml"); return !sm.Stats().StoreDown })
		}
	})
}

// TestFleetLockHolderStops: a replica that holds the lock of a page and
// then stops (here, it loses Redis mid-build, so it can no longer renew
// the lock) keeps the others waiting only until the lock expires; then
// one of them builds the page.
func TestFleetLockHolderStops(t *testing.T) {
	onTopologies(t, func(t *testing.T, top topology) {
		const lockTTL = 500 * time.Millisecond
		// A Timeout that a loaded machine does not reach: the other replica
		// must wait for the lock, not build alone after a slow reply.
		opts := redisstore.Options{Timeout: 150 * time.Millisecond, LockTTL: lockTTL}
		c, prefix := top.admin(t)
		stuck := newCatalogue(500)
		started, release := make(chan struct{}), make(chan struct{})
		var once sync.Once
		stuck.block = func(ctx context.Context, page int64) {
			if page == 3 {
				once.Do(func() { close(started) })
				select {
				case <-release:
				case <-ctx.Done():
				}
			}
		}
		defer close(release)
		proxy := top.proxied(t)
		holder := replica(t, proxy.client(t), prefix, stuck, opts)
		healthy := newCatalogue(500)
		other := replica(t, c, prefix, healthy, opts)
		testkit.Fetch(holder, "/sitemap_index.xml")
		go testkit.Fetch(holder, "/sitemap-3.xml.gz")
		<-started // the holder has the lock of page 3, and is stuck in its Source
		start := time.Now()
		done := make(chan int, 1)
		go func() { done <- testkit.Fetch(other, "/sitemap-3.xml.gz").Code }()
		eventually(t, func() bool { return other.Stats().StoreWaits == 1 })
		proxy.Cut() // the holder stops renewing
		code := <-done
		waited := time.Since(start)
		if code != http.StatusOK {
			t.Fatalf("the other replica: %d", code)
		}
		if waited < lockTTL/2 {
			t.Errorf("the other replica built after %v, before the holder's lock could expire (%v)", waited, lockTTL)
		}
		if got := healthy.reads.Load(); got != 1 {
			t.Errorf("the other replica read page 3 %d times, want 1", got)
		}
	})
}

// eventually polls cond for up to 15 seconds.
func eventually(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 15s")
		}
	}
}
