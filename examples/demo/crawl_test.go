package demo

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func gz(s string) string {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.String()
}

// site serves files by path; "{base}" in them becomes the server's URL.
func site(t *testing.T, files map[string]string) string {
	var base string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(strings.ReplaceAll(body, "{base}", base)))
	}))
	t.Cleanup(srv.Close)
	base = srv.URL
	return base
}

func TestCrawl(t *testing.T) {
	const index = `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>{base}/sitemap-1.xml.gz</loc></sitemap></sitemapindex>`
	urlset := gz(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>a</loc></url><url><loc>b</loc></url></urlset>`)
	robots := "User-agent: *\nSitemap: {base}/sitemap_index.xml\n"
	for name, tc := range map[string]struct {
		files map[string]string
		ok    bool
	}{
		"complete":          {map[string]string{"/robots.txt": robots, "/sitemap_index.xml": index, "/sitemap-1.xml.gz": urlset}, true},
		"no Sitemap line":   {map[string]string{"/robots.txt": "User-agent: *\n", "/sitemap_index.xml": index, "/sitemap-1.xml.gz": urlset}, false},
		"no robots.txt":     {map[string]string{"/sitemap_index.xml": index, "/sitemap-1.xml.gz": urlset}, false},
		"missing file":      {map[string]string{"/robots.txt": robots, "/sitemap_index.xml": index}, false},
		"file not gzip":     {map[string]string{"/robots.txt": robots, "/sitemap_index.xml": index, "/sitemap-1.xml.gz": "<urlset/>"}, false},
		"index not XML":     {map[string]string{"/robots.txt": robots, "/sitemap_index.xml": "<sitemapindex", "/sitemap-1.xml.gz": urlset}, false},
		"truncated gzip":    {map[string]string{"/robots.txt": robots, "/sitemap_index.xml": index, "/sitemap-1.xml.gz": urlset[:len(urlset)-6]}, false},
		"another index URL": {map[string]string{"/robots.txt": "Sitemap: http://elsewhere.example/sitemap_index.xml\n", "/sitemap_index.xml": index, "/sitemap-1.xml.gz": urlset}, false},
	} {
		t.Run(name, func(t *testing.T) {
			base := site(t, tc.files)
			var docs []string
			rep, err := Crawl(t.Context(), http.DefaultClient, base, func(d Doc) error {
				docs = append(docs, d.URL)
				return nil
			})
			if (err == nil) != tc.ok {
				t.Fatalf("Crawl: err = %v, want ok = %v", err, tc.ok)
			}
			if !tc.ok {
				return
			}
			if rep.Files != 1 || rep.URLs != 2 || rep.WireBytes == 0 || rep.XMLBytes == 0 || rep.Took <= 0 {
				t.Errorf("report = %+v", rep)
			}
			if want := []string{base + "/sitemap_index.xml", base + "/sitemap-1.xml.gz"}; strings.Join(docs, " ") != strings.Join(want, " ") {
				t.Errorf("visited %q, want %q", docs, want)
			}
		})
	}
}
