package redisstore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/redisstore"
	"github.com/freshmap/sitemap/internal/testkit"
)

// envLoad turns on the tests that hold the machine busy with other
// processes while the fleet works: SITEMAP_TEST_FLEET_LOAD=N runs N
// CPU burners beside them.
const envLoad = "SITEMAP_TEST_FLEET_LOAD"

// burn starts n processes that spin on a core each until t ends.
func burn(t *testing.T, n int) {
	t.Helper()
	for range n {
		cmd := exec.Command("sh", "-c", "while :; do :; done")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	}
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

// TestFleetColdCrawlUnderLoad: cold crawls of 100 pages by 3 and by 6
// replicas, each crawled by its own crawler at once, while other
// processes keep the machine's cores busy: the fleet still reads each
// page about once, and no request waits longer than BuildTimeout.
func TestFleetColdCrawlUnderLoad(t *testing.T) {
	var burners int
	if _, err := fmt.Sscan(os.Getenv(envLoad), &burners); err != nil || burners <= 0 {
		t.Skip(envLoad + " is not set to a number of CPU burners")
	}
	redisAddr(t)
	burn(t, burners)
	time.Sleep(2 * time.Second)
	for _, n := range []int{3, 6} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			const urls = 5000 // 100 pages
			const timeout = 10 * time.Second
			const crawlers = 4 // a replica's crawlers at once
			src := newCatalogue(urls)
			src.block = func(context.Context, int64) { time.Sleep(5 * time.Millisecond) } // a database read
			c, prefix := redisClient(t)
			var sms []*sitemap.Sitemap
			for i := range n {
				client := c
				if i > 0 {
					client = dial(t, redisAddr(t))
				}
				sm, err := sitemap.New(sitemap.Config{BaseURL: "https://example.com", BuildTimeout: timeout,
					Store: newStore(t, client, redisstore.Options{Prefix: prefix})}, sitemap.Section{Source: src})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { sm.Close() })
				sms = append(sms, sm)
			}
			var longest atomic.Int64
			var bad atomic.Int64
			var wg sync.WaitGroup
			start := time.Now()
			for _, sm := range sms {
				for c := range crawlers { // the first in order, the others at random
					ps := files(urls)
					if c > 0 {
						rand.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
					}
					wg.Go(func() {
						for _, p := range ps {
							t0 := time.Now()
							if w := testkit.Fetch(sm, p); w.Code != http.StatusOK {
								bad.Add(1)
							}
							d := int64(time.Since(t0))
							for old := longest.Load(); d > old && !longest.CompareAndSwap(old, d); old = longest.Load() {
							}
						}
					})
				}
			}
			wg.Wait()
			var down, errs, builds int64
			for _, sm := range sms {
				st := sm.Stats()
				errs += st.StoreErrors
				builds += st.Builds
				if st.StoreDown {
					down++
				}
			}
			t.Logf("%d replicas, %d burners, load %s: %d page reads, %d builds, %d store errors, the longest request %v, %d not 200, in %v",
				n, burners, loadavg(), src.reads.Load(), builds, errs, time.Duration(longest.Load()).Round(time.Millisecond), bad.Load(), time.Since(start).Round(time.Millisecond))
			if got := src.reads.Load(); got > 105 {
				t.Errorf("%d page reads for a cold crawl of 100 pages, want at most 105", got)
			}
			if d := time.Duration(longest.Load()); d > timeout+time.Second {
				t.Errorf("a request waited %v, BuildTimeout is %v", d, timeout)
			}
		})
	}
}
