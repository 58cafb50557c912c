package redisstore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testenv"
	"github.com/redis/go-redis/v9"
)

// A local Redis Cluster for the tests: three masters and three replicas on
// loopback ports, started from the redis-server and redis-cli on PATH,
// once per run of the package, and stopped after it (TestMain).
//
// envCluster says where: "start" starts one; a comma-separated list of
// addresses names a cluster that runs already (nothing is started or
// stopped, and the failover and resharding tests are skipped: they change
// the cluster). Without it the cluster tests are skipped, or fail when
// SITEMAP_REQUIRE_SERVICES=1.
const envCluster = "SITEMAP_TEST_REDIS_CLUSTER"

// localCluster is a cluster this run started: its nodes' processes.
type localCluster struct {
	dir   string
	ports []int
	procs []*exec.Cmd
	mu    sync.Mutex // procs, while a node is killed and started again
}

var (
	clusterOnce  sync.Once
	clusterAddrs []string
	clusterLocal *localCluster
	clusterWhy   string // why there is none
)

// clusterNodes returns the addresses of the test cluster, starting it on
// first use, or stops t with testenv.Unavailable.
func clusterNodes(t testing.TB) []string {
	t.Helper()
	clusterOnce.Do(func() {
		switch v := os.Getenv(envCluster); v {
		case "":
			clusterWhy = envCluster + " is not set; set it to \"start\" (needs redis-server and redis-cli) or to the addresses of a cluster"
		case "start":
			c, err := startCluster()
			if err != nil {
				clusterWhy = "starting a local Redis Cluster: " + err.Error()
				return
			}
			clusterLocal = c
			for _, p := range c.ports {
				clusterAddrs = append(clusterAddrs, "127.0.0.1:"+strconv.Itoa(p))
			}
		default:
			clusterAddrs = strings.Split(v, ",")
		}
	})
	if clusterAddrs == nil {
		testenv.Unavailable(t, "Redis Cluster", clusterWhy)
	}
	return clusterAddrs
}

// ownCluster returns the cluster this run started, or skips t: a test
// that fails a master over or moves slots runs on its own cluster only.
func ownCluster(t testing.TB) *localCluster {
	t.Helper()
	clusterNodes(t)
	if clusterLocal == nil {
		t.Skip("the cluster was not started by this run (" + envCluster + "=start): its topology is left alone")
	}
	return clusterLocal
}

// clusterClient returns a client of the test cluster and a key prefix of
// t's own, whose keys are deleted when t ends.
func clusterClient(t testing.TB) (*redis.ClusterClient, string) {
	t.Helper()
	c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: clusterNodes(t), ContextTimeoutEnabled: true})
	t.Cleanup(func() { c.Close() })
	prefix := "sitemaptest:" + randomHex() + ":"
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
			// One key a DEL: a master's keys are in many slots.
			iter := m.Scan(ctx, 0, prefix+"*", 500).Iterator()
			for iter.Next(ctx) {
				m.Del(ctx, iter.Val())
			}
			return nil
		})
	})
	return c, prefix
}

// startCluster starts six nodes and joins them into a cluster of three
// masters, each with a replica, and waits until it is ready.
func startCluster() (*localCluster, error) {
	for _, cmd := range []string{"redis-server", "redis-cli"} {
		if _, err := exec.LookPath(cmd); err != nil {
			return nil, fmt.Errorf("%s not found on PATH", cmd)
		}
	}
	dir, err := os.MkdirTemp("", "sitemap-cluster-")
	if err != nil {
		return nil, err
	}
	c := &localCluster{dir: dir}
	ports, err := freePorts(6)
	if err != nil {
		return nil, err
	}
	for _, p := range ports {
		cmd, err := c.node(p)
		if err != nil {
			c.stop()
			return nil, err
		}
		c.ports, c.procs = append(c.ports, p), append(c.procs, cmd)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, p := range c.ports {
		if err := waitPing(ctx, p); err != nil {
			c.stop()
			return nil, err
		}
	}
	args := []string{"--cluster", "create"}
	for _, p := range c.ports {
		args = append(args, "127.0.0.1:"+strconv.Itoa(p))
	}
	args = append(args, "--cluster-replicas", "1", "--cluster-yes")
	if out, err := exec.CommandContext(ctx, "redis-cli", args...).CombinedOutput(); err != nil {
		c.stop()
		return nil, fmt.Errorf("redis-cli --cluster create: %v: %s", err, out)
	}
	if err := c.waitReady(ctx); err != nil {
		c.stop()
		return nil, err
	}
	return c, nil
}

// node starts the node on port, or starts it again with the cluster
// state it saved.
func (c *localCluster) node(port int) (*exec.Cmd, error) {
	ps := strconv.Itoa(port)
	cmd := exec.Command("redis-server", "--port", ps, "--bind", "127.0.0.1", "--cluster-enabled", "yes",
		"--cluster-config-file", filepath.Join(c.dir, "nodes-"+ps+".conf"), "--cluster-node-timeout", "2000",
		"--save", "", "--appendonly", "no", "--dir", c.dir, "--logfile", filepath.Join(c.dir, ps+".log"))
	return cmd, cmd.Start()
}

// freePorts finds n ports whose cluster bus ports (port+10000) are free
// too.
func freePorts(n int) ([]int, error) {
	var ports []int
	for tries := 0; len(ports) < n && tries < 1000; tries++ {
		p := 20000 + rand.N(10000)
		if free(p) && free(p+10000) {
			ports = append(ports, p)
		}
	}
	if len(ports) < n {
		return nil, fmt.Errorf("no %d free ports", n)
	}
	return ports, nil
}

func free(port int) bool {
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return false
	}
	ln.Close()
	return true
}

func waitPing(ctx context.Context, port int) error {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(port), MaxRetries: -1})
	defer c.Close()
	for {
		if c.Ping(ctx).Err() == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("node on port %d did not answer: %w", port, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// waitReady waits until every node says the cluster is ok and sees three
// masters, each with a replica that is in sync.
func (c *localCluster) waitReady(ctx context.Context) error {
	for {
		ready := true
		for _, p := range c.ports {
			n := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(p), MaxRetries: -1})
			info, err := n.ClusterInfo(ctx).Result()
			nodes, err2 := n.ClusterNodes(ctx).Result()
			n.Close()
			if err != nil || err2 != nil || !strings.Contains(info, "cluster_state:ok") ||
				strings.Count(nodes, "master") != 3 || strings.Count(nodes, "slave") != 3 || strings.Contains(nodes, "fail") {
				ready = false
				break
			}
		}
		if ready {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the cluster did not become ready: %w", ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// stop kills the nodes and removes their files.
func (c *localCluster) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.procs {
		p.Process.Kill()
		p.Wait()
	}
	os.RemoveAll(c.dir)
}

// stopCluster stops the cluster this run started, if any.
func stopCluster() {
	if clusterLocal != nil {
		clusterLocal.stop()
	}
}
