package main

import (
	"testing"

	"github.com/freshmap/sitemap/examples/internal/demotest"
)

// TestSite serves a catalogue of 2,000 products, 500 a sitemap file,
// through the example's own wiring and crawls it.
func TestSite(t *testing.T) {
	base, cat := demotest.Serve(t, 2000, 500, newRouter)
	demotest.Check(t, base, cat.DB, "pages", "products")
}
