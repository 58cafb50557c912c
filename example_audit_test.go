package sitemap_test

import (
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/freshmap/sitemap"
)

// Audit: after a page is built, its URLs are requested in process through
// the application Handler wraps, marked with AuditHeader, and checked.
func ExampleSitemap_Audit() {
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(sitemap.AuditHeader) == "" {
			// count the visit in the analytics: the audit's requests are not visits
		}
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/new", http.StatusMovedPermanently)
			return
		}
		fmt.Fprint(w, `<!doctype html><html><head><link rel="canonical" href="https://example.com`+r.URL.Path+`"></head></html>`)
	})
	pages := sitemap.FromSlice([]sitemap.URL{{Loc: "https://example.com/"}, {Loc: "https://example.com/old"}}, 0)
	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://example.com", Audit: &sitemap.Audit{Share: 1}},
		sitemap.Section{Source: pages})
	if err != nil {
		log.Fatal(err)
	}
	defer sm.Close()
	h := sm.Handler(app) // the audit requests pages through this

	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/sitemap-1.xml.gz", nil)) // a crawler builds the file
	for len(sm.Audit().Files) == 0 {
		time.Sleep(time.Millisecond) // the audit runs in the background
	}
	for _, f := range sm.Audit().Files {
		fmt.Println(f.File, f.Checked, "checked")
		for _, e := range f.Examples {
			fmt.Println(e.Kind, e.Loc, e.Detail)
		}
	}
	// Output:
	// sitemap-1.xml.gz 2 checked
	// redirect https://example.com/old 301 /new
}

// Audit.LeaveOut: a URL whose page says noindex, or names another URL as
// its canonical, is left out of its file, which is rebuilt (new bytes,
// so a new ETag and Last-Modified).
func ExampleAudit_leaveOut() {
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/drafts/1":
			fmt.Fprint(w, `<!doctype html><html><head><meta name="robots" content="noindex"></head></html>`)
		case "/print/1":
			fmt.Fprint(w, `<!doctype html><html><head><link rel="canonical" href="https://example.com/articles/1"></head></html>`)
		default:
			fmt.Fprint(w, `<!doctype html><html><head><link rel="canonical" href="https://example.com`+r.URL.Path+`"></head></html>`)
		}
	})
	pages := sitemap.FromSlice([]sitemap.URL{{Loc: "https://example.com/articles/1"}, {Loc: "https://example.com/drafts/1"},
		{Loc: "https://example.com/print/1"}}, 0)
	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://example.com", Audit: &sitemap.Audit{Share: 1, LeaveOut: true}},
		sitemap.Section{Source: pages})
	if err != nil {
		log.Fatal(err)
	}
	defer sm.Close()
	h := sm.Handler(app)

	fetch := func() string {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/sitemap-1.xml", nil))
		return w.Body.String()
	}
	fetch() // a crawler builds the file; the audit runs in the background
	for strings.Contains(fetch(), "/drafts/1") || strings.Contains(fetch(), "/print/1") {
		time.Sleep(time.Millisecond)
	}
	fmt.Println(sm.Stats().AuditLeftOut, "URLs left out")
	for line := range strings.Lines(fetch()) {
		if strings.HasPrefix(line, "<url>") {
			fmt.Print(line)
		}
	}
	// Output:
	// 2 URLs left out
	// <url><loc>https://example.com/articles/1</loc></url>
}
