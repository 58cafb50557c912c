package chiroutes

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/go-chi/chi/v5"
)

func ok(http.ResponseWriter, *http.Request) {}

func mw(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { next.ServeHTTP(w, r) })
}

// testRouter is an application's router with every kind of route.
func testRouter() chi.Router {
	r := chi.NewRouter()
	r.Use(mw)
	r.Get("/", ok)
	r.Get("/about", ok)
	r.Post("/subscribe", ok) // POST only
	r.Head("/ping", ok)      // HEAD only
	r.HandleFunc("/legacy", ok)
	r.Get("/robots.txt", ok)
	r.Get("/favicon.ico", ok)
	r.Get("/sitemap_index.xml", ok)
	r.Get("/sitemap-pages-1.xml.gz", ok)
	r.Get("/sitemap", ok) // a page for people, not a sitemap file
	r.With(mw).Get("/pricing", ok)
	r.Group(func(r chi.Router) {
		r.Use(mw)
		r.Get("/account", ok)
		r.Delete("/account", ok)
	})
	r.Route("/docs", func(r chi.Router) {
		r.Get("/", ok)
		r.Get("/{slug}", ok)
	})
	r.Get("/users/{id:[0-9]+}", ok)
	r.Get("/blog/{year}/{slug}", ok)

	admin := chi.NewRouter()
	admin.Use(mw)
	admin.Get("/", ok)
	admin.Get("/stats", ok)
	admin.Post("/purge", ok)
	admin.Get("/reports/{name}", ok)
	r.Mount("/admin", admin)

	api := chi.NewRouter()
	api.Route("/v1", func(r chi.Router) {
		r.Get("/status", ok)
		r.Put("/status", ok)
	})
	r.Mount("/api", api)

	r.Mount("/static", http.FileServer(http.Dir("testdata")))
	return r
}

// defaultPaths are testRouter's pages with no expansion and no exclusion.
var defaultPaths = []string{
	"/", "/about", "/account", "/admin/", "/admin/stats", "/api/v1/status",
	"/docs/", "/legacy", "/pricing", "/sitemap",
}

func locs(prefix string, paths ...string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = prefix + p
	}
	return out
}

func locsOf(urls []sitemap.URL) []string {
	out := make([]string, len(urls))
	for i, u := range urls {
		out[i] = u.Loc
	}
	return out
}

func TestDefaults(t *testing.T) {
	urls, err := URLs(testRouter(), Config{BaseURL: "https://example.com"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := locsOf(urls), locs("https://example.com", defaultPaths...); !slices.Equal(got, want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	for _, u := range urls {
		if !u.LastMod.IsZero() || u.ChangeFreq != "" || u.Priority != nil {
			t.Errorf("%s: fields set without Annotate: %+v", u.Loc, u)
		}
	}
}

func TestBaseURL(t *testing.T) {
	for base, prefix := range map[string]string{
		"https://example.com":       "https://example.com",
		"https://example.com/":      "https://example.com",
		"HTTPS://Example.COM:8443/": "https://example.com:8443",
		"http://example.com/app":    "http://example.com/app",
		"https://example.com/app/":  "https://example.com/app",
		"https://example.com/a%20b": "https://example.com/a%20b",
	} {
		urls, err := URLs(testRouter(), Config{BaseURL: base})
		if err != nil {
			t.Errorf("%q: %v", base, err)
			continue
		}
		if got, want := locsOf(urls), locs(prefix, defaultPaths...); !slices.Equal(got, want) {
			t.Errorf("%q: got %q, want %q", base, got, want)
		}
	}
}

func TestExpand(t *testing.T) {
	urls, err := URLs(testRouter(), Config{
		BaseURL: "https://example.com",
		Values: map[string][]string{
			"/docs/{slug}":          {"intro", "getting started", "a/b"},
			"/users/{id:[0-9]+}":    {"7", "42"},
			"/static/*":             {"css/site.css", "img/a b.png", "sitemap.xml"},
			"/admin/reports/{name}": {"daily"},
		},
		Paths: map[string][]string{
			"/blog/{year}/{slug}": {"/blog/2024/hello", "/blog/2023/bye"},
			"/docs/{slug}":        {"/docs/intro"}, // also in Values: listed once
			"/about":              {"/about"},      // a parameterless route: listed once
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := locs("https://example.com", "/", "/about", "/account", "/admin/", "/admin/reports/daily",
		"/admin/stats", "/api/v1/status", "/blog/2023/bye", "/blog/2024/hello", "/docs/", "/docs/a%2Fb",
		"/docs/getting%20started", "/docs/intro", "/legacy", "/pricing", "/sitemap",
		"/static/css/site.css", "/static/img/a%20b.png", // "/static/sitemap.xml" is a sitemap file
		"/users/42", "/users/7")
	if got := locsOf(urls); !slices.Equal(got, want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}

func TestErrors(t *testing.T) {
	for name, cfg := range map[string]Config{
		"no BaseURL":            {},
		"BaseURL not absolute":  {BaseURL: "example.com"},
		"BaseURL ftp":           {BaseURL: "ftp://example.com"},
		"BaseURL no host":       {BaseURL: "https://"},
		"BaseURL user":          {BaseURL: "https://u:p@example.com"},
		"BaseURL query":         {BaseURL: "https://example.com/?a=1"},
		"BaseURL empty query":   {BaseURL: "https://example.com/?"},
		"BaseURL fragment":      {BaseURL: "https://example.com/#top"},
		"BaseURL unparsable":    {BaseURL: "https://exa mple.com/%zz"},
		"unknown pattern":       {Values: map[string][]string{"/docs/{name}": {"x"}}},
		"POST-only pattern":     {Paths: map[string][]string{"/subscribe": {"/subscribe"}}},
		"regexp left out":       {Values: map[string][]string{"/users/{id}": {"1"}}},
		"two parameters":        {Values: map[string][]string{"/blog/{year}/{slug}": {"x"}}},
		"no parameter":          {Values: map[string][]string{"/about": {"x"}}},
		"empty value":           {Values: map[string][]string{"/docs/{slug}": {""}}},
		"regexp mismatch":       {Values: map[string][]string{"/users/{id:[0-9]+}": {"abc"}}},
		"path of another route": {Paths: map[string][]string{"/docs/{slug}": {"/about"}}},
		"path too deep":         {Paths: map[string][]string{"/docs/{slug}": {"/docs/a/b"}}},
		"relative path":         {Paths: map[string][]string{"/docs/{slug}": {"docs/a"}}},
		"path with a query":     {Paths: map[string][]string{"/docs/{slug}": {"/docs/a?x=1"}}},
	} {
		t.Run(name, func(t *testing.T) {
			if cfg.BaseURL == "" && !strings.HasPrefix(name, "no BaseURL") {
				cfg.BaseURL = "https://example.com"
			}
			src, err := New(testRouter(), cfg)
			if err == nil || src != nil {
				t.Fatalf("got %v, %v; want an error", src, err)
			}
			if !strings.HasPrefix(err.Error(), "chiroutes: ") {
				t.Errorf("error %q lacks the chiroutes: prefix", err)
			}
		})
	}
	if _, err := New(nil, Config{BaseURL: "https://example.com"}); err == nil {
		t.Errorf("nil router: no error")
	}
}

func TestExclude(t *testing.T) {
	var seen []string
	urls, err := URLs(testRouter(), Config{
		BaseURL: "https://example.com",
		Values:  map[string][]string{"/docs/{slug}": {"intro", "draft-1"}},
		Exclude: func(pattern, path string) bool {
			seen = append(seen, pattern+" "+path)
			return strings.HasPrefix(path, "/admin/") || strings.HasPrefix(path, "/docs/draft-")
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := locs("https://example.com", "/", "/about", "/account", "/api/v1/status",
		"/docs/", "/docs/intro", "/legacy", "/pricing", "/sitemap")
	if got := locsOf(urls); !slices.Equal(got, want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	if !slices.Contains(seen, "/docs/{slug} /docs/draft-1") || !slices.Contains(seen, "/admin/ /admin/") {
		t.Errorf("Exclude was asked %q", seen)
	}
	if slices.Contains(seen, "/robots.txt /robots.txt") {
		t.Errorf("Exclude was asked about a path excluded by default")
	}
}

func TestAnnotate(t *testing.T) {
	day := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	var order []string
	urls, err := URLs(testRouter(), Config{
		BaseURL: "https://example.com",
		Values:  map[string][]string{"/docs/{slug}": {"intro"}},
		Annotate: func(pattern, path string, u *sitemap.URL) {
			order = append(order, path)
			if u.Loc != "https://example.com"+path {
				t.Errorf("Annotate(%q) got Loc %q", path, u.Loc)
			}
			switch pattern {
			case "/":
				u.Priority = new(1.0)
				u.ChangeFreq = sitemap.Daily
			case "/docs/{slug}":
				u.LastMod = day
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.IsSorted(order) || len(order) != len(urls) {
		t.Errorf("Annotate called for %q, want each of the %d URLs in order", order, len(urls))
	}
	byLoc := map[string]sitemap.URL{}
	for _, u := range urls {
		byLoc[u.Loc] = u
	}
	if u := byLoc["https://example.com/"]; u.Priority == nil || *u.Priority != 1 || u.ChangeFreq != sitemap.Daily {
		t.Errorf("/: %+v", u)
	}
	if u := byLoc["https://example.com/docs/intro"]; !u.LastMod.Equal(day) {
		t.Errorf("/docs/intro: LastMod %v, want %v", u.LastMod, day)
	}
	if u := byLoc["https://example.com/about"]; !u.LastMod.IsZero() || u.Priority != nil {
		t.Errorf("/about: %+v, want no optional field", u)
	}
}

func TestSource(t *testing.T) {
	day := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	cfg := Config{
		BaseURL: "https://example.com",
		Annotate: func(pattern, _ string, u *sitemap.URL) {
			if pattern == "/about" {
				u.LastMod = day
			}
		},
	}
	ctx := context.Background()
	var first []string
	for i := range 5 { // Walk visits routes in map order: the output must not depend on it
		src, err := New(testRouter(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		var pages []sitemap.PageInfo
		for p, err := range src.Pages(ctx) {
			if err != nil {
				t.Fatal(err)
			}
			pages = append(pages, p)
		}
		if len(pages) != 1 || pages[0].Number != 1 || !pages[0].LastMod.Equal(day) {
			t.Fatalf("pages = %+v, want page 1 with LastMod %v", pages, day)
		}
		var got []string
		for u, err := range src.URLs(ctx, 1) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, u.Loc)
		}
		if i == 0 {
			first = got
			if want := locs("https://example.com", defaultPaths...); !slices.Equal(got, want) {
				t.Fatalf("got %q, want %q", got, want)
			}
		} else if !slices.Equal(got, first) {
			t.Fatalf("run %d: got %q, first run %q", i, got, first)
		}
		for range src.URLs(ctx, 2) {
			t.Fatalf("page 2 is not empty")
		}
	}
}

func TestNoRoutes(t *testing.T) {
	src, err := New(chi.NewRouter(), Config{BaseURL: "https://example.com"})
	if err != nil {
		t.Fatal(err)
	}
	for p := range src.Pages(context.Background()) {
		t.Errorf("a router without routes has page %+v", p)
	}
}

func TestParamSpans(t *testing.T) {
	for pattern, want := range map[string]int{
		"/":                      0,
		"/docs/{slug}":           1,
		"/users/{id:[0-9]+}":     1,
		"/codes/{code:[a-z]{3}}": 1,
		"/files/*":               1,
		"/blog/{year}/{slug}":    2,
		"/x/{a:[0-9]*}/{b}/*":    3,
		"/odd/{unclosed":         1,
	} {
		if got := paramCount(pattern); got != want {
			t.Errorf("paramCount(%q) = %d, want %d", pattern, got, want)
		}
	}
	if got, err := fillParam("/codes/{code:[a-z]{3}}/view", "abc"); err != nil || got != "/codes/abc/view" {
		t.Errorf("fillParam = %q, %v", got, err)
	}
}
