package promsitemap_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/freshmap/sitemap/adapters/promsitemap"
	"github.com/prometheus/client_golang/prometheus"
)

// TestDocsMetrics: the metrics table of docs/metrics.md names every
// metric the collector describes, and no other.
func TestDocsMetrics(t *testing.T) {
	data, err := os.ReadFile("../../docs/metrics.md")
	if err != nil {
		t.Fatal(err)
	}
	sec := string(data)
	var inDocs []string
	name := regexp.MustCompile("`(sitemap_[a-z_]+)`")
	for line := range strings.Lines(sec) {
		if first, _, ok := strings.Cut(strings.TrimPrefix(line, "| "), " | "); ok && strings.HasPrefix(line, "| `sitemap_") {
			for _, m := range name.FindAllStringSubmatch(first, -1) {
				inDocs = append(inDocs, m[1])
			}
		}
	}
	ch := make(chan *prometheus.Desc, 100)
	promsitemap.New(nil).Describe(ch) // Describe reads no Sitemap
	close(ch)
	fq := regexp.MustCompile(`fqName: "([a-z_]+)"`)
	var described []string
	for d := range ch {
		described = append(described, fq.FindStringSubmatch(d.String())[1])
	}
	slices.Sort(inDocs)
	slices.Sort(described)
	if !slices.Equal(inDocs, described) {
		t.Errorf("docs/metrics.md's table names\n%v\nthe collector describes\n%v", inDocs, described)
	}
}
