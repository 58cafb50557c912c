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

// TestMain reports what was not tested for want of a service (xmllint and
// the schemas here), or fails under SITEMAP_REQUIRE_SERVICES=1.
func TestMain(m *testing.M) { testenv.Main(m) }
