package sitemap

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

// TestHTMLNotesCrawlAndAudit: the HTML view of a file says which crawler
// fetched it last and what it got, and what the last self-audit found.
func TestHTMLNotesCrawlAndAudit(t *testing.T) {
	clk := testkit.NewClock(time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC))
	sm := newTestSitemap(t, Config{HTML: true, Now: clk.Now, Audit: &Audit{Share: 1}, Crawlers: Crawlers{Files: 10}},
		Section{Source: FromSlice([]URL{{Loc: "https://example.com/"}, {Loc: "https://example.com/gone"}}, 0)})
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/gone" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`<!doctype html><title>home</title>`))
	})
	h := sm.Handler(app)
	r := httptest.NewRequest(http.MethodGet, "/sitemap-1.xml.gz", nil)
	r.Header.Set("User-Agent", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)")
	h.ServeHTTP(httptest.NewRecorder(), r)
	waitFor(t, func() bool { return len(sm.Audit().Files) == 1 })
	clk.Add(2 * time.Hour)

	w := testkit.Fetch(h, "/sitemap-1.html")
	if w.Code != http.StatusOK {
		t.Fatalf("GET /sitemap-1.html: %d", w.Code)
	}
	body := w.Body.String()
	for _, want := range []string{
		"Googlebot (claimed, not verified by address) fetched this file 2 h ago: 200",
		"Self-audit: 2 URLs checked: 1 status",
		"status: https://example.com/gone (404)",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the HTML view does not say %q", want)
		}
	}
	if w.Header().Get("Last-Modified") != "" {
		t.Error("a view with live notes has a Last-Modified: the notes change without the file")
	}
}
