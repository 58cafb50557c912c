package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/check"
)

// TestTreeIsClean: the synthetic tree, served as main serves it, passes
// every rule of the checker, the rules across files included (each URL's
// four alternates listed and returned), with the URLs spread over files of
// pageSize.
func TestTreeIsClean(t *testing.T) {
	const urls, pageSize = 40, 12
	var sm *sitemap.Sitemap
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { sm.Handler(http.NotFoundHandler()).ServeHTTP(w, r) }))
	defer srv.Close()
	var err error
	sm, err = sitemap.New(sitemap.Config{BaseURL: srv.URL}, sitemap.Section{Name: "products", Source: products(srv.URL, urls, pageSize), Extensions: sitemap.ExtAlternates})
	if err != nil {
		t.Fatal(err)
	}
	defer sm.Close()
	c := check.New(check.Options{MaxMemory: 64}) // spills too
	get := func(loc string) []byte {
		resp, err := http.Get(loc)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	index := srv.URL + "/sitemap_index.xml"
	_, files := c.Document(index, index, get(index))
	if len(files) != (urls+pageSize-1)/pageSize {
		t.Fatalf("%d files, want %d", len(files), (urls+pageSize-1)/pageSize)
	}
	for _, f := range files {
		c.Document(f, f, get(f))
	}
	c.Finish()
	r := c.Report()
	if r.URLs != urls || len(r.Findings) != 0 {
		t.Errorf("%d URLs (want %d), findings %v", r.URLs, urls, r.Findings)
	}
}
