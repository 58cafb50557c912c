package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/export"
)

// TestExportToCDN is docs/export.md's export-to-a-CDN recipe: the site's
// sitemaps exported with a public base on another host, that host serving
// the files, and the site's robots.txt naming the CDN's index. The checker
// accepts the site's URLs in the CDN's files (cross-submission, checked by
// fetching the site's robots.txt); without the robots.txt line, each URL
// is a loc-scope error.
func TestExportToCDN(t *testing.T) {
	for _, named := range []bool{true, false} {
		t.Run(fmt.Sprint("robots names the CDN index: ", named), func(t *testing.T) {
			dir := t.TempDir()
			cdn := httptest.NewServer(http.StripPrefix("/sitemaps/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasSuffix(r.URL.Path, ".gz") {
					w.Header().Set("Content-Type", "application/gzip")
				}
				http.FileServer(http.Dir(dir)).ServeHTTP(w, r)
			})))
			defer cdn.Close()
			cdnIndex := cdn.URL + "/sitemaps/sitemap_index.xml"
			var sm *sitemap.Sitemap
			site := server(t, func(base string) http.Handler {
				var urls []sitemap.URL
				for i := range 7 {
					urls = append(urls, sitemap.URL{Loc: fmt.Sprintf("%s/p/%d", base, i), LastMod: time.Date(2025, 1, 1+i, 0, 0, 0, 0, time.UTC)})
				}
				var err error
				sm, err = sitemap.New(sitemap.Config{BaseURL: base}, sitemap.Section{Name: "p", Source: sitemap.FromSlice(urls, 3)})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { sm.Close() })
				mux := http.NewServeMux()
				mux.HandleFunc("GET /robots.txt", func(w http.ResponseWriter, r *http.Request) {
					io.WriteString(w, "User-agent: *\n")
					if named {
						io.WriteString(w, "Sitemap: "+cdnIndex+"\n")
					}
				})
				return sm.Handler(mux)
			})
			if _, err := export.Tree(context.Background(), sm, export.Options{Dir: dir, PublicBase: cdn.URL + "/sitemaps/"}); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			// The site's robots.txt is on another loopback port than the
			// CDN named: -allow-private lets the check ask it.
			code := run([]string{"check", "-allow-private", cdnIndex}, &out, io.Discard, site.Client().Transport)
			scope := strings.Count(out.String(), ": loc-scope: ")
			if named && (code != 0 || scope != 0) {
				t.Errorf("exit %d, %d loc-scope; want 0 and none:\n%s", code, scope, out.String())
			}
			if !named && (code != 1 || scope != 7) {
				t.Errorf("exit %d, %d loc-scope; want 1 and one per URL (7):\n%s", code, scope, out.String())
			}
		})
	}
}
