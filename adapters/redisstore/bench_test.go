package redisstore_test

import (
	"bytes"
	"context"
	"fmt"
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/redisstore"
	"github.com/redis/go-redis/v9"
)

// benchURLs are the 50,000 URLs of the root package's serve benchmarks
// (serve_bench_test.go), so that the page is the same bytes as
// BenchmarkServeCached's.
func benchURLs() []sitemap.URL {
	lastmod := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	urls := make([]sitemap.URL, sitemap.MaxURLs)
	for i := range urls {
		urls[i] = sitemap.URL{Loc: fmt.Sprintf("https://shop.example.com/products/blue-widget-%d", i), LastMod: lastmod}
	}
	return urls
}

// discard is a ResponseWriter that keeps only the status.
type discard struct {
	h    http.Header
	code int
}

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(p []byte) (int, error) { return len(p), nil }
func (d *discard) WriteHeader(code int)        { d.code = code }

// BenchmarkServeFromRedis serves one 50,000-URL page (.xml.gz, 141 KB)
// three ways, in one run so that their ratios compare:
//
//   - redis-empty-lru: a Sitemap with a Store whose cache (CacheBytes
//     64 KiB) holds the index but never the page, so that every request
//     reads the page's record from Redis, decodes it and serves it, as a
//     replica that did not build the page does when its cache is too
//     small to keep it. It also reports what Redis holds for the page,
//     MEMORY USAGE of its record plus that of its clock, per page and per
//     URL, beside the page's gzip size.
//   - lru: a second Sitemap on the same store, with the default cache,
//     serving the page from its own cache (as BenchmarkServeCached in the
//     root package does).
//   - servecontent: http.ServeContent of the same bytes, with the same
//     ETag and Last-Modified: the reference.
func BenchmarkServeFromRedis(b *testing.B) {
	c, prefix := redisClient(b)
	st := newStore(b, c, redisstore.Options{Prefix: prefix})
	src := sitemap.FromSlice(benchURLs(), 0)
	open := func(cacheBytes int64) *sitemap.Sitemap {
		sm, err := sitemap.New(sitemap.Config{BaseURL: "https://shop.example.com", TTL: time.Hour, CacheBytes: cacheBytes, Store: st},
			sitemap.Section{Source: src})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { sm.Close() })
		return sm
	}
	r, err := http.NewRequest(http.MethodGet, "https://shop.example.com/sitemap-1.xml.gz", nil)
	if err != nil {
		b.Fatal(err)
	}
	r.Header.Set("Accept-Encoding", "gzip")

	// Warm-up: the small-cache Sitemap builds the index and the page,
	// and stores both; the other takes them from Redis, and its response
	// gives the bytes and validators that servecontent serves.
	fromRedis, lru := open(64<<10), open(0)
	w := &discard{h: http.Header{}}
	fromRedis.ServeHTTP(w, r)
	if w.code != 0 && w.code != http.StatusOK {
		b.Fatalf("warm-up: status %d", w.code)
	}
	if st := fromRedis.Stats(); st.Builds != 2 || st.CachedDocuments != 1 {
		b.Fatalf("warm-up: %d documents built, %d cached; want the index and the page built, and the index alone cached", st.Builds, st.CachedDocuments)
	}
	rec := httptest.NewRecorder()
	lru.ServeHTTP(rec, r)
	gz := rec.Body.Bytes()
	etag := rec.Header().Get("Etag")
	mod, err := http.ParseTime(rec.Header().Get("Last-Modified"))
	if rec.Code != http.StatusOK || etag == "" || err != nil || len(gz) < 100<<10 {
		b.Fatalf("warm-up: status %d, %d bytes, ETag %q, Last-Modified %v", rec.Code, len(gz), etag, err)
	}
	if st := lru.Stats(); st.Builds != 0 || st.StoreHits != 2 {
		b.Fatalf("warm-up: the second Sitemap built %d documents and took %d from Redis, want 0 and 2", st.Builds, st.StoreHits)
	}
	record, clock := pageMemory(b, c, prefix)

	b.Run("redis-empty-lru", func(b *testing.B) {
		before := fromRedis.Stats()
		serve(b, fromRedis, r, len(gz))
		after := fromRedis.Stats()
		if after.Builds != before.Builds || after.StoreHits-before.StoreHits != int64(b.N) || after.StoreErrors != 0 {
			b.Fatalf("%d requests: %d builds, %d store hits, %d store errors; want no build, a store hit each and no error",
				b.N, after.Builds-before.Builds, after.StoreHits-before.StoreHits, after.StoreErrors)
		}
		b.ReportMetric(float64(record+clock), "redis-bytes/page")
		b.ReportMetric(float64(record+clock)/float64(sitemap.MaxURLs), "redis-bytes/url")
		b.ReportMetric(float64(len(gz)), "gzip-bytes/page")
	})
	b.Run("lru", func(b *testing.B) {
		before := lru.Stats()
		serve(b, lru, r, len(gz))
		if after := lru.Stats(); after.CacheHits-before.CacheHits != int64(b.N) || after.StoreHits != before.StoreHits {
			b.Fatalf("%d requests: %d cache hits, %d store hits; want a cache hit each", b.N, after.CacheHits-before.CacheHits, after.StoreHits-before.StoreHits)
		}
	})
	b.Run("servecontent", func(b *testing.B) {
		w := &discard{h: http.Header{}}
		b.ReportAllocs()
		b.SetBytes(int64(len(gz)))
		for b.Loop() {
			clear(w.h)
			w.code = 0
			w.h.Set("Content-Type", "application/gzip")
			w.h.Set("Etag", etag)
			http.ServeContent(w, r, "", mod, bytes.NewReader(gz))
		}
		if w.code != 0 && w.code != http.StatusOK {
			b.Fatalf("status %d", w.code)
		}
	})
}

// serve serves r with h in b's loop, to a writer that discards the body.
func serve(b *testing.B, h http.Handler, r *http.Request, size int) {
	w := &discard{h: http.Header{}}
	b.ReportAllocs()
	b.SetBytes(int64(size))
	for b.Loop() {
		clear(w.h)
		w.code = 0
		h.ServeHTTP(w, r)
	}
	if w.code != 0 && w.code != http.StatusOK {
		b.Fatalf("status %d", w.code)
	}
}

// pageMemory returns what Redis says (MEMORY USAGE) the one page under
// prefix takes: its record and its clock, found with SCAN. It logs their
// lengths too, to tell the values from Redis's overhead.
func pageMemory(b *testing.B, c redis.UniversalClient, prefix string) (record, clock int64) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var clockKey string
	iter := c.Scan(ctx, 0, prefix+"*", 100).Iterator()
	for iter.Next(ctx) {
		if k := iter.Val(); strings.HasSuffix(k, "}:clock") && !strings.Contains(k, "sitemap_index") {
			if clockKey != "" {
				b.Fatalf("two page clocks: %s and %s", clockKey, k)
			}
			clockKey = k
		}
	}
	if err := iter.Err(); err != nil || clockKey == "" {
		b.Fatalf("no page clock under %s: %v", prefix, err)
	}
	recordKey := strings.TrimSuffix(clockKey, "clock") + "copy"
	record, err := c.MemoryUsage(ctx, recordKey).Result()
	if err != nil {
		b.Fatalf("MEMORY USAGE %s: %v", recordKey, err)
	}
	clock, err = c.MemoryUsage(ctx, clockKey).Result()
	if err != nil {
		b.Fatalf("MEMORY USAGE %s: %v", clockKey, err)
	}
	recordLen, err1 := c.StrLen(ctx, recordKey).Result()
	clockLen, err2 := c.StrLen(ctx, clockKey).Result()
	if err1 != nil || err2 != nil {
		b.Fatalf("STRLEN: %v, %v", err1, err2)
	}
	b.Logf("%s: %d bytes, MEMORY USAGE %d; %s: %d bytes, MEMORY USAGE %d", recordKey, recordLen, record, clockKey, clockLen, clock)
	return record, clock
}

// BenchmarkIndexShared builds the index of a 3,000,000,000-URL catalogue
// (60,000 pages of 50,000, two index files) from a FromRange Source,
// whose Pages is arithmetic: what is measured is the Sitemap's own work.
// Each iteration is a new Sitemap (a new process) asking for
// sitemap_index.xml:
//
//   - alone: no Store; the index is built.
//   - build: a Store holding nothing for the site; the index is built,
//     with the clocks of its 60,000 pages read from Redis (1,000 a call),
//     and its record (every page's PageInfo and clock) stored.
//   - adopt: a Store holding the index; the new Sitemap takes it from
//     Redis, as a replica that did not build it does.
func BenchmarkIndexShared(b *testing.B) {
	c, prefix := redisClient(b)
	src := sitemap.FromRange(func(context.Context) (int64, error) { return 3_000_000_000, nil },
		func(context.Context, int64, int64) iter.Seq2[sitemap.URL, error] {
			return func(func(sitemap.URL, error) bool) { b.Error("a URL was read") }
		}, 0)
	r := httptest.NewRequest(http.MethodGet, "https://example.com/sitemap_index.xml", nil)
	r.Header.Set("Accept-Encoding", "gzip")
	serve := func(b *testing.B, st sitemap.Store) sitemap.Stats {
		sm, err := sitemap.New(sitemap.Config{BaseURL: "https://example.com", Store: st}, sitemap.Section{Source: src})
		if err != nil {
			b.Fatal(err)
		}
		defer sm.Close()
		w := &discard{h: http.Header{}}
		sm.ServeHTTP(w, r)
		if w.code != 0 && w.code != http.StatusOK {
			b.Fatal(w.code)
		}
		return sm.Stats()
	}
	b.Run("alone", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			serve(b, nil)
		}
	})
	b.Run("build", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			st := newStore(b, c, redisstore.Options{Prefix: prefix + "build" + randomHex() + ":"})
			if s := serve(b, st); s.Builds != 1 || s.StoreErrors != 0 {
				b.Fatalf("%d builds, %d store errors; want 1 and 0", s.Builds, s.StoreErrors)
			}
		}
	})
	b.Run("adopt", func(b *testing.B) {
		st := newStore(b, c, redisstore.Options{Prefix: prefix + "adopt:"})
		serve(b, st)
		keys, err := c.Keys(context.Background(), prefix+"adopt:*sitemap_index.xml@*}:copy").Result()
		if err != nil || len(keys) != 1 {
			b.Fatalf("the index record: %v %v", keys, err)
		}
		n, err := c.MemoryUsage(context.Background(), keys[0]).Result()
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if s := serve(b, st); s.Builds != 0 || s.StoreHits != 1 {
				b.Fatalf("%d builds, %d store hits; want 0 and 1", s.Builds, s.StoreHits)
			}
		}
		b.ReportMetric(float64(n), "redis-bytes/index") // after the loop, which resets metrics
	})
}
