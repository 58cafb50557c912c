package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/freshmap/sitemap/check"
)

// TestGuard: a tree on a named server lists files, pages and a redirect on
// another loopback listener (as a hostile sitemap names 127.0.0.1 or
// 169.254.169.254), by address and by a name that resolves there
// (localhost): without -allow-private no request reaches that listener,
// through the default transport's dialer (Control) or a test's own
// DialContext, and -deep counts the pages refused and prints no redirect
// target of the internal address; with -allow-private it is reached.
func TestGuard(t *testing.T) {
	var inner atomic.Int64
	internalSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inner.Add(1)
		w.Header().Set("Content-Type", "application/xml")
		io.WriteString(w, `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"></urlset>`)
	}))
	defer internalSrv.Close()
	iu, _ := url.Parse(internalSrv.URL)
	byName := "http://localhost:" + iu.Port() // a name that resolves to loopback
	srv := server(t, func(base string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/xml")
			switch r.URL.Path {
			case "/robots.txt":
				w.Header().Set("Content-Type", "text/plain")
				fmt.Fprintf(w, "Sitemap: %s/index.xml\nSitemap: %s/s.xml\nSitemap: %s/redirect.xml\n", base, internalSrv.URL, byName)
			case "/index.xml":
				fmt.Fprintf(w, `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>%s/pages.xml</loc></sitemap><sitemap><loc>%s/a.xml</loc></sitemap><sitemap><loc>%s/redirect.xml</loc></sitemap></sitemapindex>`,
					base, internalSrv.URL, base)
			case "/redirect.xml":
				http.Redirect(w, r, internalSrv.URL+"/latest/meta-data/", http.StatusFound)
			case "/pages.xml":
				fmt.Fprintf(w, `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>%s/moved</loc></url><url><loc>%s/latest/meta-data/iam/security-credentials/</loc></url></urlset>`, base, internalSrv.URL)
			case "/moved":
				http.Redirect(w, r, internalSrv.URL+"/latest/meta-data/iam/security-credentials/admin", http.StatusFound)
			default:
				http.NotFound(w, r)
			}
		})
	})
	for name, transport := range map[string]http.RoundTripper{
		"default transport": http.DefaultTransport,  // net.Dialer with Control
		"own DialContext":   srv.Client().Transport, // the address checked once connected, before a byte is sent
	} {
		t.Run(name, func(t *testing.T) {
			inner.Store(0)
			var out bytes.Buffer
			run([]string{"check", "-json", "-deep", srv.URL + "/"}, &out, io.Discard, transport)
			var r check.Report
			if err := json.Unmarshal(out.Bytes(), &r); err != nil {
				t.Fatal(err)
			}
			if n := inner.Load(); n != 0 {
				t.Errorf("%d requests reached the internal listener", n)
			}
			refusals := 0
			for _, f := range r.Findings {
				if strings.Contains(f.Msg, "not fetched: the address is loopback") {
					refusals++
				}
				if strings.Contains(f.Msg, "security-credentials/admin") {
					t.Errorf("a redirect target on the internal address is printed: %v", f)
				}
			}
			if refusals < 4 || r.Pages["refused"] != 1 || r.Pages["302"] != 1 {
				t.Errorf("%d refusals, pages %v; want a refusal each for the robots.txt line, the index entry, the name, the redirect, and a refused page:\n%s", refusals, r.Pages, out.String())
			}
			if !strings.Contains(out.String(), "302 to an internal address (not shown)") {
				t.Errorf("the redirect to the internal address is not reported as hidden:\n%s", out.String())
			}

			run([]string{"check", "-allow-private", "-deep", srv.URL + "/"}, io.Discard, io.Discard, transport)
			if inner.Load() == 0 {
				t.Errorf("-allow-private: the internal listener was not reached")
			}
		})
	}
}
