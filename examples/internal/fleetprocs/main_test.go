package fleetprocs_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testenv"
	"github.com/redis/go-redis/v9"
)

// envRedis names the test Redis, such as 127.0.0.1:6379: without it, or
// when Redis does not answer, the test is skipped, or fails when
// SITEMAP_REQUIRE_SERVICES=1 (internal/testenv).
const envRedis = "SITEMAP_TEST_REDIS_ADDR"

// TestMain runs a replica when the test binary was started as one
// (processes_test.go), and the tests otherwise.
func TestMain(m *testing.M) {
	if os.Getenv(envReplica) != "" {
		if err := replicaMain(); err != nil {
			fmt.Fprintln(os.Stderr, "replica:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	testenv.Main(m)
}

// redisClient returns a client of the test Redis and a key prefix of the
// test's own, whose keys are deleted when it ends.
func redisClient(t *testing.T) (*redis.Client, string) {
	t.Helper()
	addr := os.Getenv(envRedis)
	if addr == "" {
		testenv.Unavailable(t, "Redis", envRedis+" is not set; set it to an address such as 127.0.0.1:6379")
	}
	c := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		c.Close()
		testenv.Unavailable(t, "Redis", fmt.Sprintf("%s does not answer: %v", addr, err))
	}
	b := make([]byte, 8)
	rand.Read(b)
	prefix := "sitemaptest:" + hex.EncodeToString(b) + ":"
	t.Cleanup(func() {
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		iter := c.Scan(ctx, 0, prefix+"*", 100).Iterator()
		for iter.Next(ctx) {
			c.Del(ctx, iter.Val())
		}
		if err := iter.Err(); err != nil {
			t.Errorf("deleting the test's keys %s*: %v", prefix, err)
		}
	})
	return c, prefix
}

// files are the paths of a catalogue of n URLs in pages of 50: the index
// and its pages.
func files(n int64) []string {
	ps := []string{"/sitemap_index.xml"}
	for p := int64(1); (p-1)*50 < n; p++ {
		ps = append(ps, "/sitemap-"+strconv.FormatInt(p, 10)+".xml.gz")
	}
	return ps
}
