package sitemap

import (
	"strings"
	"time"

	"github.com/freshmap/sitemap/internal/htmlview"
	"github.com/freshmap/sitemap/internal/indexnow"
	"github.com/freshmap/sitemap/internal/respond"
	"github.com/freshmap/sitemap/internal/robotstxt"
	"github.com/freshmap/sitemap/internal/xmlenc"
)

// site is the immutable result of New: every setting of Config checked
// and completed, the base URL parsed once, and the sections. Nothing in it
// changes after New, so every part reads it without a lock.
type site struct {
	siteNames  // the files' names (route.go)
	base       baseURL
	indexLoc   string // the absolute URL of the index (indexName)
	sections   []*section
	byName     map[string]*section
	unnamed    *section // the one unnamed section, if it is
	headers    headers
	gzipLevel  int
	ttl        time.Duration
	timeout    time.Duration
	retryAfter time.Duration
	strict     bool
	newsAnyAge bool
	listExt    string                   // the file extension the index lists: ".xml.gz" or ".xml"
	feeds      feedConfig               // the Atom feeds (feed.go)
	stylesheet string                   // the <?xml-stylesheet?> line of every file; "" when off
	xsl        *htmlview.StylesheetFile // the stylesheet it names; nil when off
	keyFile    *indexnow.KeyFile        // the IndexNow key file; nil when off
	htmlIndex  bool                     // let search engines index the HTML view: no X-Robots-Tag
	single     bool                     // Config.SingleFile: one <urlset> at the index's name while the site fits (index.go)
	singleMax  int64                    // the bytes of that file at most: MaxBytes (a test lowers it)

	robots *robotstxt.Policy // Config.Robots; nil when it adds nothing

	maxBuilds    int
	maxWaiting   int64 // 0 for no bound
	maxPages     int64 // the pages an index lists at most: maxIndexPages (a test lowers it)
	cacheBytes   int64
	cacheEntries int
}

type section struct {
	index    int
	name     string
	src      Source
	spec     pageSpec
	pageSize int
	feed     *feed // its Atom feed; nil if it has none
}

// headers are the fixed response header values, computed once.
type headers struct {
	cacheControl []string
	retryAfter   []string
}

// Defaults of Config, and limits of a Section.
const (
	defaultTTL          = 15 * time.Minute
	defaultCacheBytes   = 256 << 20
	defaultCacheEntries = 10_000
	defaultMaxBuilds    = 2
	defaultMaxWaiting   = 1000
	defaultBuildTimeout = 2 * time.Minute
	defaultRetryAfter   = 60 * time.Second
	defaultGzipLevel    = 6
	defaultCacheControl = "public, max-age=900, stale-while-revalidate=3600"
	maxNewsPageSize     = 1000
	maxSectionName      = 64
	maxFeedEntries      = 1000
)

// parseBase checks a configured base URL and returns it in canonical form
// (xmlenc.ParseBase): lower-case scheme and host, no query or fragment,
// and a path that ends in '/'. Every loc a sitemap lists must start with it.
func parseBase(s string) (string, error) { return xmlenc.ParseBase(s) }

// baseURL is the canonical base URL, split once.
type baseURL struct {
	url    string // "https://example.com/shop/": scheme, host, path, ending in '/'
	scheme string // "https"
	host   string // "example.com", with its port if it has one
	path   string // "/shop/"
}

func splitBase(canonical string) baseURL {
	scheme, rest, _ := strings.Cut(canonical, "://")
	i := strings.IndexByte(rest, '/')
	return baseURL{url: canonical, scheme: scheme, host: rest[:i], path: rest[i:]}
}

// lastModHeader is the Last-Modified header value of t, or nil for none
// (internal/respond).
func lastModHeader(t time.Time) []string { return respond.LastModHeader(t) }
