package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
)

// TestCrawlCommand: sitemap crawl walks robots.txt → index → files as a
// crawler does, and counts: a real sitemap.New tree (its index and three
// gzip files), a plain-text file named by a Site-map: line, a file that is
// gone (an error), with a progress line a file on stderr.
func TestCrawlCommand(t *testing.T) {
	var heads, conditionals atomic.Int64
	srv := server(t, func(base string) http.Handler {
		var urls []sitemap.URL
		for i := range 5 {
			urls = append(urls, sitemap.URL{Loc: fmt.Sprintf("%s/p/%d", base, i), LastMod: time.Date(2025, 1, 1+i, 0, 0, 0, 0, time.UTC)})
		}
		sm, err := sitemap.New(sitemap.Config{BaseURL: base}, sitemap.Section{Name: "p", Source: sitemap.FromSlice(urls, 2)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sm.Close() })
		mux := http.NewServeMux()
		mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, "User-agent: *\nSitemap: %s/sitemap_index.xml\nSite-map: %s/extra.txt\nSitemaps: %s/gone.xml\n", base, base, base)
		})
		mux.HandleFunc("/extra.txt", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprintf(w, "%s/x/1\n\n%s/x/2\n", base, base)
		})
		mux.HandleFunc("/gone.xml", http.NotFound)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodHead {
				heads.Add(1)
			}
			if r.Header.Get("If-None-Match") != "" || r.Header.Get("If-Modified-Since") != "" {
				conditionals.Add(1)
			}
			sm.Handler(mux).ServeHTTP(w, r)
		})
	})
	var out, errOut bytes.Buffer
	code := run([]string{"crawl", srv.URL + "/"}, &out, &errOut, srv.Client().Transport)
	if code != 1 {
		t.Errorf("exit %d, want 1 (a file is gone)", code)
	}
	want := "robots.txt  indexes  files  URLs  wire bytes  XML bytes  errors\n1           1        4      7    "
	if !strings.Contains(out.String(), want) || !strings.Contains(out.String(), "/gone.xml: error: http-status: GET answered 404") {
		t.Errorf("want %q and the 404 in:\n%s", want, out.String())
	}
	if n := strings.Count(errOut.String(), "crawled "); n != 7 {
		t.Errorf("%d progress lines, want one a file (robots.txt, index, 3 files, extra.txt, gone.xml):\n%s", n, errOut.String())
	}
	if heads.Load() != 0 || conditionals.Load() != 0 {
		t.Errorf("%d HEADs and %d conditional GETs; a crawl sends one GET a file", heads.Load(), conditionals.Load())
	}

	var js bytes.Buffer
	run([]string{"crawl", "-json", srv.URL + "/robots.txt"}, &js, io.Discard, srv.Client().Transport)
	var n struct {
		counts
		Findings []any `json:"findings"`
	}
	if err := json.Unmarshal(js.Bytes(), &n); err != nil {
		t.Fatalf("%v:\n%s", err, js.String())
	}
	if n.Robots != 1 || n.Indexes != 1 || n.Files != 4 || n.URLs != 7 || n.Errors != 1 || len(n.Findings) != 1 || n.WireBytes <= 0 || n.XMLBytes <= n.WireBytes {
		t.Errorf("-json: %+v", n)
	}
}

// TestCrawlCounts: readTree counts what a crawler takes: entries with a
// loc (an empty one is none), an index's locations, a feed as a file.
func TestCrawlCounts(t *testing.T) {
	gz := func(s string) string {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		io.WriteString(w, s)
		w.Close()
		return b.String()
	}
	urlset := `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://e.example/a</loc></url><url><loc> </loc></url><url><loc>https://e.example/b</loc><priority>9</priority></url></urlset>`
	for name, tc := range map[string]struct {
		doc      string
		kind     string
		urls, ch int
		err      bool
	}{
		"urlset":    {urlset, "1", 2, 0, false},
		"gzip":      {gz(urlset), "1", 2, 0, false},
		"text":      {"https://e.example/a\nhttps://e.example/b\n", "1", 2, 0, false},
		"index":     {`<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>https://e.example/s.xml</loc></sitemap></sitemapindex>`, "2", 0, 1, false},
		"feed":      {`<feed xmlns="http://purl.org/atom/ns#"></feed>`, "3", 0, 0, false},
		"not XML":   {`<urlset`, "0", 0, 0, true},
		"wrong ns":  {`<urlset xmlns="http://example.com/"/>`, "0", 0, 0, true},
		"truncated": {urlset[:len(urlset)-20], "1", 1, 0, true},
	} {
		kind, children, urls, err := readTree(strings.NewReader(tc.doc))
		if fmt.Sprint(int(kind)) != tc.kind || urls != tc.urls || len(children) != tc.ch || (err != nil) != tc.err {
			t.Errorf("%s: kind %d, %d URLs, %d children, %v", name, kind, urls, len(children), err)
		}
	}
}

// TestPlainTextRemote: a plain-text sitemap served as text/plain checks
// clean (it was refused as XML); served as XML, its Content-Type is wrong.
func TestPlainTextRemote(t *testing.T) {
	for ct, want := range map[string]int{"text/plain; charset=utf-8": 0, "application/xml": 1} {
		srv := server(t, func(base string) http.Handler {
			body := base + "/a\n" + base + "/b\n"
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", ct)
				w.Header().Set("ETag", `"1"`)
				http.ServeContent(w, r, "", time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), strings.NewReader(body))
			})
		})
		var out bytes.Buffer
		code := run([]string{"check", srv.URL + "/sitemap.txt"}, &out, io.Discard, srv.Client().Transport)
		if code != want || !strings.Contains(out.String(), "1      2     ") {
			t.Errorf("%s: exit %d, want %d, with 1 file of 2 URLs:\n%s", ct, code, want, out.String())
		}
	}
}

// TestOwnTextFiles: the plain-text files this library serves beside each
// sitemap file check clean, gzip-encoded or not.
func TestOwnTextFiles(t *testing.T) {
	srv := fiveURLs(t)
	var out bytes.Buffer
	code := run([]string{"check", srv.URL + "/sitemap-p-1.txt", srv.URL + "/sitemap-p-3.txt"}, &out, io.Discard, srv.Client().Transport)
	if code != 0 || !strings.Contains(out.String(), "2      3     0       0") {
		t.Errorf("exit %d; want 0, 2 files of 3 URLs, no finding:\n%s", code, out.String())
	}
}
