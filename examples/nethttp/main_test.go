package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap/examples/demo"
	"github.com/freshmap/sitemap/examples/internal/demotest"
	"github.com/freshmap/sitemap/internal/testenv"
)

// TestSite serves a catalogue of 2,000 products, 500 a sitemap file,
// through the example's own wiring and crawls it.
func TestSite(t *testing.T) {
	base, cat := demotest.Serve(t, 2000, 500, newHandler)
	demotest.Check(t, base, cat.DB, "pages", "products", "news")

	// The crawl shows in the metrics.
	body := metrics(t, base)
	for _, want := range []string{`sitemap_builds_total{section="products"} 4`, `sitemap_builds_total{section="_index"} 1`,
		`sitemap_build_duration_seconds_count{section="news"}`, `sitemap_cache_entries{section="pages"} 1`} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics has no %s", want)
		}
	}
}

// TestSiteAudit: the demo's self-audit checks a sample of every built
// file (a pages file, four products files of 500 products in 3 languages,
// a news file: 1 % of each, at least one) through the shop's own routes,
// German and French pages among them, and finds nothing wrong: no lastmod
// drift either, as the product and article pages carry the dates their
// lastmods come from.
func TestSiteAudit(t *testing.T) {
	base, cat := demotest.Serve(t, 2000, 500, newHandler)
	var articles int
	if err := cat.DB.QueryRow("SELECT count(*) FROM articles WHERE published_at >= unixepoch('now', '-2 days')").Scan(&articles); err != nil {
		t.Fatal(err)
	}
	// 1 %, at least one, of each file (each products file holds 500
	// products in 3 languages), at most 60 of them checked within the
	// minute's budget (Audit.PerMinute), the rest skipped.
	sampled := 1 + 4*15 + (articles+99)/100
	want, wantSkipped := strconv.Itoa(min(sampled, 60)), strconv.Itoa(max(sampled-60, 0))
	for _, f := range []string{"/sitemap-pages-1.xml.gz", "/sitemap-products-1.xml.gz", "/sitemap-products-2.xml.gz",
		"/sitemap-products-3.xml.gz", "/sitemap-products-4.xml.gz", "/sitemap-news-1.xml.gz"} {
		resp, err := http.Get(base + f)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	checked := regexp.MustCompile(`(?m)^sitemap_audit_urls_total\{result="checked"\} (\d+)$`)
	skipped := regexp.MustCompile(`(?m)^sitemap_audit_urls_total\{result="skipped"\} (\d+)$`)
	var body string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		body = metrics(t, base)
		m, n := checked.FindStringSubmatch(body), skipped.FindStringSubmatch(body)
		gotSkipped := "0"
		if n != nil {
			gotSkipped = n[1]
		}
		if m != nil && m[1] == want && gotSkipped == wantSkipped {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the audit did not check %s URLs and skip %s within 10 s:\n%s", want, wantSkipped, body)
		}
	}
	for line := range strings.Lines(body) {
		if strings.HasPrefix(line, "sitemap_audit_findings_total{") && !strings.HasSuffix(line, " 0\n") ||
			strings.HasPrefix(line, "sitemap_audit_file_findings{") {
			t.Errorf("the demo has a finding: %s", line)
		}
	}
}

// metrics returns the body of base/metrics.
func metrics(t *testing.T, base string) string {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %d, %v", resp.StatusCode, err)
	}
	return string(body)
}

// TestFleet serves a catalogue of 2,000 products, 500 a sitemap file,
// through the example's own wiring as two replicas sharing Redis (-redis)
// under one base URL, and crawls the first, then the second: the second
// builds nothing and serves the first's copies.
func TestFleet(t *testing.T) {
	base, fleet := demotest.Fleet(t, 2000, 500, newHandler)
	demotest.CrawlFleet(t, base, fleet)
}

// TestChurn: -churn's four edits, committed to the catalogue with no call
// to the sitemap, each reach the file that lists the row (sqlsource's
// Watch polls the page summary), the news article too.
func TestChurn(t *testing.T) {
	base, cat := demotest.Serve(t, 2000, 500, newHandler)
	demotest.Churn(t, base, cat, 500, true)
}

// TestMain reports what was not tested for want of a service (xmllint, the
// schemas and Redis here), or fails under SITEMAP_REQUIRE_SERVICES=1.
func TestMain(m *testing.M) {
	code := testenv.Run(m)
	closeCatalogues() // page_bench_test.go's
	os.Exit(code)
}

// TestCatalogueReused: the demo starts again on the catalogue a first run
// left, with the page summaries and row times that run installed (a
// second go run ./examples/nethttp).
func TestCatalogueReused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "catalogue.db")
	for run := 1; run <= 2; run++ {
		cat, err := demo.Open(t.Context(), path, 500, nil)
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		_, sm, err := newHandler(ctx, cat.DB, nil, demo.Options{Base: "http://localhost:8080", PageSize: 100}, nil)
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if run == 2 && cat.Built {
			t.Errorf("run 2 built the catalogue again")
		}
		cancel()
		sm.Close()
		cat.Close()
	}
}
