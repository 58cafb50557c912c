package redisstore_test

import (
	"math"
	"strconv"
	"testing"

	"github.com/freshmap/sitemap/adapters/redisstore"
)

// TestIncrRepairs: a counter that INCR refuses (not an integer, at
// MaxInt64, a key of another type) starts again at 1 instead of failing
// every Incr for good; a counter INCR can raise is raised as it is.
func TestIncrRepairs(t *testing.T) {
	c, prefix := redisClient(t)
	st := newStore(t, c, redisstore.Options{Prefix: prefix})
	ctx := t.Context()
	for _, tc := range []struct {
		name string
		set  func(key string) error
		want int64
	}{
		{"missing", func(string) error { return nil }, 1},
		{"a number", func(k string) error { return c.Set(ctx, k, "41", 0).Err() }, 42},
		{"garbage", func(k string) error { return c.Set(ctx, k, "garbage", 0).Err() }, 1},
		{"a fraction", func(k string) error { return c.Set(ctx, k, "1.5", 0).Err() }, 1},
		{"MaxInt64", func(k string) error { return c.Set(ctx, k, strconv.FormatInt(math.MaxInt64, 10), 0).Err() }, 1},
		{"a list", func(k string) error { return c.RPush(ctx, k, "x").Err() }, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key := "gen-" + randomHex()
			if err := tc.set(prefix + key); err != nil {
				t.Fatal(err)
			}
			n, err := st.Incr(ctx, key)
			if err != nil || n != tc.want {
				t.Fatalf("Incr = %d, %v; want %d", n, err, tc.want)
			}
			if n, err := st.Incr(ctx, key); err != nil || n != tc.want+1 {
				t.Errorf("the next Incr = %d, %v; want %d", n, err, tc.want+1)
			}
		})
	}
}
