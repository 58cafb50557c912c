package redisstore_test

import (
	"context"
	"io"
	"net"
	"testing"
	"time"

	"github.com/freshmap/sitemap/adapters/redisstore"
	"github.com/freshmap/sitemap/internal/tcpproxy"
)

// checkCallsFail fails t unless every method of st returns an error, and
// soon: within 5 Timeouts, a loose bound.
func checkCallsFail(t *testing.T, st *redisstore.Store) {
	t.Helper()
	ctx := context.Background()
	for name, call := range map[string]func() error{
		"Get":  func() error { _, err := st.Get(ctx, "a", "b"); return err },
		"Set":  func() error { return st.Set(ctx, "a", []byte("x")) },
		"Incr": func() error { _, err := st.Incr(ctx, "n"); return err },
		"Lock": func() error {
			unlock, err := st.Lock(ctx, "l")
			if err == nil {
				unlock()
			}
			return err
		},
		"Publish":   func() error { return st.Publish(ctx, "ch", []byte("x")) },
		"Subscribe": func() error { _, err := st.Subscribe(ctx, "ch", func([]byte) {}); return err },
	} {
		start := time.Now()
		err := call()
		if d := time.Since(start); d > 5*timeout {
			t.Errorf("%s took %v, Timeout is %v", name, d, timeout)
		}
		if err == nil {
			t.Errorf("%s did not fail", name)
		}
	}
}

// TestCallsFailWhenCut cuts the Store off from Redis (one server, or
// every node of the cluster), after a call that leaves a connection in
// the client's pool.
func TestCallsFailWhenCut(t *testing.T) {
	for _, top := range topologies { // one at a time: waitRunning counts the package's goroutines
		t.Run(top.name, func(t *testing.T) {
			_, prefix := top.admin(t)
			p := top.proxied(t)
			st := newStore(t, p.client(t), redisstore.Options{Prefix: prefix, LockTTL: lockTTL, Timeout: timeout})
			if err := st.Set(context.Background(), "a", []byte("x")); err != nil {
				t.Fatal(err)
			}
			p.Cut()
			checkCallsFail(t, st)
			checkCallsFail(t, st) // with no connection left in the pool
			waitRunning(t, 0)
		})
	}
}

// TestCallsTimeOutWhenRedisHangs points the Store at a server that
// accepts connections and never answers, where only Timeout, with the
// client's ContextTimeoutEnabled, ends a call. It needs no Redis.
func TestCallsTimeOutWhenRedisHangs(t *testing.T) {
	addr := tcpproxy.Server(t, func(c net.Conn) { io.Copy(io.Discard, c) }) // reads, never answers
	st := newStore(t, dial(t, addr), redisstore.Options{LockTTL: lockTTL, Timeout: timeout})
	checkCallsFail(t, st)
	waitRunning(t, 0)
}
