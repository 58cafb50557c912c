package expvarsitemap_test

import (
	"encoding/json"
	"expvar"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/expvarsitemap"
)

var publishRuns atomic.Int64

func TestPublish(t *testing.T) {
	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://example.com"},
		sitemap.Section{Name: "products", Source: sitemap.FromSlice([]sitemap.URL{
			{Loc: "https://example.com/a"}, {Loc: "https://elsewhere.example/b"},
			{Loc: "https://example.com/c", Images: []sitemap.Image{{Loc: "/relative.jpg"}}},
		}, 0)})
	if err != nil {
		t.Fatal(err)
	}
	defer sm.Close()
	for _, path := range []string{"/sitemap-products-1.xml.gz", "/sitemap-products-1.xml.gz", "/sitemap-products-2.xml.gz"} {
		sm.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, path, nil))
	}
	// expvar names are global and Publish panics on a reused one: a name
	// per run, so that -count=N runs the test N times.
	name := fmt.Sprintf("sitemap_test_%d", publishRuns.Add(1))
	expvarsitemap.Publish(name, sm)

	var got struct {
		CacheHits, CacheMisses, NotFound, RejectedURLs, DroppedElements int64
		Sections                                                        map[string]struct {
			CacheHits, CacheMisses, NotFound, Builds int64
			RejectedURLs, DroppedElements            map[string]int64
			BuildSeconds                             struct{ Count uint64 }
		}
		BuildBuckets []float64
	}
	if err := json.Unmarshal([]byte(expvar.Get(name).String()), &got); err != nil {
		t.Fatal(err)
	}
	if got.CacheHits != 1 || got.CacheMisses != 2 || got.NotFound != 1 || got.RejectedURLs != 1 || got.DroppedElements != 1 {
		t.Errorf("totals %+v", got)
	}
	p := got.Sections["products"]
	if p.CacheHits != 1 || p.CacheMisses != 2 || p.NotFound != 1 || p.Builds != 1 || p.RejectedURLs["loc"] != 1 || p.DroppedElements["image.loc"] != 1 || p.BuildSeconds.Count != 1 {
		t.Errorf("section products %+v", p)
	}
	if _, ok := got.Sections["_index"]; !ok || len(got.BuildBuckets) != len(sitemap.BuildBuckets()) {
		t.Errorf("no _index section or no buckets: %+v", got)
	}
}
