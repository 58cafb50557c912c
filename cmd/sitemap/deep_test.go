package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/check"
)

// TestDeep: -deep over a real local server finds each planted fault of
// the listed pages, as a page-* warning naming the URL and the file, and
// fetches only the pages sampled, every request marked.
func TestDeep(t *testing.T) {
	var pages, unmarked atomic.Int64
	var mu sync.Mutex
	fetched := map[string]int{}
	listed := []string{"/ok", "/moved", "/gone", "/header-noindex", "/meta-noindex", "/wrong-canonical", "/private/x"}
	srv := server(t, func(base string) http.Handler {
		var urls []sitemap.URL
		for _, p := range listed {
			urls = append(urls, sitemap.URL{Loc: base + p})
		}
		sm, err := sitemap.New(sitemap.Config{BaseURL: base}, sitemap.Section{Name: "p", Source: sitemap.FromSlice(urls, 0)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sm.Close() })
		return sm.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/robots.txt" {
				pages.Add(1)
				mu.Lock()
				fetched[r.URL.Path]++
				mu.Unlock()
				if r.Header.Get(sitemap.AuditHeader) != "1" {
					unmarked.Add(1)
				}
			}
			w.Header().Set("Content-Type", "text/html")
			head := `<link rel="canonical" href="` + base + r.URL.Path + `">`
			switch r.URL.Path {
			case "/robots.txt":
				w.Header().Set("Content-Type", "text/plain")
				fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
				return
			case "/moved":
				http.Redirect(w, r, "/ok", http.StatusMovedPermanently)
				return
			case "/gone":
				http.NotFound(w, r)
				return
			case "/header-noindex":
				w.Header().Set("X-Robots-Tag", "noindex")
			case "/meta-noindex":
				head += `<meta name="robots" content="noindex">`
			case "/wrong-canonical":
				head = `<link rel="canonical" href="/ok">`
			}
			fmt.Fprintf(w, "<!doctype html><html><head>%s</head><body>hi</body></html>", head)
		}))
	})
	var out, errOut bytes.Buffer
	code := run([]string{"check", "-deep", srv.URL + "/"}, &out, &errOut, srv.Client().Transport)
	if code != 0 {
		t.Errorf("exit %d, want 0: page findings are warnings\n%s", code, out.String())
	}
	file := srv.URL + "/sitemap-p-1.xml.gz"
	for _, want := range []string{
		file + ": warning: page-redirect: " + srv.URL + "/moved: 301 /ok",
		file + ": warning: page-status: " + srv.URL + "/gone: 404",
		file + ": warning: page-noindex: " + srv.URL + "/header-noindex: X-Robots-Tag: noindex",
		file + ": warning: page-noindex: " + srv.URL + "/meta-noindex: ",
		file + ": warning: page-canonical: " + srv.URL + "/wrong-canonical: " + srv.URL + "/ok",
		file + ": warning: page-robots: " + srv.URL + "/private/x: Disallow: /private/",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in:\n%s", want, out.String())
		}
	}
	if n := strings.Count(out.String(), "page-"); n != 6+5 { // the findings, then the summary's rows (noindex twice)
		t.Errorf("%d page- mentions, want 11:\n%s", n, out.String())
	}
	if pages.Load() != int64(len(listed)) || unmarked.Load() != 0 {
		t.Errorf("%d page requests (%d unmarked), want %d, none: %v", pages.Load(), unmarked.Load(), len(listed), fetched)
	}
	// The summary says what -deep fetched, by status, and so does -json.
	if want := "pages fetched (-deep)  7\n  200                  5\n  301                  1\n  404                  1\n"; !strings.Contains(out.String(), want) {
		t.Errorf("no %q in the summary:\n%s", want, out.String())
	}
	var js bytes.Buffer
	run([]string{"check", "-json", "-deep", srv.URL + "/"}, &js, io.Discard, srv.Client().Transport)
	var r check.Report
	if err := json.Unmarshal(js.Bytes(), &r); err != nil || r.Pages["200"] != 5 || r.Pages["301"] != 1 || r.Pages["404"] != 1 || len(r.Pages) != 3 {
		t.Errorf("-json pages %v (%v), want 200: 5, 301: 1, 404: 1", r.Pages, err)
	}

	// -deep-sample bounds the pages a file, -deep-max the pages in all.
	pages.Store(0)
	run([]string{"check", "-deep", "-deep-sample", "3", srv.URL + "/"}, &out, &errOut, srv.Client().Transport)
	if n := pages.Load(); n != 3 {
		t.Errorf("-deep-sample 3: %d pages fetched", n)
	}
	pages.Store(0)
	run([]string{"check", "-deep", "-deep-max", "2", srv.URL + "/"}, &out, &errOut, srv.Client().Transport)
	if n := pages.Load(); n != 2 {
		t.Errorf("-deep-max 2: %d pages fetched", n)
	}
	pages.Store(0)
	run([]string{"check", srv.URL + "/"}, &out, &errOut, srv.Client().Transport)
	if n := pages.Load(); n != 0 {
		t.Errorf("without -deep: %d pages fetched", n)
	}
}
