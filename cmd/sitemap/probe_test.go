package main

import (
	"slices"
	"testing"
)

// TestProbePaths: a made-up name beside the index, and the first listed
// file with its page number past any real one.
func TestProbePaths(t *testing.T) {
	got := probePaths("https://example.com/maps/sitemap_index.xml", []string{"https://example.com/maps/sitemap-products-3.xml.gz"})
	want := []string{"https://example.com/maps/sitemap-no-such-section-1.xml.gz", "https://example.com/maps/sitemap-products-999999999.xml.gz"}
	if !slices.Equal(got, want) {
		t.Errorf("probePaths = %q, want %q", got, want)
	}
	if got := probePaths("https://example.com/i.xml", []string{"https://cdn.example.net/s-1.xml"}); len(got) != 1 {
		t.Errorf("a file on another host is not probed: %q", got)
	}
	if got := probePaths("index.xml", nil); got != nil {
		t.Errorf("a local index is not probed: %q", got)
	}
}

// TestProbePathsRoot: an index at the root of the site.
func TestProbePathsRoot(t *testing.T) {
	got := probePaths("http://127.0.0.1:8080/sitemap_index.xml", []string{"http://127.0.0.1:8080/sitemap-p-1.xml.gz"})
	want := []string{"http://127.0.0.1:8080/sitemap-no-such-section-1.xml.gz", "http://127.0.0.1:8080/sitemap-p-999999999.xml.gz"}
	if !slices.Equal(got, want) {
		t.Errorf("probePaths = %q, want %q", got, want)
	}
}
