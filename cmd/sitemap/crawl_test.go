package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestFilesAtOnce: at most -concurrency sitemap files are held and checked
// at once, however many an index lists. Each file lists a URL of another
// host, so that checking it waits for that host's robots.txt (cross-
// submission), which answers after a pause: while it waits, no other file
// may be fetched. The crawler used to bound the requests only, and
// fetched every file of the index while the first ones were being checked.
func TestFilesAtOnce(t *testing.T) {
	const files, concurrency = 12, 2
	var mu sync.Mutex
	fetched := map[string]bool{} // files whose GET came before the other host's robots.txt answered
	answered := false
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(300 * time.Millisecond)
		mu.Lock()
		answered = true
		mu.Unlock()
		io.WriteString(w, "User-agent: *\n")
	}))
	defer other.Close()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		base := "http://" + r.Host
		w.Header().Set("Content-Type", "application/xml")
		if r.URL.Path == "/index.xml" {
			var b strings.Builder
			b.WriteString(`<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
			for i := range files {
				fmt.Fprintf(&b, "<sitemap><loc>%s/s%d.xml</loc></sitemap>", base, i)
			}
			io.WriteString(w, b.String()+"</sitemapindex>")
			return
		}
		var n int
		if _, err := fmt.Sscanf(r.URL.Path, "/s%d.xml", &n); err != nil || n >= files || r.URL.Path != fmt.Sprintf("/s%d.xml", n) {
			http.NotFound(w, r) // not a file the index lists, such as the probes of unknown paths
			return
		}
		mu.Lock()
		if !answered && r.Method == http.MethodGet {
			fetched[r.URL.Path] = true
		}
		mu.Unlock()
		fmt.Fprintf(w, `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>%s/p</loc></url></urlset>`, other.URL)
	}))
	defer site.Close()
	// other is another loopback port than the one named: -allow-private
	// lets the check ask its robots.txt.
	run([]string{"check", "-allow-private", "-concurrency", fmt.Sprint(concurrency), site.URL + "/index.xml"}, io.Discard, io.Discard, http.DefaultTransport)
	if len(fetched) == 0 || len(fetched) > concurrency {
		t.Errorf("%d files fetched while the first were being checked; want 1 to %d", len(fetched), concurrency)
	}
}
