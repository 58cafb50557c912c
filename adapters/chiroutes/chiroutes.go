// Package chiroutes makes a [sitemap.Source] of the pages a chi router
// serves, so that an application's static pages join its sitemap without a
// hand-kept list.
//
// The Source walks the router with chi.Walk, mounted sub-routers included,
// each time the sitemap builds the section, and lists every route that
// answers GET and has no URL parameter, such as "/", "/about" and
// "/docs/". A route with parameters ("/docs/{slug}") or a wildcard
// ("/static/*") is skipped unless [Config.Values] or [Config.Paths] says
// which concrete paths stand for it.
//
// Since the routes are read when the sitemap is built, not in [New], the
// Source can be made before the routes are declared, and the sitemap's
// middleware can take its place among chi's middlewares, which chi wants
// before any route:
//
//	r := chi.NewRouter()
//	pages, err := chiroutes.New(r, chiroutes.Config{
//		BaseURL: "https://example.com",
//		Values:  map[string][]string{"/docs/{slug}": {"intro", "install"}},
//	})
//	if err != nil {
//		log.Fatal(err)
//	}
//	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://example.com"},
//		sitemap.Section{Name: "pages", Source: pages},
//		sitemap.Section{Name: "products", Source: products})
//	if err != nil {
//		log.Fatal(err)
//	}
//	defer sm.Close()
//	r.Use(middleware.Logger) // chi's middlewares see robots.txt and the sitemaps too
//	r.Use(sm.Handler)
//	r.Get("/", home)
//	r.Get("/docs/{slug}", doc)
//	http.ListenAndServe(":8080", r)
//
// # Errors
//
// New reports every mistake it can find without the routes: a bad BaseURL,
// a key of Values without exactly one parameter, an empty value, a Paths
// entry that is not a path. The rest depends on the routes, so it appears
// when the router is walked: a key of Values or Paths that is no GET
// route's pattern, or an expansion that the router sends to another route.
// Such an error fails the build, as any Source error does: the sitemap
// logs it (to its Config.Logger) and serves the section's last good copy,
// or answers 503 if it has none. To find these mistakes at start-up instead, call
// [Source.Check] once the routes are declared.
//
// # Freshness
//
// Each build of the section's index or of one of its files walks the
// router once, and calls Exclude and Annotate once per route, so a route
// added later appears once the sitemap rebuilds (after its TTL). Walking
// only reads the router, so any number of builds may walk it at once;
// declaring routes while requests are being served is, as always with chi,
// not safe. Pages whose set changes at run time (articles,
// products) belong in a Source of their own, such as adapters/sqlsource,
// in another section.
package chiroutes

import (
	"context"
	"errors"
	"iter"
	"maps"
	"slices"

	"github.com/freshmap/sitemap"
	"github.com/go-chi/chi/v5"
)

// pageSize is the most URLs a page holds: the protocol's limit, which a
// router's routes practically never reach.
const pageSize = 50_000

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
	// "/docs/getting%20started". New reads the map; later changes to it
	// are not seen.
	Values map[string][]string

	// Paths expands routes with any number of parameters: keys are route
	// patterns as for Values, and values are the concrete paths that stand
	// for them, such as "/blog/{year}/{slug}": {"/blog/2024/hello"}. A
	// pattern may be in both Values and Paths. New reads the map; later
	// changes to it are not seen.
	Paths map[string][]string

	// Exclude, if set, is asked about every page that would be listed, with
	// its route pattern and its path, and leaves it out by returning true.
	// These are always left out: /robots.txt, /favicon.ico and sitemap files
	// (a last segment starting with "sitemap" and ending in ".xml",
	// ".xml.gz" or ".txt"). It is called on every build, possibly from
	// several builds at once.
	Exclude func(pattern, path string) bool

	// Annotate, if set, is called for every page kept, in order, with its
	// route pattern, its path and its URL, whose Loc is set. It may set any
	// other field, such as LastMod, ChangeFreq, Priority or Alternates. It
	// is called on every build, possibly from several builds at once.
	Annotate func(pattern, path string, u *sitemap.URL)
}

// Source is the sitemap.Source of a chi router's GET routes, made by New.
// It walks the router on every call of Pages, URLs and Check, lists the
// pages in order of path, 50,000 a page, and is safe for concurrent use.
type Source struct {
	r        chi.Routes
	base     string
	expand   []expansion // from Values, then Paths, each in order of pattern
	exclude  func(pattern, path string) bool
	annotate func(pattern, path string, u *sitemap.URL)
}

var (
	_ sitemap.Source    = (*Source)(nil)
	_ sitemap.PageSizer = (*Source)(nil)
)

// New returns the Source of the GET routes of r. It does not read the
// routes, which may be declared afterwards; it returns an error for a nil
// router, a bad BaseURL, and expansions that are wrong whatever the routes:
// a Values key without exactly one parameter, an empty value, or a Paths
// value that is not a path. See the package documentation for the errors
// that depend on the routes.
func New(r chi.Routes, cfg Config) (*Source, error) {
	if r == nil {
		return nil, errors.New("chiroutes: nil router")
	}
	base, err := parseBase(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	s := &Source{r: r, base: base, exclude: cfg.Exclude, annotate: cfg.Annotate}
	for _, field := range []struct {
		name string
		m    map[string][]string
		path func(pattern, v string) (string, error)
	}{
		{"Values", cfg.Values, fillParam},
		{"Paths", cfg.Paths, checkPath},
	} {
		for _, pattern := range slices.Sorted(maps.Keys(field.m)) {
			e := expansion{field: field.name, pattern: pattern}
			for _, v := range field.m[pattern] {
				p, err := field.path(pattern, v)
				if err != nil {
					return nil, e.errorf("%w", err)
				}
				e.paths = append(e.paths, p)
			}
			s.expand = append(s.expand, e)
		}
	}
	return s, nil
}

// PageSize implements sitemap.PageSizer: a page holds up to 50,000 URLs,
// so leave the section's PageSize zero.
func (s *Source) PageSize() int { return pageSize }

// Pages walks the router and yields its one page, or none if it lists no
// route (more than 50,000 routes make more pages). A route-dependent
// mistake in the Config is yielded as an error.
func (s *Source) Pages(ctx context.Context) iter.Seq2[sitemap.PageInfo, error] {
	return func(yield func(sitemap.PageInfo, error) bool) {
		urls, err := s.list(ctx)
		if err != nil {
			yield(sitemap.PageInfo{}, err)
			return
		}
		for p, err := range sitemap.FromSlice(urls, pageSize).Pages(ctx) {
			if !yield(p, err) {
				return
			}
		}
	}
}

// URLs walks the router and yields the URLs of page n, in order of path. A
// route-dependent mistake in the Config is yielded as an error.
func (s *Source) URLs(ctx context.Context, n int64) iter.Seq2[sitemap.URL, error] {
	return func(yield func(sitemap.URL, error) bool) {
		urls, err := s.list(ctx)
		if err != nil {
			yield(sitemap.URL{}, err)
			return
		}
		for u, err := range sitemap.FromSlice(urls, pageSize).URLs(ctx, n) {
			if !yield(u, err) {
				return
			}
		}
	}
}

// Check walks the router as a build does and returns the error a build
// would meet, such as a key of Values that names no GET route. Call it
// once the routes are declared, or in a test, to find such a mistake
// before a crawler does.
func (s *Source) Check(ctx context.Context) error {
	_, err := s.list(ctx)
	return err
}

// URLs walks r now and returns the URLs that New's Source would list, for
// an application that combines them with others in a Source of its own.
func URLs(r chi.Routes, cfg Config) ([]sitemap.URL, error) {
	s, err := New(r, cfg)
	if err != nil {
		return nil, err
	}
	return s.list(context.Background())
}
