package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/check"
	"github.com/freshmap/sitemap/internal/testkit"
)

// server starts h on a test server whose URL is known before h is built.
func server(t *testing.T, h func(base string) http.Handler) *httptest.Server {
	srv := httptest.NewUnstartedServer(nil)
	srv.Config.Handler = h("http://" + srv.Listener.Addr().String())
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// TestSite: robots.txt → index → files of a real sitemap.New tree check clean.
// fiveURLs serves a site of five URLs in pages of 2 (section "p"), on a
// clock past the floor of its start: a fresh process serves no
// Last-Modified later than the Date.
func fiveURLs(t *testing.T) *httptest.Server {
	return server(t, func(base string) http.Handler {
		var urls []sitemap.URL
		for i := range 5 {
			urls = append(urls, sitemap.URL{Loc: fmt.Sprintf("%s/p/%d", base, i), LastMod: time.Date(2025, 1, 1+i, 0, 0, 0, 0, time.UTC)})
		}
		clk := testkit.NewClock(time.Now())
		sm, err := sitemap.New(sitemap.Config{BaseURL: base, Now: clk.Now}, sitemap.Section{Name: "p", Source: sitemap.FromSlice(urls, 2)})
		if err != nil {
			t.Fatal(err)
		}
		clk.Add(2 * time.Second)
		t.Cleanup(func() { sm.Close() })
		return sm.Handler(http.NotFoundHandler())
	})
}

func TestSite(t *testing.T) {
	srv := fiveURLs(t)
	var out, errOut bytes.Buffer
	code := run([]string{"check", "-concurrency", "2", srv.URL + "/"}, &out, &errOut, srv.Client().Transport)
	if code != 0 {
		t.Errorf("exit %d, want 0\n%s", code, out.String())
	}
	// The index (3 entries) and its 3 files (5 URLs): 4 files, 5 URLs.
	if !strings.Contains(out.String(), "files  URLs  errors  warnings\n4      5     0       0") {
		t.Errorf("summary:\n%s", out.String())
	}
	if n := strings.Count(errOut.String(), "checked "); n != 5 {
		t.Errorf("%d progress lines, want one per file (robots.txt, index, 3 files):\n%s", n, errOut.String())
	}
}

// broken serves a gzip sitemap as text/plain with no validators, and a
// robots.txt that names it.
func broken(base string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /robots.txt", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "User-agent: *\nSitemap: "+base+"/sitemap.xml.gz\n")
	})
	mux.HandleFunc("GET /sitemap.xml.gz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		gz := gzip.NewWriter(w)
		fmt.Fprintf(gz, `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>%s/a</loc><priority>2</priority></url>
<url><loc>https://elsewhere.example/b</loc></url>
</urlset>
`, base)
		gz.Close()
	})
	return mux
}

// TestBroken: wrong Content-Type, no validators, no 304, bad entries → exit 1.
func TestBroken(t *testing.T) {
	srv := server(t, broken)
	var out bytes.Buffer
	code := run([]string{"check", srv.URL + "/robots.txt"}, &out, io.Discard, srv.Client().Transport)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	for _, rule := range []string{"http-content-type", "http-etag", "http-last-modified", "http-conditional", "priority-range", "loc-scope"} {
		if !strings.Contains(out.String(), ": "+rule+": ") {
			t.Errorf("no %s finding in\n%s", rule, out.String())
		}
	}
	if !strings.Contains(out.String(), "/sitemap.xml.gz: error: http-content-type: ") {
		t.Errorf("findings are not file: severity: rule: message:\n%s", out.String())
	}
}

// TestJSON: -json prints one object that parses, with the counts.
func TestJSON(t *testing.T) {
	srv := server(t, broken)
	var out bytes.Buffer
	code := run([]string{"check", "-json", srv.URL + "/sitemap.xml.gz"}, &out, io.Discard, srv.Client().Transport)
	var r check.Report
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("%v:\n%s", err, out.String())
	}
	if code != 1 || r.Files != 1 || r.URLs != 2 || r.Errors == 0 || r.ByRule["http-content-type"] != 1 {
		t.Errorf("exit %d, report %+v", code, r)
	}
}

// TestLocal: a local index and the files beside it that it lists.
func TestLocal(t *testing.T) {
	dir := t.TempDir()
	write := func(name, doc string) {
		if err := writeFile(dir+"/"+name, doc); err != nil {
			t.Fatal(err)
		}
	}
	write("index.xml", `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>https://example.com/s1.xml</loc></sitemap></sitemapindex>`)
	write("s1.xml", `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://example.org/a</loc></url></urlset>`)
	var out bytes.Buffer
	code := run([]string{"check", dir + "/index.xml"}, &out, io.Discard, nil)
	if code != 1 || !strings.Contains(out.String(), "s1.xml:2:61: error: loc-scope: ") {
		t.Errorf("exit %d:\n%s", code, out.String())
	}
}

// TestUsage: usage errors exit 2.
func TestUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"lint"}, {"check"}, {"check", "-concurrency", "0", "x"}, {"check", "-bogus", "x"}, {"check", "-max-memory", "10", "x"},
		{"check", "-deadline", "-1s", "x"}, {"check", "-max-files", "0", "x"}, {"crawl"}, {"crawl", "local.xml"}, {"crawl", "-concurrency", "0", "http://example.com/"}} {
		if code := run(args, io.Discard, io.Discard, nil); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
}

// TestTreeRules: an index listing an index, a missing file, a HEAD with a
// body, a robots.txt with no Sitemap: line, an unreachable file.
func TestTreeRules(t *testing.T) {
	srv := server(t, func(base string) http.Handler {
		index := `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>` + base + `/inner.xml</loc></sitemap><sitemap><loc>` + base + `/gone.xml</loc></sitemap></sitemapindex>`
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/robots.txt":
				io.WriteString(w, "User-agent: *\n")
			case "/index.xml", "/inner.xml":
				w.Header().Set("Content-Type", "application/xml")
				if r.Method == http.MethodHead {
					w.WriteHeader(http.StatusMethodNotAllowed)
				}
				io.WriteString(w, index)
			default:
				http.NotFound(w, r)
			}
		})
	})
	var out bytes.Buffer
	code := run([]string{"check", srv.URL + "/", srv.URL + "/index.xml", "http://127.0.0.1:1/sitemap.xml"}, &out, io.Discard, srv.Client().Transport)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	for _, rule := range []string{"robots", "index-nested", "http-status", "http-head", "fetch"} {
		if !strings.Contains(out.String(), ": "+rule+": ") {
			t.Errorf("no %s finding in\n%s", rule, out.String())
		}
	}
}
