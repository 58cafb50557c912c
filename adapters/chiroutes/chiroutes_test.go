package chiroutes

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
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

func TestConfigErrors(t *testing.T) { // mistakes New finds without the routes
	for name, cfg := range map[string]Config{
		"no BaseURL":           {},
		"BaseURL not absolute": {BaseURL: "example.com"},
		"BaseURL ftp":          {BaseURL: "ftp://example.com"},
		"BaseURL no host":      {BaseURL: "https://"},
		"BaseURL user":         {BaseURL: "https://u:p@example.com"},
		"BaseURL query":        {BaseURL: "https://example.com/?a=1"},
		"BaseURL empty query":  {BaseURL: "https://example.com/?"},
		"BaseURL fragment":     {BaseURL: "https://example.com/#top"},
		"BaseURL unparsable":   {BaseURL: "https://exa mple.com/%zz"},
		"two parameters":       {Values: map[string][]string{"/blog/{year}/{slug}": {"x"}}},
		"no parameter":         {Values: map[string][]string{"/about": {"x"}}},
		"empty value":          {Values: map[string][]string{"/docs/{slug}": {""}}},
		"relative path":        {Paths: map[string][]string{"/docs/{slug}": {"docs/a"}}},
		"path with a query":    {Paths: map[string][]string{"/docs/{slug}": {"/docs/a?x=1"}}},
	} {
		t.Run(name, func(t *testing.T) {
			if cfg.BaseURL == "" && name != "no BaseURL" {
				cfg.BaseURL = "https://example.com"
			}
			src, err := New(chi.NewRouter(), cfg) // no routes yet: New must not need them
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

func TestRouteErrors(t *testing.T) { // mistakes that only the routes show: New accepts them, every walk reports them
	ctx := context.Background()
	for name, cfg := range map[string]Config{
		"unknown pattern":       {Values: map[string][]string{"/docs/{name}": {"x"}}},
		"POST-only pattern":     {Paths: map[string][]string{"/subscribe": {"/subscribe"}}},
		"regexp left out":       {Values: map[string][]string{"/users/{id}": {"1"}}},
		"regexp mismatch":       {Values: map[string][]string{"/users/{id:[0-9]+}": {"abc"}}},
		"path of another route": {Paths: map[string][]string{"/docs/{slug}": {"/about"}}},
		"path too deep":         {Paths: map[string][]string{"/docs/{slug}": {"/docs/a/b"}}},
		"empty list, no route":  {Values: map[string][]string{"/nowhere/{x}": nil}},
	} {
		t.Run(name, func(t *testing.T) {
			cfg.BaseURL = "https://example.com"
			src, err := New(testRouter(), cfg)
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			check := src.Check(ctx)
			if check == nil || !strings.HasPrefix(check.Error(), "chiroutes: ") {
				t.Fatalf("Check = %v, want a chiroutes: error", check)
			}
			var errs []error
			for p, err := range src.Pages(ctx) {
				errs = append(errs, err)
				if err == nil {
					t.Errorf("Pages yielded page %+v", p)
				}
			}
			for u, err := range src.URLs(ctx, 1) {
				errs = append(errs, err)
				if err == nil {
					t.Errorf("URLs yielded %s", u.Loc)
				}
			}
			if len(errs) != 2 || errs[0].Error() != check.Error() || errs[1].Error() != check.Error() {
				t.Errorf("Pages and URLs yielded %v, want one error each: %v", errs, check)
			}
			if _, err := URLs(testRouter(), cfg); err == nil || err.Error() != check.Error() {
				t.Errorf("URLs() = %v, want %v", err, check)
			}
		})
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
		if got := src.PageSize(); got != 50_000 {
			t.Errorf("PageSize() = %d, want 50000", got)
		}
		pages := collect(t, src.Pages(ctx))
		if len(pages) != 1 || pages[0].Number != 1 || !pages[0].LastMod.Equal(day) {
			t.Fatalf("pages = %+v, want page 1 with LastMod %v", pages, day)
		}
		got := locsOf(collect(t, src.URLs(ctx, 1)))
		if i == 0 {
			first = got
			if want := locs("https://example.com", defaultPaths...); !slices.Equal(got, want) {
				t.Fatalf("got %q, want %q", got, want)
			}
		} else if !slices.Equal(got, first) {
			t.Fatalf("run %d: got %q, first run %q", i, got, first)
		}
		for _, n := range []int64{0, 2, -1} {
			for range src.URLs(ctx, n) {
				t.Fatalf("page %d is not empty", n)
			}
		}
	}
}

func TestCancelled(t *testing.T) {
	src, err := New(testRouter(), Config{BaseURL: "https://example.com"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, err := range src.URLs(ctx, 1) {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("URLs on a cancelled context: %v", err)
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

// TestRoutesAfterNew declares routes after New and between walks: each
// walk sees the routes declared so far.
func TestRoutesAfterNew(t *testing.T) {
	ctx := context.Background()
	r := chi.NewRouter()
	src, err := New(r, Config{
		BaseURL: "https://example.com",
		Values:  map[string][]string{"/docs/{slug}": {"intro"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Check(ctx); err == nil {
		t.Errorf("Check before /docs/{slug} is declared: no error")
	}
	r.Use(mw) // chi still takes middlewares: New declared no route
	r.Get("/", ok)
	r.Route("/docs", func(r chi.Router) { r.Get("/{slug}", ok) })
	if err := src.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := locsOf(collect(t, src.URLs(ctx, 1))), locs("https://example.com", "/", "/docs/intro"); !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	r.Get("/later", ok)
	if got, want := locsOf(collect(t, src.URLs(ctx, 1))), locs("https://example.com", "/", "/docs/intro", "/later"); !slices.Equal(got, want) {
		t.Errorf("after adding /later: got %q, want %q", got, want)
	}
}

// TestConcurrentWalks walks one router from many goroutines at once, as
// concurrent builds do, while it serves requests: under -race, this shows
// that walking only reads the router.
func TestConcurrentWalks(t *testing.T) {
	r := testRouter()
	src, err := New(r, Config{BaseURL: "https://example.com", Values: map[string][]string{"/docs/{slug}": {"a", "b"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := len(defaultPaths) + 2
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			ctx := context.Background()
			for range 20 {
				if i%2 == 0 {
					r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/docs/a", nil))
				}
				n := 0
				for _, err := range src.URLs(ctx, 1) {
					if err != nil {
						t.Error(err)
					}
					n++
				}
				if n != want {
					t.Errorf("%d URLs, want %d", n, want)
				}
				for p, err := range src.Pages(ctx) {
					if err != nil || p.Number != 1 {
						t.Errorf("page %+v, %v; want page 1", p, err)
					}
				}
			}
		})
	}
	wg.Wait()
}

// collect gathers an iterator's values and fails the test on an error.
func collect[V any](t *testing.T, seq iter.Seq2[V, error]) []V {
	t.Helper()
	var out []V
	for v, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}
