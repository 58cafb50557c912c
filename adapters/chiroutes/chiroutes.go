// Package chiroutes makes a [sitemap.Source] of the pages a chi router
// serves, so that an application's static pages join its sitemap without a
// hand-kept list.
//
// [New] walks the router with chi.Walk, mounted sub-routers included, and
// keeps every route that answers GET and has no URL parameter, such as
// "/", "/about" and "/docs/". A route with parameters ("/docs/{slug}") or a
// wildcard ("/static/*") is skipped unless [Config.Values] or
// [Config.Paths] says which concrete paths stand for it.
//
//	src, err := chiroutes.New(r, chiroutes.Config{
//		BaseURL: "https://example.com",
//		Values:  map[string][]string{"/docs/{slug}": {"intro", "install"}},
//	})
//	if err != nil {
//		log.Fatal(err)
//	}
//	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://example.com"},
//		sitemap.Section{Name: "pages", Source: src},
//		sitemap.Section{Name: "products", Source: products})
//	…
//	http.ListenAndServe(":8080", sm.Handler(r))
//
// Wrap the router with the sitemap's Handler as above rather than calling
// r.Use(sm.Handler): chi wants middlewares before routes, and New needs the
// routes to be there.
//
// The list is computed once, in New, because a router's routes are fixed
// once it is built: the Source then serves it from memory in a
// deterministic order (sorted by path), and Exclude and Annotate are called
// once per route, never per request. Pages whose set changes at run time
// (articles, products) belong in a Source of their own, such as
// adapters/sqlsource, in another section.
package chiroutes

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/freshmap/sitemap"
	"github.com/go-chi/chi/v5"
)

// Config configures New. Except for BaseURL, the zero value of every field
// is a working default.
type Config struct {
	// BaseURL is the scheme, host and optional path prefix under which the
	// router is served, such as "https://example.com" or
	// "https://example.com/app". Required. Every URL is BaseURL followed by a
	// route's path.
	BaseURL string

	// Values expands routes with exactly one parameter or wildcard. Keys are
	// route patterns exactly as chi reports them, regular expressions
	// included ("/docs/{slug}", "/users/{id:[0-9]+}", "/files/*"); each value
	// is percent-escaped (a wildcard's value segment by segment, keeping
	// its slashes) and put in the parameter's place:
	// "/docs/{slug}": {"intro", "getting started"} gives "/docs/intro" and
	// "/docs/getting%20started".
	Values map[string][]string

	// Paths expands routes with any number of parameters: keys are route
	// patterns as for Values, and values are the concrete paths that stand
	// for them, such as "/blog/{year}/{slug}": {"/blog/2024/hello"}. A
	// pattern may be in both Values and Paths.
	Paths map[string][]string

	// Exclude, if set, is asked about every page that would be listed, with
	// its route pattern and its path, and leaves it out by returning true.
	// These are always left out: /robots.txt, /favicon.ico and sitemap files
	// (a last segment starting with "sitemap" and ending in ".xml",
	// ".xml.gz" or ".txt").
	Exclude func(pattern, path string) bool

	// Annotate, if set, is called for every page kept, in order, with its
	// route pattern, its path and its URL, whose Loc is set. It may set any
	// other field, such as LastMod, ChangeFreq, Priority or Alternates.
	Annotate func(pattern, path string, u *sitemap.URL)
}

// New returns a Source of the GET routes of r, computed once, in order of
// path, one sitemap page per 50,000 URLs. It returns an error for a bad
// BaseURL and for expansions that do not fit the router: a key of Values
// or Paths that is no GET route's pattern, a Values key without exactly
// one parameter, an empty value, or a path that r does not route to its
// key's pattern. A route with parameters and no expansion is not an
// error: it is skipped.
func New(r chi.Routes, cfg Config) (sitemap.Source, error) {
	urls, err := URLs(r, cfg)
	if err != nil {
		return nil, err
	}
	return sitemap.FromSlice(urls, 0), nil
}

// URLs returns the URLs that New serves, for an application that combines
// them with others in a Source of its own.
func URLs(r chi.Routes, cfg Config) ([]sitemap.URL, error) {
	if r == nil {
		return nil, errors.New("chiroutes: nil router")
	}
	base, err := parseBase(cfg.BaseURL)
	if err != nil {
		return nil, err
	}

	patterns := map[string]bool{} // GET route patterns → has parameters
	err = chi.Walk(r, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if method == http.MethodGet {
			patterns[route] = paramCount(route) > 0
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("chiroutes: walking the router: %w", err)
	}

	type page struct{ pattern, path string }
	var pages []page
	for pattern, params := range patterns {
		if !params {
			pages = append(pages, page{pattern, pattern})
		}
	}
	for _, field := range []struct {
		name   string
		m      map[string][]string
		expand func(pattern, v string) (string, error)
	}{
		{"Values", cfg.Values, fillParam},
		{"Paths", cfg.Paths, checkPath},
	} {
		for _, pattern := range slices.Sorted(maps.Keys(field.m)) {
			list := field.m[pattern]
			params, ok := patterns[pattern]
			if !ok {
				return nil, fmt.Errorf("chiroutes: %s[%q]: no GET route has that pattern (those with parameters: %s)",
					field.name, pattern, strings.Join(paramPatterns(patterns), ", "))
			}
			for _, v := range list {
				p, err := field.expand(pattern, v)
				if err != nil {
					return nil, fmt.Errorf("chiroutes: %s[%q]: %w", field.name, pattern, err)
				}
				if got := r.Find(chi.NewRouteContext(), http.MethodGet, p); got != pattern {
					return nil, fmt.Errorf("chiroutes: %s[%q]: path %q is routed to %q, not to that pattern", field.name, pattern, p, got)
				}
				if params { // a parameterless route is listed already
					pages = append(pages, page{pattern, p})
				}
			}
		}
	}

	slices.SortFunc(pages, func(a, b page) int { return strings.Compare(a.path, b.path) })
	pages = slices.CompactFunc(pages, func(a, b page) bool { return a.path == b.path })
	urls := make([]sitemap.URL, 0, len(pages))
	for _, p := range pages {
		if excluded(p.path) || cfg.Exclude != nil && cfg.Exclude(p.pattern, p.path) {
			continue
		}
		u := sitemap.URL{Loc: base + p.path}
		if cfg.Annotate != nil {
			cfg.Annotate(p.pattern, p.path, &u)
		}
		urls = append(urls, u)
	}
	return urls, nil
}

// parseBase checks an absolute http(s) URL without query or fragment and
// returns it with a lower-case scheme and host and no trailing slash.
func parseBase(s string) (string, error) {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return "", fmt.Errorf("chiroutes: BaseURL: %w", err)
	case u.Scheme != "http" && u.Scheme != "https", u.Host == "", u.Opaque != "":
		return "", fmt.Errorf("chiroutes: BaseURL %q is not an absolute http or https URL", s)
	case u.User != nil, u.RawQuery != "", u.ForceQuery, u.Fragment != "":
		return "", fmt.Errorf("chiroutes: BaseURL %q must be a scheme, a host and an optional path, without user, query or fragment", s)
	}
	return u.Scheme + "://" + strings.ToLower(u.Host) + strings.TrimSuffix(u.EscapedPath(), "/"), nil
}

// excluded reports the paths that are never pages: robots.txt, the
// favicon and sitemap files.
func excluded(path string) bool {
	last := path[strings.LastIndexByte(path, '/')+1:]
	switch {
	case path == "/robots.txt", path == "/favicon.ico":
		return true
	case strings.HasPrefix(last, "sitemap"):
		return strings.HasSuffix(last, ".xml") || strings.HasSuffix(last, ".xml.gz") || strings.HasSuffix(last, ".txt")
	}
	return false
}

// paramSpans returns the [start, end) byte ranges of the parameters
// ("{name}", "{name:regexp}", whose regexp may hold braces) and wildcards
// ("*") of a chi route pattern.
func paramSpans(pattern string) [][2]int {
	var spans [][2]int
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '*':
			spans = append(spans, [2]int{i, i + 1})
		case '{':
			depth, j := 0, i
			for ; j < len(pattern); j++ {
				if pattern[j] == '{' {
					depth++
				} else if pattern[j] == '}' {
					if depth--; depth == 0 {
						break
					}
				}
			}
			spans = append(spans, [2]int{i, min(j+1, len(pattern))})
			i = j
		}
	}
	return spans
}

func paramCount(pattern string) int { return len(paramSpans(pattern)) }

// paramPatterns lists, sorted, the patterns with parameters.
func paramPatterns(patterns map[string]bool) []string {
	var list []string
	for p, params := range patterns {
		if params {
			list = append(list, p)
		}
	}
	slices.Sort(list)
	if list == nil {
		list = []string{"none"}
	}
	return list
}

// fillParam puts v, escaped, in the place of pattern's only parameter.
func fillParam(pattern, v string) (string, error) {
	spans := paramSpans(pattern)
	if len(spans) != 1 {
		return "", fmt.Errorf("the pattern has %d parameters, and Values needs exactly one (use Paths)", len(spans))
	}
	if v == "" {
		return "", errors.New("empty value")
	}
	s := spans[0]
	var esc string
	if pattern[s[0]] == '*' {
		segs := strings.Split(v, "/")
		for i, seg := range segs {
			segs[i] = url.PathEscape(seg)
		}
		esc = strings.Join(segs, "/")
	} else {
		esc = url.PathEscape(v)
	}
	return pattern[:s[0]] + esc + pattern[s[1]:], nil
}

// checkPath accepts p as a concrete path: it must start with '/' and hold
// no query or fragment.
func checkPath(_, p string) (string, error) {
	if !strings.HasPrefix(p, "/") || strings.ContainsAny(p, "?#") {
		return "", fmt.Errorf("%q is not a path (it must start with '/' and have no query or fragment)", p)
	}
	return p, nil
}
