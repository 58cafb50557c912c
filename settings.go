package sitemap

import (
	"cmp"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/freshmap/sitemap/internal/crawllog"
	"github.com/freshmap/sitemap/internal/htmlview"
	"github.com/freshmap/sitemap/internal/indexnow"
	"github.com/freshmap/sitemap/internal/robotstxt"
	"github.com/klauspost/compress/gzip"
)

// site is the immutable result of New: every setting of Config checked
// and completed, the base URL parsed once, and the sections. Nothing in it
// changes after New, so every part reads it without a lock.
type site struct {
	base       baseURL
	indexLoc   string // the absolute URL of the index (indexName)
	indexName  string // Config.IndexName: sitemap_index.xml by default
	indexStem  string // indexName less ".xml": its HTML view's name less ".html"
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
	html       bool                     // serve the HTML view (html.go)
	htmlIndex  bool                     // let search engines index the HTML view: no X-Robots-Tag
	single     bool                     // Config.SingleFile: one <urlset> at the index's name while the site fits (single.go)
	singleMax  int64                    // the bytes of that file at most: MaxBytes (a test lowers it)
	layout     string                   // names the sections, in order, in the index's store key

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
	filePfx  string // "sitemap-NAME-" or "sitemap-"
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

// newSite checks cfg and the sections and completes them. Its errors do
// not say "sitemap:": New wraps them in ErrConfig, which does.
func newSite(cfg *Config, sections []Section) (*site, error) {
	canonical, err := parseBase(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	name := cmp.Or(cfg.IndexName, indexFile)
	if err := checkIndexName(name); err != nil {
		return nil, err
	}
	st := &site{
		base:         splitBase(canonical),
		indexLoc:     canonical + name,
		indexName:    name,
		indexStem:    strings.TrimSuffix(name, ".xml"),
		byName:       make(map[string]*section),
		ttl:          cmp.Or(cfg.TTL, defaultTTL),
		timeout:      cmp.Or(cfg.BuildTimeout, defaultBuildTimeout),
		retryAfter:   cmp.Or(cfg.RetryAfter, defaultRetryAfter),
		gzipLevel:    cmp.Or(cfg.GzipLevel, defaultGzipLevel),
		strict:       cfg.Strict,
		newsAnyAge:   cfg.NewsAnyAge,
		listExt:      ".xml.gz",
		maxBuilds:    cmp.Or(cfg.MaxBuilds, defaultMaxBuilds),
		maxWaiting:   int64(max(cmp.Or(cfg.MaxWaiting, defaultMaxWaiting), 0)),
		cacheBytes:   cmp.Or(cfg.CacheBytes, defaultCacheBytes),
		cacheEntries: cmp.Or(cfg.CacheEntries, defaultCacheEntries),
		maxPages:     maxIndexPages,
	}
	st.html, st.htmlIndex = cfg.HTML, cfg.HTML && cfg.HTMLIndexable
	if cfg.ListXML {
		st.listExt = ".xml"
	}
	if cfg.Stylesheet {
		st.xsl = htmlview.NewStylesheetFile(st.base.path)
		st.stylesheet = st.xsl.Instruction
	}
	switch {
	case cfg.TTL < 0:
		return nil, fmt.Errorf("TTL %v is negative", cfg.TTL)
	case cfg.BuildTimeout < 0:
		return nil, fmt.Errorf("BuildTimeout %v is negative", cfg.BuildTimeout)
	case cfg.RetryAfter < 0:
		return nil, fmt.Errorf("RetryAfter %v is negative", cfg.RetryAfter)
	case cfg.MaxBuilds < 0:
		return nil, fmt.Errorf("MaxBuilds %d is negative", cfg.MaxBuilds)
	case cfg.CacheEntries < 0:
		return nil, fmt.Errorf("CacheEntries %d is negative", cfg.CacheEntries)
	case st.gzipLevel < gzip.BestSpeed || st.gzipLevel > gzip.BestCompression:
		return nil, fmt.Errorf("GzipLevel %d is not 1 to 9", cfg.GzipLevel)
	case cfg.FeedEntries < 0 || cfg.FeedEntries > maxFeedEntries:
		return nil, fmt.Errorf("FeedEntries %d is not 0 to %d", cfg.FeedEntries, maxFeedEntries)
	}
	if st.feeds, err = newFeedConfig(st.base, cfg.FeedEntries, cfg.FeedAuthor); err != nil {
		return nil, err
	}
	if len(sections) == 0 {
		return nil, errors.New("no sections")
	}
	for i, sec := range sections {
		if err := st.addSection(i, sec, len(sections)); err != nil {
			return nil, err
		}
	}
	if cfg.SingleFile {
		latest := make([]bool, len(sections))
		for i, sec := range sections {
			latest[i] = sec.Latest
		}
		if err := checkSingle(st.sections, latest); err != nil {
			return nil, err
		}
		st.single, st.singleMax = true, MaxBytes
	}
	switch cc := cfg.CacheControl; cc {
	case "":
		st.headers.cacheControl = []string{defaultCacheControl}
	case "-":
	default:
		if strings.ContainsAny(cc, "\r\n") {
			return nil, errors.New("CacheControl has a line break")
		}
		st.headers.cacheControl = []string{cc}
	}
	if st.robots, err = newRobotsPolicy(cfg.Robots); err != nil {
		return nil, err
	}
	if cfg.Crawlers.VerifiedOnly { // what only verified crawlers get, no shared cache may keep (internal/crawllog)
		st.headers.cacheControl = []string{crawllog.PrivateCacheControl(first(st.headers.cacheControl))}
	}
	st.headers.retryAfter = []string{strconv.Itoa(int((st.retryAfter + time.Second - 1) / time.Second))}
	if cfg.Audit != nil {
		if err := checkAudit(cfg.Audit); err != nil {
			return nil, err
		}
	}
	if cfg.WarmUp != nil {
		if err := checkWarmUp(cfg.WarmUp, cfg); err != nil {
			return nil, err
		}
	}
	if cfg.IndexNow != nil {
		if err := checkIndexNow(cfg.IndexNow); err != nil {
			return nil, err
		}
		st.keyFile = indexnow.NewKeyFile(st.base.path, cfg.IndexNow.Key)
	}
	st.layout = layoutOf(st.sections)
	return st, nil
}

// maxIndexName is the longest Config.IndexName.
const maxIndexName = 100

// checkIndexName checks Config.IndexName: a file name ending in ".xml",
// of ASCII letters, digits, '_' and '-' before it (a '.' could make its
// HTML view's name a part's, htmlRoute), and none of the names the sitemap has for its other files (sitemap-*,
// sitemap_index-*).
func checkIndexName(name string) error {
	stem, ok := strings.CutSuffix(name, ".xml")
	if !ok || stem == "" || len(name) > maxIndexName {
		return fmt.Errorf("IndexName %q: want a file name ending in \".xml\", at most %d bytes, such as \"sitemap.xml\"", name, maxIndexName)
	}
	for i := 0; i < len(stem); i++ {
		c := stem[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return fmt.Errorf("IndexName %q: use ASCII letters, digits, '_' and '-' before \".xml\"", name)
		}
	}
	if strings.HasPrefix(name, "sitemap-") || strings.HasPrefix(name, "sitemap_index-") {
		return fmt.Errorf("IndexName %q is a name of the sitemap's other files (sitemap-*, sitemap_index-*)", name)
	}
	return nil
}

// layoutOf names the sections of an index, in order: the xxhash of their
// names, in hexadecimal.
func layoutOf(sections []*section) string {
	h := xxhash.New()
	for _, sec := range sections {
		h.WriteString(sec.name)
		h.WriteString("\x00")
	}
	return strconv.FormatUint(h.Sum64(), 16)
}

func (st *site) addSection(i int, sec Section, n int) error {
	switch {
	case sec.Source == nil:
		return fmt.Errorf("section %d (%q) has no Source", i, sec.Name)
	case sec.Name == "" && n > 1:
		return fmt.Errorf("section %d has no Name; only a single section may be unnamed", i)
	case sec.Name != "" && !validSectionName(sec.Name):
		return fmt.Errorf("section name %q: use 1 to %d lower-case letters, digits, '_' or '-', starting with a letter or digit", sec.Name, maxSectionName)
	case st.byName[sec.Name] != nil:
		return fmt.Errorf("section name %q is used twice", sec.Name)
	case sec.PageSize < 0 || sec.PageSize > MaxURLs:
		return fmt.Errorf("section %q: PageSize %d is not 0 to %d", sec.Name, sec.PageSize, MaxURLs)
	case sec.Extensions&^(extAll|ExtNone) != 0 || sec.Extensions&ExtNone != 0 && sec.Extensions != ExtNone:
		return fmt.Errorf("section %q: Extensions %#x is not a valid set", sec.Name, sec.Extensions)
	}
	ext := sec.Extensions.Declared()
	size := sec.PageSize
	rl, recent := sec.Source.(RecentLister)
	if sec.Latest && !recent {
		return fmt.Errorf("section %q: Latest needs a Source that implements RecentLister", sec.Name)
	}
	if ps, ok := sec.Source.(PageSizer); ok && !sec.Latest { // Latest: the Source's pages are not read
		n := ps.PageSize()
		switch {
		case n < 1 || n > MaxURLs:
			return fmt.Errorf("section %q: its Source's PageSize %d is not 1 to %d", sec.Name, n, MaxURLs)
		case size != 0 && size != n:
			return fmt.Errorf("section %q: PageSize %d differs from its Source's page size %d; leave it zero", sec.Name, size, n)
		}
		size = n
	}
	if ext&ExtNews != 0 {
		size = cmp.Or(size, maxNewsPageSize)
		if size > maxNewsPageSize {
			return fmt.Errorf("section %q: a news section holds at most %d URLs a file, not %d", sec.Name, maxNewsPageSize, size)
		}
	}
	var cl *cluster
	if sec.Hreflang != nil {
		var err error
		if cl, err = newCluster(sec.Name, sec.Hreflang); err != nil {
			return err
		}
		switch per := MaxURLs / cl.size(); {
		case ext&ExtNews != 0:
			return fmt.Errorf("section %q: Hreflang is not for a news section: an article has one language", sec.Name)
		case ext&ExtAlternates == 0:
			return fmt.Errorf("section %q: Hreflang needs ExtAlternates in Extensions", sec.Name)
		case size == 0:
			size = per
		case size > per:
			if s, ok := sec.Source.(sliceSource); ok && len(s.urls) <= per {
				size = per // a small site's list: its one page holds every URL, in every language
				break
			}
			return fmt.Errorf("section %q: a page size of %d URLs in %d languages makes %d entries a file, more than %d; use a page size of at most %d",
				sec.Name, size, cl.size(), size*cl.size(), MaxURLs, per)
		}
	}
	switch sec.ChangeFreq {
	case "", Always, Hourly, Daily, Weekly, Monthly, Yearly, Never:
	default:
		return fmt.Errorf("section %q: ChangeFreq %q is not one of always, hourly, daily, weekly, monthly, yearly, never", sec.Name, sec.ChangeFreq)
	}
	var priority *float64
	if p := sec.Priority; p != nil {
		if !(*p >= 0 && *p <= 1) { // true for NaN
			return fmt.Errorf("section %q: Priority %v is not 0.0 to 1.0", sec.Name, *p)
		}
		priority = new(*p) // the caller's may change after New
	}
	size = cmp.Or(size, MaxURLs)
	s := &section{index: i, name: sec.Name, src: sec.Source, pageSize: size, filePfx: "sitemap-"}
	if sec.Latest {
		s.src = latest{src: rl, size: size} // latest.go
	}
	if sec.Name != "" {
		s.filePfx = "sitemap-" + sec.Name + "-"
	} else {
		st.unnamed = s
	}
	s.feed = st.feeds.feedOf(s, sec.Source)
	specExt := ext
	if specExt == 0 {
		specExt = ExtNone // the encoder normalizes again: zero would declare the default set (TestSectionExtNone)
	}
	s.spec = pageSpec{base: st.base.url, maxURLs: size, ext: specExt, strict: st.strict, newsAnyAge: st.newsAnyAge,
		stylesheet: st.stylesheet, changeFreq: sec.ChangeFreq, priority: priority, cluster: cl}
	st.sections = append(st.sections, s)
	st.byName[sec.Name] = s
	return nil
}

func validSectionName(name string) bool {
	if len(name) > maxSectionName || name[0] == '-' || name[0] == '_' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
