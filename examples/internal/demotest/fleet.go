package demotest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/examples/demo"
	"github.com/freshmap/sitemap/internal/testenv"
)

// EnvRedis names the test Redis, such as 127.0.0.1:6379. Without it, or
// when Redis does not answer, Fleet skips its test, or fails it when
// SITEMAP_REQUIRE_SERVICES=1 (see internal/testenv).
const EnvRedis = "SITEMAP_TEST_REDIS_ADDR"

// RedisAddr returns the address of the test Redis after checking that it
// answers PING, or stops t with testenv.Unavailable.
func RedisAddr(t testing.TB) string {
	t.Helper()
	addr := os.Getenv(EnvRedis)
	if addr == "" {
		testenv.Unavailable(t, "Redis", EnvRedis+" is not set; set it to an address such as 127.0.0.1:6379")
	}
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		testenv.Unavailable(t, "Redis", fmt.Sprintf("no answer at %s=%s: %v", EnvRedis, addr, err))
	}
	return addr
}

// A Replica is one of the demo shops that Fleet serves.
type Replica struct {
	Sitemap *sitemap.Sitemap
	Client  *http.Client // sends every request to this replica, whatever the URL's host
}

// Fleet builds a catalogue of n products in a temporary directory and
// serves it through an example's wire, with pageSize products per sitemap
// file, as two replicas that share their cache through the test Redis
// (-redis): each on a loopback port of its own, with a Store and a client
// of its own, and both under one base URL of the test's own, which it
// returns. The base URL's host does not resolve: a Replica's Client
// reaches it. The replicas are closed, and their keys in Redis deleted,
// when the test ends. Without Redis the test is skipped (see RedisAddr).
func Fleet(t *testing.T, n, pageSize int, wire demo.Wiring) (string, [2]Replica) {
	t.Helper()
	addr := RedisAddr(t)
	cat, err := demo.Open(t.Context(), filepath.Join(t.TempDir(), "catalogue.db"), n, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	var id [8]byte
	rand.Read(id[:])
	base := "http://fleet-test-" + hex.EncodeToString(id[:]) + ".localhost"
	// The Sitemap's keys are "sitemap:" (redisstore's prefix) and
	// "{BASE}:" before each name. Registered first, this runs last.
	t.Cleanup(func() { deleteKeys(t, addr, "sitemap:{"+base+"*") })
	var fleet [2]Replica
	for i := range fleet {
		opt := demo.Options{Base: base, PageSize: pageSize, Redis: addr}
		store, closeStore, err := opt.Store()
		if err != nil {
			t.Fatal(err)
		}
		h, sm, err := wire(t.Context(), cat.DB, store, opt, nil)
		if err != nil {
			closeStore()
			t.Fatal(err)
		}
		srv := httptest.NewServer(h)
		t.Cleanup(func() {
			srv.Close()
			sm.Close()
			closeStore()
		})
		to := srv.Listener.Addr().String()
		var d net.Dialer
		tr := &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return d.DialContext(ctx, network, to)
		}}
		t.Cleanup(tr.CloseIdleConnections)
		fleet[i] = Replica{Sitemap: sm, Client: &http.Client{Transport: tr, Timeout: time.Minute}}
	}
	return base, fleet
}

// CrawlFleet crawls the sitemap at base through the first replica of
// fleet, then through the second, and checks that the second answered
// every document from the copies the first stored in Redis, with the same
// bytes: it built none, reading no Source.
func CrawlFleet(t *testing.T, base string, fleet [2]Replica) {
	t.Helper()
	var sums [2]map[string]uint64 // URL → hash of the document
	var reps [2]demo.CrawlReport
	for i, r := range fleet {
		sums[i] = map[string]uint64{}
		var err error
		reps[i], err = demo.Crawl(t.Context(), r.Client, base, func(d demo.Doc) error {
			h := fnv.New64a()
			h.Write(d.XML)
			sums[i][d.URL] = h.Sum64()
			return nil
		})
		if err != nil {
			t.Fatalf("crawling replica %d: %v", i+1, err)
		}
	}
	if reps[0].Files < 2 || reps[1].Files != reps[0].Files || reps[1].URLs != reps[0].URLs {
		t.Errorf("replica 1 served %d files with %d URLs, replica 2 %d with %d; want the same, and at least 2 files",
			reps[0].Files, reps[0].URLs, reps[1].Files, reps[1].URLs)
	}
	for u, sum := range sums[0] {
		if got, ok := sums[1][u]; !ok || got != sum {
			t.Errorf("%s: replica 2 served other bytes than replica 1 (or none)", u)
		}
	}
	first, second := fleet[0].Sitemap.Stats(), fleet[1].Sitemap.Stats()
	if first.Builds < int64(reps[0].Files)+1 || first.StoreHits != 0 {
		t.Errorf("replica 1 built %d documents and took %d from Redis; want the index and its %d files built",
			first.Builds, first.StoreHits, reps[0].Files)
	}
	if second.Builds != 0 || second.StoreHits < int64(reps[1].Files)+1 {
		t.Errorf("replica 2 built %d documents and took %d from Redis; want none built and the index and its %d files from Redis",
			second.Builds, second.StoreHits, reps[1].Files)
	}
	for i, st := range []sitemap.Stats{first, second} {
		if st.StoreErrors != 0 || st.StoreDown {
			t.Errorf("replica %d: %d store errors, store down: %v", i+1, st.StoreErrors, st.StoreDown)
		}
	}
}

// deleteKeys deletes the keys of the Redis at addr that match pattern,
// found with SCAN.
func deleteKeys(t *testing.T, addr, pattern string) {
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	iter := c.Scan(ctx, 0, pattern, 100).Iterator()
	var keys []string
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if err := iter.Err(); err != nil {
		t.Errorf("finding the test's keys %s: %v", pattern, err)
		return
	}
	if len(keys) > 0 {
		if err := c.Del(ctx, keys...).Err(); err != nil {
			t.Errorf("deleting the test's keys %s: %v", pattern, err)
		}
	}
}
