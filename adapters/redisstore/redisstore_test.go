package redisstore_test

import (
	"bytes"
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/redisstore"
	"github.com/freshmap/sitemap/internal/testkit"
	"github.com/redis/go-redis/v9"
)

var _ sitemap.Store = (*redisstore.Store)(nil)

// TestNew checks the options New refuses, and that it does not contact
// Redis: the client points at a listener that must see no connection.
func TestNew(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c := redis.NewClient(&redis.Options{Addr: ln.Addr().String()})
	defer c.Close()

	for _, tc := range []struct {
		opts redisstore.Options
		bad  string // in the error; "" for none
	}{
		{redisstore.Options{}, ""},
		{redisstore.Options{Prefix: "x:", TTL: time.Millisecond, LockTTL: 30 * time.Millisecond, Timeout: 10 * time.Millisecond}, ""},
		{redisstore.Options{TTL: -time.Second}, "negative"},
		{redisstore.Options{LockTTL: -time.Second}, "negative"},
		{redisstore.Options{Timeout: -time.Second}, "negative"},
		{redisstore.Options{TTL: time.Microsecond}, "TTL"},
		{redisstore.Options{LockTTL: 29 * time.Millisecond, Timeout: time.Millisecond}, "minimum"},
		{redisstore.Options{Timeout: 4 * time.Second}, "3 times Timeout"}, // the default LockTTL, 10s, is too short
		{redisstore.Options{LockTTL: time.Second, Timeout: 334 * time.Millisecond}, "3 times Timeout"},
	} {
		st, err := redisstore.New(c, tc.opts)
		switch {
		case tc.bad == "" && err != nil:
			t.Errorf("New(%+v): %v", tc.opts, err)
		case tc.bad != "" && (err == nil || !strings.Contains(err.Error(), tc.bad) || !strings.HasPrefix(err.Error(), "redisstore: ")):
			t.Errorf("New(%+v) = %v, want an error about %q", tc.opts, err, tc.bad)
		case tc.bad == "" && st == nil:
			t.Errorf("New(%+v) returned no Store", tc.opts)
		}
	}
	if _, err := redisstore.New(nil, redisstore.Options{}); err == nil {
		t.Error("New accepts a nil client")
	}

	ln.(*net.TCPListener).SetDeadline(time.Now().Add(100 * time.Millisecond))
	if conn, err := ln.Accept(); err == nil {
		conn.Close()
		t.Error("New contacted Redis")
	}
}

// TestDefaults checks the zero Options against Redis: the "sitemap:"
// prefix, a TTL of 7 days and a LockTTL of 10 seconds.
func TestDefaults(t *testing.T) {
	c, _ := redisClient(t)
	tag := "{" + randomHex() + "}:" // keys of this test only, deleted below
	t.Cleanup(func() { deleteKeys(t, c, "sitemap:"+tag+"*") })
	st := newStore(t, c, redisstore.Options{})
	ctx := context.Background()

	if err := st.Set(ctx, tag+"v", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if ttl := c.PTTL(ctx, "sitemap:"+tag+"v").Val(); ttl <= 7*24*time.Hour-time.Minute || ttl > 7*24*time.Hour {
		t.Errorf("the value's TTL is %v, want 7 days", ttl)
	}
	unlock, err := st.Lock(ctx, tag+"lock")
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if ttl := c.PTTL(ctx, "sitemap:"+tag+"lock").Val(); ttl <= 9*time.Second || ttl > 10*time.Second {
		t.Errorf("the lock's TTL is %v, want 10s", ttl)
	}
}

// TestGetSet reads back values set under a prefix, binary and empty ones
// included, with nil for missing keys, in the order of the keys.
func TestGetSet(t *testing.T) {
	c, prefix := redisClient(t)
	st := newStore(t, c, redisstore.Options{Prefix: prefix})
	ctx := context.Background()

	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	const k = "{https://e.com/}:"
	for key, v := range map[string][]byte{k + "bin": all, k + "empty": {}, k + "text": []byte("<urlset/>")} {
		if err := st.Set(ctx, key, v); err != nil {
			t.Fatal(err)
		}
	}
	got, err := st.Get(ctx, k+"missing", k+"bin", k+"empty", k+"text", k+"missing too")
	if err != nil {
		t.Fatal(err)
	}
	want := [][]byte{nil, all, {}, []byte("<urlset/>"), nil}
	if len(got) != len(want) {
		t.Fatalf("Get returned %d values, want %d", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) || (got[i] == nil) != (want[i] == nil) {
			t.Errorf("value %d = %q, want %q", i, got[i], want[i])
		}
	}

	// The key is stored under the prefix, and the value is a copy.
	if raw := c.Get(ctx, prefix+k+"text").Val(); raw != "<urlset/>" {
		t.Errorf("Redis holds %q under the prefixed key", raw)
	}
	got[3][0] = 'X'
	if again, _ := st.Get(ctx, k+"text"); string(again[0]) != "<urlset/>" {
		t.Errorf("after changing a returned value, Get returns %q", again[0])
	}

	if err := st.Set(ctx, k+"text", []byte("new")); err != nil {
		t.Fatal(err)
	}
	if again, _ := st.Get(ctx, k+"text"); string(again[0]) != "new" {
		t.Errorf("after a second Set, Get returns %q", again[0])
	}
	if none, err := st.Get(ctx); err != nil || len(none) != 0 {
		t.Errorf("Get of no keys = %q, %v", none, err)
	}
}

// TestSetTTL checks that each Set gives the value Options.TTL.
func TestSetTTL(t *testing.T) {
	c, prefix := redisClient(t)
	st := newStore(t, c, redisstore.Options{Prefix: prefix, TTL: 1500 * time.Millisecond})
	ctx := context.Background()
	c.Set(ctx, prefix+"v", "old", 0) // no TTL: Set must add one
	if err := st.Set(ctx, "v", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if ttl := c.PTTL(ctx, prefix+"v").Val(); ttl <= time.Second || ttl > 1500*time.Millisecond {
		t.Errorf("PTTL = %v, want just under 1.5s", ttl)
	}
}

// TestSetDurable: a durable value has no TTL, whatever the key held
// before, so a volatile-* policy never evicts it; and a Sitemap keeps so
// when the Store's state began and every file's clock, while its copies
// expire.
func TestSetDurable(t *testing.T) {
	c, prefix := redisClient(t)
	st := newStore(t, c, redisstore.Options{Prefix: prefix, TTL: time.Hour})
	ctx := context.Background()
	c.Set(ctx, prefix+"d", "old", time.Minute)
	if err := st.SetDurable(ctx, "d", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if ttl := c.PTTL(ctx, prefix+"d").Val(); ttl != -1 {
		t.Errorf("PTTL of a durable value = %v, want none (-1)", ttl)
	}

	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://example.com", Store: st}, sitemap.Section{Source: newCatalogue(120)})
	if err != nil {
		t.Fatal(err)
	}
	defer sm.Close()
	for _, path := range files(120) {
		if w := testkit.Fetch(sm, path); w.Code != 200 {
			t.Fatalf("GET %s: %d", path, w.Code)
		}
	}
	keys := c.Keys(ctx, prefix+"*").Val()
	durable, copies := 0, 0
	for _, k := range keys {
		ttl := c.PTTL(ctx, k).Val()
		switch {
		case strings.HasSuffix(k, "}:born") || strings.HasSuffix(k, "}:clock"):
			durable++
			if ttl != -1 {
				t.Errorf("%s has a TTL (%v): it must outlive the copies", k, ttl)
			}
		case strings.HasSuffix(k, "}:copy"):
			copies++
			if ttl <= 0 {
				t.Errorf("%s, a copy, has no TTL (%v)", k, ttl)
			}
		}
	}
	if durable != 1+len(files(120)) || copies != len(files(120)) {
		t.Errorf("%d durable values and %d copies, want born and %d clocks, and %d copies: %q", durable, copies, len(files(120)), len(files(120)), keys)
	}
}

// TestIncr counts from one, keeps counters apart, counts every one of
// concurrent calls, gives counters no TTL, and fails on a value that is
// not a number.
func TestIncr(t *testing.T) {
	c, prefix := redisClient(t)
	st := newStore(t, c, redisstore.Options{Prefix: prefix, TTL: time.Minute})
	ctx := context.Background()
	for want := int64(1); want <= 3; want++ {
		if n, err := st.Incr(ctx, "a"); err != nil || n != want {
			t.Fatalf("Incr(a) = %d, %v, want %d", n, err, want)
		}
	}
	if n, err := st.Incr(ctx, "b"); err != nil || n != 1 {
		t.Errorf("Incr(b) = %d, %v, want 1", n, err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 25 {
				if _, err := st.Incr(ctx, "c"); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := c.Get(ctx, prefix+"c").Val(); n != "200" {
		t.Errorf("after 200 concurrent Incrs, the counter is %s", n)
	}
	if ttl := c.PTTL(ctx, prefix+"a").Val(); ttl != -1 {
		t.Errorf("a counter's PTTL is %v, want none (-1)", ttl)
	}
	// A counter that holds what INCR refuses starts again: TestIncrRepairs.
}
