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

// TestReadmeMetrics: the README's Metrics table names every metric the
// collector describes, and no other.
func TestReadmeMetrics(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, _ := strings.Cut(string(data), "\n## Metrics\n")
	sec, _, _ = strings.Cut(sec, "\n## ")
	var inREADME []string
	name := regexp.MustCompile("`(sitemap_[a-z_]+)`")
	for line := range strings.Lines(sec) {
		if first, _, ok := strings.Cut(strings.TrimPrefix(line, "| "), " | "); ok && strings.HasPrefix(line, "| `sitemap_") {
			for _, m := range name.FindAllStringSubmatch(first, -1) {
				inREADME = append(inREADME, m[1])
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
	slices.Sort(inREADME)
	slices.Sort(described)
	if !slices.Equal(inREADME, described) {
		t.Errorf("README Metrics table names\n%v\nthe collector describes\n%v", inREADME, described)
	}
}
