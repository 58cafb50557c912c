package chiroutes

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/freshmap/sitemap"
	"github.com/go-chi/chi/v5"
)

// expansion is one key of Config.Values or Config.Paths with the concrete
// paths that stand for its pattern.
type expansion struct {
	field   string // "Values" or "Paths"
	pattern string
	paths   []string
}

func (e expansion) errorf(format string, args ...any) error {
	return fmt.Errorf("chiroutes: %s[%q]: "+format, append([]any{e.field, e.pattern}, args...)...)
}

// page is one path to list and the route pattern it stands for.
type page struct{ pattern, path string }

// list walks the router and returns its pages' URLs in order of path, with
// Exclude and Annotate applied. chi.Walk and Find only read the router.
func (s *Source) list(ctx context.Context) ([]sitemap.URL, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	patterns := map[string]bool{} // GET route patterns → has parameters
	err := chi.Walk(s.r, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		if method == http.MethodGet {
			patterns[route] = paramCount(route) > 0
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("chiroutes: walking the router: %w", err)
	}

	var pages []page
	for pattern, params := range patterns {
		if !params {
			pages = append(pages, page{pattern, pattern})
		}
	}
	for _, e := range s.expand {
		params, ok := patterns[e.pattern]
		if !ok {
			return nil, e.errorf("no GET route has that pattern (those with parameters: %s)",
				strings.Join(paramPatterns(patterns), ", "))
		}
		for _, p := range e.paths {
			if got := s.r.Find(chi.NewRouteContext(), http.MethodGet, p); got != e.pattern {
				return nil, e.errorf("path %q is routed to %q, not to that pattern", p, got)
			}
			if params { // a parameterless route is listed already
				pages = append(pages, page{e.pattern, p})
			}
		}
	}

	slices.SortFunc(pages, func(a, b page) int { return strings.Compare(a.path, b.path) })
	pages = slices.CompactFunc(pages, func(a, b page) bool { return a.path == b.path })
	urls := make([]sitemap.URL, 0, len(pages))
	for _, p := range pages {
		if excluded(p.path) || s.exclude != nil && s.exclude(p.pattern, p.path) {
			continue
		}
		u := sitemap.URL{Loc: s.base + p.path}
		if s.annotate != nil {
			s.annotate(p.pattern, p.path, &u)
		}
		urls = append(urls, u)
	}
	return urls, nil
}

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
