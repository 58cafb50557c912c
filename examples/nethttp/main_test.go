package main

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/freshmap/sitemap/examples/internal/demotest"
	"github.com/freshmap/sitemap/internal/testenv"
)

// TestSite serves a catalogue of 2,000 products, 500 a sitemap file,
// through the example's own wiring and crawls it.
func TestSite(t *testing.T) {
	base, cat := demotest.Serve(t, 2000, 500, newHandler)
	demotest.Check(t, base, cat.DB, "pages", "products", "news")

	// The crawl shows in the metrics.
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %d, %v", resp.StatusCode, err)
	}
	for _, want := range []string{`sitemap_builds_total{section="products"} 4`, `sitemap_builds_total{section="_index"} 1`,
		`sitemap_build_duration_seconds_count{section="news"}`, `sitemap_cache_entries{section="pages"} 1`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics has no %s", want)
		}
	}
}

// TestFleet serves a catalogue of 2,000 products, 500 a sitemap file,
// through the example's own wiring as two replicas sharing Redis (-redis)
// under one base URL, and crawls the first, then the second: the second
// builds nothing and serves the first's copies.
func TestFleet(t *testing.T) {
	base, fleet := demotest.Fleet(t, 2000, 500, newHandler)
	demotest.CrawlFleet(t, base, fleet)
}

// TestMain reports what was not tested for want of a service (xmllint, the
// schemas and Redis here), or fails under SITEMAP_REQUIRE_SERVICES=1.
func TestMain(m *testing.M) { testenv.Main(m) }
