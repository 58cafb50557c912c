package chiroutes

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
)

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
