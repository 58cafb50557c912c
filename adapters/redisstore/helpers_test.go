package redisstore_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freshmap/sitemap/adapters/redisstore"
	"github.com/freshmap/sitemap/internal/testenv"
	"github.com/redis/go-redis/v9"
)

// envRedis names the test Redis, such as 127.0.0.1:6379. Without it, or
// when Redis does not answer, the tests that need it are skipped, or fail
// when SITEMAP_REQUIRE_SERVICES=1 (see internal/testenv).
const envRedis = "SITEMAP_TEST_REDIS_ADDR"

// TestMain runs the tests through testenv.Run, which reports a skipped
// Redis, then stops the local Redis Cluster if the tests started one
// (cluster_test.go).
func TestMain(m *testing.M) {
	if os.Getenv(envReplica) != "" { // a replica of TestProcessesHeardChange (processes_test.go)
		if err := replicaMain(); err != nil {
			fmt.Fprintln(os.Stderr, "replica:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := testenv.Run(m)
	stopCluster()
	os.Exit(code)
}

// pingTimeout is how long Redis has to answer before its tests give up.
const pingTimeout = 3 * time.Second

var (
	downMu sync.Mutex
	down   string // why Redis did not answer, so that later tests need not wait again
)

// redisAddr returns the address of the test Redis after checking that it
// answers PING, or stops t with testenv.Unavailable.
func redisAddr(t testing.TB) string {
	t.Helper()
	addr := os.Getenv(envRedis)
	if addr == "" {
		testenv.Unavailable(t, "Redis", envRedis+" is not set; set it to an address such as 127.0.0.1:6379")
	}
	downMu.Lock()
	why := down
	downMu.Unlock()
	if why != "" {
		testenv.Unavailable(t, "Redis", why)
	}
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), pingTimeout)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		why := fmt.Sprintf("no answer at %s=%s within %v: %v", envRedis, addr, pingTimeout, err)
		downMu.Lock()
		down = why
		downMu.Unlock()
		testenv.Unavailable(t, "Redis", why)
	}
	return addr
}

// dial returns a client of the Redis at addr (the test Redis, or a proxy
// to it), closed when t ends. Its calls are bounded by their contexts'
// deadlines, as the package doc advises.
func dial(t testing.TB, addr string) redis.UniversalClient {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true})
	t.Cleanup(func() { c.Close() })
	return c
}

// redisClient returns a client of the test Redis and a key prefix of t's
// own, so that tests never see each other's keys; the keys under the
// prefix are deleted when t ends.
func redisClient(t testing.TB) (redis.UniversalClient, string) {
	t.Helper()
	c := dial(t, redisAddr(t))
	prefix := "sitemaptest:" + randomHex() + ":"
	t.Cleanup(func() { deleteKeys(t, c, prefix+"*") })
	return c, prefix
}

// deleteKeys deletes the keys that match pattern, found with SCAN.
func deleteKeys(t testing.TB, c redis.UniversalClient, pattern string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var cursor uint64
	for {
		keys, next, err := c.Scan(ctx, cursor, pattern, 100).Result()
		if err == nil && len(keys) > 0 {
			err = c.Del(ctx, keys...).Err()
		}
		if err != nil {
			t.Errorf("deleting the test's keys %s: %v", pattern, err)
			return
		}
		if cursor = next; cursor == 0 {
			return
		}
	}
}

// newStore returns a Store on c with opts, failing t if New fails.
func newStore(t testing.TB, c redis.UniversalClient, opts redisstore.Options) *redisstore.Store {
	t.Helper()
	st, err := redisstore.New(c, opts)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func randomHex() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// running counts the goroutines that are in the package's own code: the
// lock renewers and the subscriptions' readers. The tests that use it do
// not run in parallel.
func running() int {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	count := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "/adapters/redisstore.") {
			count++
		}
	}
	return count
}

// waitRunning fails t unless the package's goroutines come down to want
// within a second; a goroutine that closed its last channel may still be
// returning.
func waitRunning(t testing.TB, want int) {
	t.Helper()
	deadline := time.Now().Add(time.Second)
	for running() != want {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines of the package are running, want %d", running(), want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// within fails t unless ch is closed within d.
func within(t testing.TB, ch <-chan struct{}, d time.Duration, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(d):
		t.Fatalf("%s: not within %v", what, d)
	}
}
