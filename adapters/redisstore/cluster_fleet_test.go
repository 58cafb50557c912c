package redisstore_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/redisstore"
	"github.com/freshmap/sitemap/internal/testkit"
	"github.com/redis/go-redis/v9"
)

// The fleet on a Redis Cluster (cluster_test.go starts one): each file's
// keys in a slot of their own, so that one site spreads over every
// master; the fleet's guarantees as on one server, through a master's
// failover and slots moving mid-crawl.

// clusterFleet returns three replicas of src on the test cluster, each
// with a client of its own, and the client and prefix of the first.
func clusterFleet(t *testing.T, src sitemap.Source, cfg sitemap.Config, opts redisstore.Options) ([]*sitemap.Sitemap, *redis.ClusterClient, string) {
	t.Helper()
	c, prefix := clusterClient(t)
	opts.Prefix = prefix
	var sms []*sitemap.Sitemap
	for i := range 3 {
		client := c
		if i > 0 {
			client = redis.NewClusterClient(&redis.ClusterOptions{Addrs: clusterNodes(t), ContextTimeoutEnabled: true})
			t.Cleanup(func() { client.Close() })
		}
		cfg := cfg
		cfg.BaseURL = "https://example.com"
		cfg.Store = newStore(t, client, opts)
		sm, err := sitemap.New(cfg, sitemap.Section{Source: src})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sm.Close() })
		sms = append(sms, sm)
	}
	return sms, c, prefix
}

// TestClusterFleet: a crawl of 100 pages through three replicas on the
// cluster reads each page once; a change said on one replica is served by
// the others; and the site's keys spread over the three masters, each
// holding at least 20% of the site's memory.
func TestClusterFleet(t *testing.T) {
	const n = 5000 // 100 pages
	src := newCatalogue(n)
	sms, c, prefix := clusterFleet(t, src, sitemap.Config{}, redisstore.Options{})
	for _, p := range files(n) {
		for i, sm := range sms {
			if w := testkit.Fetch(sm, p); w.Code != http.StatusOK {
				t.Fatalf("replica %d %s: %d", i, p, w.Code)
			}
		}
	}
	if got := src.reads.Load(); got != 100 {
		t.Errorf("page reads = %d for 100 pages crawled through three replicas, want 100", got)
	}
	old := testkit.Fetch(sms[1], "/sitemap-4.xml.gz").Header().Get("Etag")
	src.rev.Add(1)
	if err := sms[0].Invalidate("", 4); err != nil {
		t.Fatal(err)
	}
	eventually(t, func() bool {
		for _, sm := range sms {
			w := testkit.Fetch(sm, "/sitemap-4.xml.gz")
			if w.Header().Get("Etag") == old || !bytes.Contains(testkit.Gunzip(t, w.Body.Bytes()), []byte("rev=1")) {
				return false
			}
		}
		return true
	})

	// The memory each master holds of the site.
	var mu sync.Mutex
	per := map[string]int64{}
	var total int64
	err := c.ForEachMaster(t.Context(), func(ctx context.Context, m *redis.Client) error {
		var sum int64
		var cursor uint64
		for {
			keys, next, err := m.Scan(ctx, cursor, prefix+"*", 500).Result()
			if err != nil {
				return err
			}
			for _, k := range keys {
				sum += m.MemoryUsage(ctx, k).Val()
			}
			if cursor = next; cursor == 0 {
				break
			}
		}
		mu.Lock()
		per[m.Options().Addr] = sum
		total += sum
		mu.Unlock()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(per) != 3 {
		t.Fatalf("%d masters answered, want 3", len(per))
	}
	for addr, b := range per {
		t.Logf("master %s holds %d of the site's %d bytes (%.0f%%)", addr, b, total, 100*float64(b)/float64(total))
		if 5*b < total {
			t.Errorf("master %s holds %d of the site's %d bytes: under 20%%", addr, b, total)
		}
	}
}

// TestClusterCrawlInvariant: three replicas on the cluster, the catalogue
// changing every 100 ms, crawlers re-checking every 304 by a GET
// (testkit.Crawl; with the faults of one server, it is
// TestFleetCrawlInvariant's cluster half), while a master is killed (its replica takes over, and
// it comes back as a replica) or slots move from one master to another:
// no lie, and the replicas converge on the last revision.
func TestClusterCrawlInvariant(t *testing.T) {
	faults := []struct {
		name  string
		fault func(lc *localCluster, t *testing.T)
	}{
		{"none", nil},
		{"master failover", (*localCluster).failover},
		{"resharding", (*localCluster).reshard},
	}
	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			var lc *localCluster
			if f.fault != nil {
				lc = ownCluster(t)
			}
			run := max(testkit.CrawlRun(t), 6*time.Second) // a failover takes the node timeout (2 s) and more
			src := newCatalogue(150)                       // 3 pages
			sms, _, _ := clusterFleet(t, src, sitemap.Config{TTL: testkit.CrawlTTL(t)},
				redisstore.Options{Timeout: 250 * time.Millisecond, LockTTL: time.Second})
			replicas := []http.Handler{sms[0], sms[1], sms[2]}
			ctx, cancel := context.WithTimeout(t.Context(), run)
			defer cancel()
			var wg sync.WaitGroup
			if f.fault != nil {
				wg.Go(func() {
					time.Sleep(run / 4)
					f.fault(lc, t)
				})
			}
			wg.Go(func() { // the catalogue changes
				for ctx.Err() == nil {
					src.rev.Add(1)
					sms[rand.N(3)].Invalidate("")
					time.Sleep(100 * time.Millisecond)
				}
			})
			paths := files(150)[1:]
			res := testkit.Crawl(ctx, t, 2, replicas, paths, testkit.Rev)
			wg.Wait()
			res.Report(t)
			testkit.Converged(t, replicas, paths, func(string) int64 { return src.rev.Load() })
			if lc != nil {
				waitCtx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				if err := lc.waitReady(waitCtx); err != nil {
					t.Fatalf("after the fault: %v", err)
				}
			}
		})
	}
}

// masters returns the cluster's masters as CLUSTER NODES gives them: id
// and port.
func (c *localCluster) masters(t *testing.T) (ids []string, ports []int) {
	t.Helper()
	for _, p := range c.ports {
		n := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(p), MaxRetries: -1})
		nodes, err := n.ClusterNodes(t.Context()).Result()
		n.Close()
		if err != nil {
			continue
		}
		for _, line := range strings.Split(strings.TrimSpace(nodes), "\n") {
			f := strings.Fields(line)
			if len(f) < 3 || !strings.Contains(f[2], "master") || strings.Contains(f[2], "fail") {
				continue
			}
			addr, _, _ := strings.Cut(f[1], "@")
			_, ps, _ := strings.Cut(addr, ":")
			port, _ := strconv.Atoi(ps)
			ids, ports = append(ids, f[0]), append(ports, port)
		}
		return ids, ports
	}
	t.Fatal("no node of the cluster answered CLUSTER NODES")
	return nil, nil
}

// failover kills a master: its replica takes over after the node timeout.
// The node is started again, and joins as a replica of its replica.
func (c *localCluster) failover(t *testing.T) {
	_, ports := c.masters(t)
	port := ports[0]
	c.mu.Lock()
	defer c.mu.Unlock()
	i := indexOf(c.ports, port)
	c.procs[i].Process.Kill()
	c.procs[i].Wait()
	t.Logf("killed the master on port %d", port)
	time.Sleep(4 * time.Second) // past the node timeout: its replica is promoted
	cmd, err := c.node(port)
	if err != nil {
		t.Errorf("starting the killed node again: %v", err)
		return
	}
	c.procs[i] = cmd
}

// reshard moves 2,000 slots, and their keys, from one master to another.
// redis-cli refuses while the nodes still disagree on the configuration or
// a node has slots left open (importing or migrating), as for seconds
// after a failover (the killed master comes back with some): it closes
// open slots (--cluster fix) and tries again, for up to 20 s.
func (c *localCluster) reshard(t *testing.T) {
	deadline := time.Now().Add(20 * time.Second)
	for {
		ids, ports := c.masters(t)
		node := "127.0.0.1:" + strconv.Itoa(ports[0])
		exec.Command("redis-cli", "--cluster", "fix", node, "--cluster-yes").Run()
		out, err := exec.Command("redis-cli", "--cluster", "reshard", node,
			"--cluster-from", ids[0], "--cluster-to", ids[1], "--cluster-slots", "2000", "--cluster-yes").CombinedOutput()
		if err == nil {
			t.Logf("moved 2000 slots from %s to %s", ids[0][:8], ids[1][:8])
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("redis-cli --cluster reshard: %v: %s", err, lastLines(out, 5))
			return
		}
		time.Sleep(time.Second)
	}
}

func indexOf(ports []int, p int) int {
	for i, q := range ports {
		if q == p {
			return i
		}
	}
	panic(fmt.Sprintf("no node on port %d", p))
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
