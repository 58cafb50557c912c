package demo

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/pagecheck"
)

func TestApp(t *testing.T) {
	c, err := Open(t.Context(), filepath.Join(t.TempDir(), "catalogue.db"), 60, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var draft int64
	if err := c.DB.QueryRow("SELECT id FROM products WHERE NOT published LIMIT 1").Scan(&draft); err != nil {
		t.Fatalf("no draft among the first 60 products: %v", err)
	}
	app := NewApp(c.DB, "https://shop.example", nil)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", app.Home)
	mux.HandleFunc("GET /robots.txt", app.Robots)
	mux.HandleFunc("GET /img/{file}", app.Image)
	mux.HandleFunc("GET /news", app.News)
	mux.HandleFunc("GET /news/{id}/{slug}", app.Article)
	mux.HandleFunc("GET /about", app.Static("About us"))
	for _, l := range Languages {
		mux.HandleFunc("GET "+l.Prefix+"/p/{id}/{slug}", app.Product(l.Prefix))
	}
	for _, tc := range []struct {
		path     string
		status   int
		contains string
	}{
		{"/", 200, `href="/p/1/minimal-glass-sofa"`},
		{"/about", 200, "<h1>About us</h1>"},
		{"/about", 200, `<link rel="canonical" href="https://shop.example/about">`},
		{"/p/1/minimal-glass-sofa", 200, `<link rel="alternate" hreflang="fr" href="https://shop.example/fr/p/1/minimal-glass-sofa">`},
		{"/de/p/1/minimal-glass-sofa", 200, `<html lang="de">`},
		{"/fr/p/1/wrong-slug", 301, "/fr/p/1/minimal-glass-sofa"},
		{"/p/" + strconv.FormatInt(draft, 10) + "/x", 404, ""},
		{"/p/999999/x", 404, ""},
		{"/p/one/x", 404, ""},
		{"/img/1-1.svg", 200, "<svg"},
		{"/img/1-1.png", 404, ""},
		{"/img/x-1.svg", 404, ""},
		{"/news", 200, `href="/news/`},
		{"/news/1/wrong", 301, "/news/1/"},
		{"/robots.txt", 200, "Disallow: /cart\n"},
	} {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tc.path, nil))
		got := rec.Body.String() + rec.Header().Get("Location")
		if rec.Code != tc.status || !strings.Contains(got, tc.contains) {
			t.Errorf("GET %s: %d, want %d with %q:\n%s", tc.path, rec.Code, tc.status, tc.contains, got)
		}
	}

	// The pages carry the dates the sitemap lists as their lastmods (the
	// self-audit compares them): a product's updated_at as its JSON-LD
	// dateModified, an article's published_at as its article:modified_time.
	var updated, published int64
	var slug, aslug string
	var aid int64
	if err := c.DB.QueryRow("SELECT slug, updated_at FROM products WHERE id = 1").Scan(&slug, &updated); err != nil {
		t.Fatal(err)
	}
	if err := c.DB.QueryRow("SELECT id, slug, published_at FROM articles ORDER BY id LIMIT 1").Scan(&aid, &aslug, &published); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]struct {
		at   int64
		date func(pagecheck.Dates) pagecheck.Span
	}{
		"/p/1/" + slug: {updated, func(d pagecheck.Dates) pagecheck.Span { return d.JSONLD }},
		"/news/" + strconv.FormatInt(aid, 10) + "/" + aslug: {published, func(d pagecheck.Dates) pagecheck.Span { return d.Meta }},
	} {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		got := want.date(pagecheck.ReadDates(rec.Header(), rec.Body.Bytes()))
		if at := time.Unix(want.at, 0); !got.From.Equal(at) || !got.To.Equal(at) {
			t.Errorf("GET %s: its date is %+v, want %v:\n%s", path, got, at.UTC(), rec.Body.String())
		}
	}
}
