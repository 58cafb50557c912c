package main

import (
	"testing"

	"github.com/freshmap/sitemap/examples/internal/demotest"
	"github.com/freshmap/sitemap/internal/testenv"
)

// TestSite serves a catalogue of 2,000 products, 500 a sitemap file,
// through the example's own wiring and crawls it.
func TestSite(t *testing.T) {
	base, cat := demotest.Serve(t, 2000, 500, newRouter)
	demotest.Check(t, base, cat.DB, "pages", "products")
}

// TestFleet serves a catalogue of 2,000 products, 500 a sitemap file,
// through the example's own wiring as two replicas sharing Redis (-redis)
// under one base URL, and crawls the first, then the second: the second
// builds nothing and serves the first's copies.
func TestFleet(t *testing.T) {
	base, fleet := demotest.Fleet(t, 2000, 500, newRouter)
	demotest.CrawlFleet(t, base, fleet)
}

// TestChurn: -churn's edits of the products, committed to the catalogue
// with no call to the sitemap, each reach the file that lists the row
// (sqlsource's Watch polls the page summary). The site has no news
// section, so the churn leaves the articles alone.
func TestChurn(t *testing.T) {
	base, cat := demotest.Serve(t, 2000, 500, newRouter)
	demotest.Churn(t, base, cat, 500, false)
}

// TestMain reports what was not tested for want of a service (xmllint, the
// schemas and Redis here), or fails under SITEMAP_REQUIRE_SERVICES=1.
func TestMain(m *testing.M) { testenv.Main(m) }
