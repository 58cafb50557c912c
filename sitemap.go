package sitemap

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/klauspost/compress/gzip"
	"golang.org/x/sync/singleflight"
)

// Config configures a Sitemap. Except for BaseURL, the zero value of every
// field is a working default.
type Config struct {
	// BaseURL is the scheme, host, optional port and optional path prefix of
	// the site, such as "https://example.com" or "https://example.com/shop".
	// Required. Sitemap files are served under its path, and every loc must
	// lie under it. An internationalized host is converted to punycode
	// ("https://bücher.example" serves "https://xn--bcher-kva.example/").
	// Request headers (Host, X-Forwarded-*) are never used.
	BaseURL string

	// TTL is how long a built page stays fresh. Zero means 15 minutes. An
	// expired page is still served while it is rebuilt in the background.
	TTL time.Duration
	// CacheBytes bounds the compressed bytes of the cached pages. Zero means
	// 256 MiB; negative disables the cache (every request builds). With the
	// default GOGC, the process may hold up to about twice this in heap;
	// GOMEMLIMIT keeps it closer.
	CacheBytes int64
	// CacheEntries bounds the number of cached pages. Zero means 10,000.
	CacheEntries int
	// MaxBuilds is how many pages may be built at once, which bounds the
	// queries a crawler burst can open against the Source. Zero means 2.
	MaxBuilds int
	// MaxWaiting bounds the requests waiting at once for a page to be
	// built; more get 503 with Retry-After at once. Zero means 1,000;
	// negative means no bound.
	MaxWaiting int
	// BuildTimeout bounds one build, and how long a request waits for
	// one: then it gets 503 with Retry-After, even if the Source ignores
	// its context (the build slot stays taken until the Source returns).
	// Zero means 2 minutes.
	BuildTimeout time.Duration
	// GzipLevel is the compression level, 1 (fastest) to 9 (smallest).
	// Zero means 6, the gzip default.
	GzipLevel int
	// CacheControl is the Cache-Control header of every sitemap response.
	// Zero means "public, max-age=900, stale-while-revalidate=3600"; "-"
	// sends none.
	CacheControl string
	// RetryAfter is the Retry-After of a 503, and how long a document whose
	// build failed is not built again (its last good copy, or a 503, is
	// served meanwhile). Zero means 60 seconds.
	RetryAfter time.Duration

	// ListXML makes the index list each file's .xml URL instead of its
	// .xml.gz, for clients that read XML but do not unzip (several
	// sitemap parsers and validators). The .xml is still sent
	// gzip-encoded to a client that accepts it, so this costs no bandwidth
	// with crawlers. Off by default: the .xml.gz files are what every
	// search engine reads.
	ListXML bool

	// Strict makes a URL that breaks a protocol rule, or does not fit its
	// page, fail the whole page (503 or the last good copy) instead of
	// being skipped and reported.
	Strict bool
	// OnChange, if set, is told what each rebuilt page changed: the URLs
	// added, changed (another lastmod, or any other byte of their entry)
	// and removed, derived by comparing the page with its previous copy
	// (see Change), and the URLs named with Notify. It is called from the
	// build goroutine, after the page is built, and must not block. Setting
	// it keeps 16 bytes a URL with each cached page.
	OnChange func(Change)
	// OnReject, if set, is told about every URL that was not written, with
	// the reason: an *InvalidURLError or ErrPageFull; page is 0 for a URL
	// of the section's Atom feed. It is called from the build goroutine
	// and must not block.
	OnReject func(section string, page int64, loc string, err error)
	// OnNotice, if set, is told about every URL that was written with a
	// correction, with what was corrected: ErrSelfLinkAdded, the only one
	// today. It is called from the build goroutine and must not block. Such
	// a URL is also logged at info level and counted in
	// Stats.CorrectedURLs; Strict does not fail its page.
	OnNotice func(section string, page int64, loc string, err error)
	// Logger receives build failures (error), rejected URLs (warn),
	// corrected URLs (info) and one line per build (debug). Nil means no
	// logging.
	Logger *slog.Logger
	// Now is the clock used for freshness and for the age of news articles.
	// Nil means time.Now.
	Now func() time.Time
	// NewsAnyAge writes news articles of any age. By default (false), an
	// article whose PublicationDate is more than two days before the build
	// time is skipped and reported (news.publication_date, "older than two
	// days"), as news sitemaps hold only the last two days. Either way, an
	// article dated more than five minutes after the build time is skipped
	// and reported: it is not published yet.
	NewsAnyAge bool

	// FeedEntries turns on the Atom feeds: each section whose Source
	// implements RecentLister gets one (sitemap-NAME.atom, or sitemap.atom
	// for an unnamed section) listing its FeedEntries most recently changed
	// URLs, and robots.txt names it. Zero means no feeds; at most 1,000.
	// Sections whose Source cannot list recent URLs simply have no feed:
	// that is not an error, even if no section has one.
	FeedEntries int
	// FeedAuthor is the author name of every feed (Atom requires one).
	// Empty means the host of BaseURL.
	FeedAuthor string
	// IndexNow, if set, sends the change stream (what rebuilt pages
	// changed, see Change, and the URLs given to Sitemap.Notify) to the
	// IndexNow endpoints in the background, and serves its key file at
	// BASE/KEY.txt (BASE the base URL, with its path). Nil means off: no
	// key file, and Notify does nothing. See IndexNow for its fields and
	// their defaults.
	IndexNow *IndexNow
	// Store, if set, is a cache shared with the site's other replicas,
	// such as adapters/redisstore (see Store): each document is built once
	// for all of them, every replica answers from the stored copy with the
	// same validators and clock, and Invalidate reaches every replica. The
	// replicas must have the same BaseURL, sections and TTL. Nil means
	// each replica builds and caches on its own.
	Store Store
	// Stylesheet makes the sitemap readable in a browser: every index and
	// sitemap file starts with an <?xml-stylesheet?> instruction naming
	// BASE/sitemap.xsl (BASE the base URL's path, so the same origin), which
	// is then served, and which a browser applies to show the file as a
	// table. Crawlers ignore it. Off by default: the files carry no
	// instruction and sitemap.xsl is the application's.
	Stylesheet bool
}

// Section is one named part of the sitemap tree, such as products,
// articles, static pages or news, with its own Source, page size and
// extensions.
type Section struct {
	// Name appears in file names: sitemap-NAME-N.xml.gz. It is lower-case
	// letters, digits, '_' and '-', starting with a letter or digit, at
	// most 64 bytes. One section may be unnamed ("") if it is the only one:
	// its files are sitemap-N.xml.gz.
	Name   string
	Source Source
	// PageSize is the most URLs one file may hold; URLs the Source yields
	// beyond it are reported with ErrPageFull. A Source that implements
	// PageSizer gives it: leave PageSize zero, since New refuses a value
	// that differs. Otherwise zero means 50,000, or 1,000 for a news
	// section.
	PageSize int
	// Extensions are the namespaces the section's files declare. Zero means
	// ExtImage|ExtVideo|ExtAlternates. A section whose Extensions include
	// ExtNews is a news section: PageSize at most 1,000.
	Extensions Extensions
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

// ErrConfig is wrapped by every error New returns.
var ErrConfig = errors.New("sitemap: invalid configuration")

// Sitemap serves a sitemap tree. It is an http.Handler for the sitemap
// files; Handler wraps an application to add robots.txt. Create it with New
// and stop it with Close.
type Sitemap struct {
	base       string // canonical base URL, ending in '/'
	prefix     string // its path, ending in '/'
	indexLoc   string
	sections   []*section
	byName     map[string]*section
	unnamed    *section
	robots     atomic.Pointer[robotsSet] // robots.txt lines for the current number of index files
	cache      *pageCache
	headers    headers
	gzipLevel  int
	ttl        time.Duration
	timeout    time.Duration
	retryAfter time.Duration
	strict     bool
	onChange   func(Change)
	listExt    string // the file extension the index lists: ".xml.gz" or ".xml"
	onReject   func(string, int64, string, error)
	onNotice   func(string, int64, string, error)
	newsAnyAge bool
	feeds      feedConfig // the Atom feeds (feed.go)
	log        *slog.Logger
	now        func() time.Time

	sem        chan struct{} // one token per running build
	group      singleflight.Group
	waiting    atomic.Int64 // requests waiting for a build
	maxWaiting int64        // bound on waiting; 0 for none
	clocks     *clocks
	failures   *failures
	marks      marks
	epoch      atomic.Uint64   // raised by every invalidation
	ctx        context.Context // cancelled by Close
	cancel     context.CancelFunc
	mu         sync.Mutex // guards closed and wg.Add
	closed     bool
	wg         sync.WaitGroup // background refreshes
	stats      counters
	perSection *secStats // the counters of each section (sectionstats.go)
	indexNow   *indexNow // the IndexNow sender; nil when off
	keyFile    *keyFile  // the IndexNow key file; nil when off
	stylesheet string    // the <?xml-stylesheet?> line of every file; "" when off
	xsl        *xslFile  // the stylesheet it names (xsl.go); nil when off
	shared     *shared   // the Store (shared.go); nil when off
	layout     string    // names the sections, in order, in the index's store key
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

// New checks cfg and the sections and returns a Sitemap ready to serve.
// Every configuration mistake is an error wrapping ErrConfig.
func New(cfg Config, sections ...Section) (*Sitemap, error) {
	base, err := parseBase(cfg.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	s := &Sitemap{
		base:       base,
		prefix:     basePath(base),
		indexLoc:   base + "sitemap_index.xml",
		byName:     make(map[string]*section),
		ttl:        orDefault(cfg.TTL, defaultTTL),
		timeout:    orDefault(cfg.BuildTimeout, defaultBuildTimeout),
		retryAfter: orDefault(cfg.RetryAfter, defaultRetryAfter),
		gzipLevel:  orDefault(cfg.GzipLevel, defaultGzipLevel),
		strict:     cfg.Strict,
		onChange:   cfg.OnChange,
		listExt:    ".xml.gz",
		onReject:   cfg.OnReject,
		onNotice:   cfg.OnNotice,
		newsAnyAge: cfg.NewsAnyAge,
		log:        cfg.Logger,
		now:        cfg.Now,
	}
	if cfg.ListXML {
		s.listExt = ".xml"
	}
	if cfg.Stylesheet {
		s.xsl = newXSLFile(s.prefix)
		s.stylesheet = s.xsl.instruction
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	switch {
	case cfg.TTL < 0:
		return nil, fmt.Errorf("%w: TTL %v is negative", ErrConfig, cfg.TTL)
	case cfg.BuildTimeout < 0:
		return nil, fmt.Errorf("%w: BuildTimeout %v is negative", ErrConfig, cfg.BuildTimeout)
	case cfg.RetryAfter < 0:
		return nil, fmt.Errorf("%w: RetryAfter %v is negative", ErrConfig, cfg.RetryAfter)
	case cfg.MaxBuilds < 0:
		return nil, fmt.Errorf("%w: MaxBuilds %d is negative", ErrConfig, cfg.MaxBuilds)
	case cfg.CacheEntries < 0:
		return nil, fmt.Errorf("%w: CacheEntries %d is negative", ErrConfig, cfg.CacheEntries)
	case s.gzipLevel < gzip.BestSpeed || s.gzipLevel > gzip.BestCompression:
		return nil, fmt.Errorf("%w: GzipLevel %d is not 1 to 9", ErrConfig, cfg.GzipLevel)
	case cfg.FeedEntries < 0 || cfg.FeedEntries > maxFeedEntries:
		return nil, fmt.Errorf("%w: FeedEntries %d is not 0 to %d", ErrConfig, cfg.FeedEntries, maxFeedEntries)
	}
	if s.feeds, err = newFeedConfig(base, cfg.FeedEntries, cfg.FeedAuthor); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if len(sections) == 0 {
		return nil, fmt.Errorf("%w: no sections", ErrConfig)
	}
	for i, sec := range sections {
		if err := s.addSection(i, sec, len(sections)); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrConfig, err)
		}
	}
	switch cc := cfg.CacheControl; cc {
	case "":
		s.headers.cacheControl = []string{defaultCacheControl}
	case "-":
	default:
		if strings.ContainsAny(cc, "\r\n") {
			return nil, fmt.Errorf("%w: CacheControl has a line break", ErrConfig)
		}
		s.headers.cacheControl = []string{cc}
	}
	s.headers.retryAfter = []string{strconv.Itoa(int((s.retryAfter + time.Second - 1) / time.Second))}
	s.sem = make(chan struct{}, orDefault(cfg.MaxBuilds, defaultMaxBuilds))
	s.maxWaiting = int64(max(orDefault(cfg.MaxWaiting, defaultMaxWaiting), 0))
	s.clocks, s.failures, s.marks.m = newClocks(), newFailures(), make(map[pageKey]uint64)
	s.perSection = newSecStats(s.sections)
	s.cache = newPageCache(orDefault(cfg.CacheBytes, defaultCacheBytes), orDefault(cfg.CacheEntries, defaultCacheEntries), s.perSection.of)
	if cfg.IndexNow != nil { // last: it starts goroutines, which only Close stops
		if s.indexNow, err = newIndexNow(cfg.IndexNow, base, s.log, s.now); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrConfig, err)
		}
		s.keyFile = newKeyFile(s.prefix, cfg.IndexNow.Key)
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	if cfg.Store != nil {
		s.shared = newShared(cfg.Store, base, s.log)
		s.layout = layoutOf(s.sections)
		broken := s.subscribe() // before the first request; follow retries if the store did not answer
		s.background(func() { s.follow(broken) })
	}
	return s, nil
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

func orDefault[T int | int64 | time.Duration](v, def T) T {
	if v == 0 {
		return def
	}
	return v
}

func (s *Sitemap) addSection(i int, sec Section, n int) error {
	switch {
	case sec.Source == nil:
		return fmt.Errorf("section %d (%q) has no Source", i, sec.Name)
	case sec.Name == "" && n > 1:
		return fmt.Errorf("section %d has no Name; only a single section may be unnamed", i)
	case sec.Name != "" && !validSectionName(sec.Name):
		return fmt.Errorf("section name %q: use 1 to %d lower-case letters, digits, '_' or '-', starting with a letter or digit", sec.Name, maxSectionName)
	case s.byName[sec.Name] != nil:
		return fmt.Errorf("section name %q is used twice", sec.Name)
	case sec.PageSize < 0 || sec.PageSize > MaxURLs:
		return fmt.Errorf("section %q: PageSize %d is not 0 to %d", sec.Name, sec.PageSize, MaxURLs)
	case sec.Extensions&^(extAll|ExtNone) != 0 || sec.Extensions&ExtNone != 0 && sec.Extensions != ExtNone:
		return fmt.Errorf("section %q: Extensions %#x is not a valid set", sec.Name, sec.Extensions)
	}
	ext := sec.Extensions.normalize()
	size := sec.PageSize
	if ps, ok := sec.Source.(PageSizer); ok {
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
		size = orDefault(size, maxNewsPageSize)
		if size > maxNewsPageSize {
			return fmt.Errorf("section %q: a news section holds at most %d URLs a file, not %d", sec.Name, maxNewsPageSize, size)
		}
	}
	size = orDefault(size, MaxURLs)
	st := &section{index: i, name: sec.Name, src: sec.Source, pageSize: size, filePfx: "sitemap-"}
	if sec.Name != "" {
		st.filePfx = "sitemap-" + sec.Name + "-"
	} else {
		s.unnamed = st
	}
	st.feed = s.feeds.feedOf(st, sec.Source)
	st.spec = pageSpec{base: s.base, maxURLs: size, ext: ext, strict: s.strict, newsAnyAge: s.newsAnyAge,
		stylesheet: s.stylesheet, notice: func(page int64, loc string, err error) { s.corrected(st, page, loc, err) }}
	s.sections = append(s.sections, st)
	s.byName[sec.Name] = st
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

// IndexURL is the absolute URL of the sitemap index: its first file, when
// more than 50,000 pages make it several (robots.txt names them all).
func (s *Sitemap) IndexURL() string { return s.indexLoc }

// Close stops background rebuilds and waits for them to end. Requests
// after Close are answered from the cache; builds fail with 503. With
// IndexNow, Close then sends the URLs still queued, for at most 10
// seconds, and drops (counts and logs) what is left; URLs notified
// afterwards are dropped.
func (s *Sitemap) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	s.wg.Wait()
	if s.indexNow != nil {
		ctx, cancel := context.WithTimeout(context.Background(), indexNowCloseTimeout)
		s.indexNow.close(ctx)
		cancel()
	}
	return nil
}

// basePath returns the path of a canonical base URL, such as "/" or "/shop/".
func basePath(base string) string {
	rest := base[strings.Index(base, "://")+len("://"):]
	return rest[strings.IndexByte(rest, '/'):]
}
