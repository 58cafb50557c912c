package redisstore_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/tcpproxy"
	"github.com/redis/go-redis/v9"
)

// The fleet's tests run on each Redis topology the README says is
// tested: one server (SITEMAP_TEST_REDIS_ADDR) and the local Redis
// Cluster of three masters and three replicas (SITEMAP_TEST_REDIS_CLUSTER,
// cluster_test.go: one started per run of the package, whichever test
// needs it first). A topology whose server is not there skips its
// subtests, or fails them with SITEMAP_REQUIRE_SERVICES=1.

// topology is one way of running Redis.
type topology struct {
	name    string
	cluster bool
}

var topologies = []topology{{"single", false}, {"cluster", true}}

// onTopologies runs test as a subtest on each topology, the topologies
// in parallel: each has its own replicas, Source and key prefix.
func onTopologies(t *testing.T, test func(t *testing.T, top topology)) {
	for _, top := range topologies {
		t.Run(top.name, func(t *testing.T) {
			t.Parallel()
			test(t, top)
		})
	}
}

// admin returns a client of top for the test itself, and a key prefix of
// t's own whose keys are deleted when t ends.
func (top topology) admin(t *testing.T) (redis.UniversalClient, string) {
	t.Helper()
	if top.cluster {
		return clusterClient(t)
	}
	return redisClient(t)
}

// client returns a new client of top, as a replica has its own, closed
// when t ends.
func (top topology) client(t *testing.T) redis.UniversalClient {
	t.Helper()
	if top.cluster {
		c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: clusterNodes(t), ContextTimeoutEnabled: true})
		t.Cleanup(func() { c.Close() })
		return c
	}
	return dial(t, redisAddr(t))
}

// proxies puts a tcpproxy in front of every server of top: a test cuts or
// slows them all at once, as one Redis or a whole cluster going away.
type proxies struct {
	top topology
	all map[string]*tcpproxy.Proxy // by the address of the server
}

// proxied returns proxies in front of top's servers (for a cluster, each
// of its nodes, whose addresses the cluster tells its clients).
func (top topology) proxied(t *testing.T) *proxies {
	t.Helper()
	addrs := []string{redisAddr(t)}
	if top.cluster {
		addrs = clusterNodes(t)
	}
	ps := &proxies{top: top, all: make(map[string]*tcpproxy.Proxy)}
	for _, a := range addrs {
		ps.all[a] = tcpproxy.New(t, a)
	}
	return ps
}

// client returns a new client that reaches top through the proxies only.
func (ps *proxies) client(t *testing.T) redis.UniversalClient {
	t.Helper()
	if !ps.top.cluster {
		return dial(t, ps.all[redisAddr(t)].Addr())
	}
	var d net.Dialer
	c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: clusterNodes(t), ContextTimeoutEnabled: true,
		Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if p, ok := ps.all[addr]; ok {
				addr = p.Addr()
			}
			return d.DialContext(ctx, network, addr)
		}})
	t.Cleanup(func() { c.Close() })
	return c
}

// Cut cuts every server off; Restore lets them through again; Slow delays
// every reply by delay (0: not at all).
func (ps *proxies) Cut() {
	for _, p := range ps.all {
		p.Cut()
	}
}

func (ps *proxies) Restore() {
	for _, p := range ps.all {
		p.Restore()
	}
}

func (ps *proxies) Slow(delay time.Duration) {
	for _, p := range ps.all {
		p.Slow(delay)
	}
}

// deletePrefix deletes the keys under prefix on every master of c.
func deletePrefix(ctx context.Context, c redis.UniversalClient, prefix string) {
	del := func(ctx context.Context, m *redis.Client) error {
		iter := m.Scan(ctx, 0, prefix+"*", 500).Iterator()
		for iter.Next(ctx) {
			m.Del(ctx, iter.Val()) // one key a DEL: on a cluster, the keys are in many slots
		}
		return nil
	}
	switch c := c.(type) {
	case *redis.ClusterClient:
		c.ForEachMaster(ctx, del)
	case *redis.Client:
		del(ctx, c)
	}
}
