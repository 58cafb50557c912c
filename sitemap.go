package sitemap

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/freshmap/sitemap/internal/crawllog"
	"github.com/freshmap/sitemap/internal/hreflang"
	"github.com/freshmap/sitemap/internal/htmlview"
	"github.com/freshmap/sitemap/internal/indexnow"
	"github.com/freshmap/sitemap/internal/paths"
	"github.com/freshmap/sitemap/internal/respond"
	"github.com/freshmap/sitemap/internal/secstats"
	"github.com/freshmap/sitemap/internal/warmup"
	"github.com/klauspost/compress/gzip"
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
	// CacheBytes bounds the compressed bytes of the cached pages, with the
	// forms made from them: text forms, HTML views, and the decompressed
	// copies of pages often asked for as plain XML (a quarter of it at
	// most). Zero means 256 MiB; negative disables the cache (every request
	// builds). With the
	// default GOGC, the process may hold up to about twice this in heap;
	// GOMEMLIMIT keeps it closer.
	CacheBytes int64
	// CacheEntries bounds the number of cached pages. Zero means 10,000.
	CacheEntries int
	// MaxBuilds is how many pages may be built at once, which bounds the
	// queries a crawler burst can open against the Source. A build that a
	// request waits for takes the next slot freed before the background
	// rebuilds and refreshes. Zero means 2.
	MaxBuilds int
	// MaxWaiting bounds the requests waiting at once for a page to be
	// built; more get 503 with Retry-After at once. Zero means 1,000;
	// negative means no bound.
	MaxWaiting int
	// BuildTimeout bounds one build, how long a request waits for one
	// (then it gets 503 with Retry-After, even if the Source ignores its
	// context: the build slot stays taken until the Source returns), and
	// how long Close waits for the builds under way. Zero means 2 minutes.
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
	// being skipped, or written without the element at fault, and
	// reported. A self link added (ErrSelfLinkAdded) does not fail it.
	Strict bool
	// OnChange, if set, is told what each rebuilt page changed: the URLs
	// added, changed (another lastmod, or any other byte of their entry)
	// and removed, derived by comparing the page with its previous copy
	// (see Change), and the URLs named with Notify. It is called from the
	// build goroutine, after the page is built, and must not block. Setting
	// it keeps 16 bytes a URL with each cached page.
	OnChange func(Change)
	// OnPurge, if set, is told the files whose bytes changed, for a CDN
	// in front of the sitemap to purge (see Purge): a file is told when a
	// build made other bytes than the ones last built, or found it gone
	// (404), by the replica that built it, so once per fleet. Files are
	// gathered for a second and told in one call, on a goroutine of its
	// own, with a context that ends after 30 seconds or at Close; an
	// error is logged, not retried. A file built for the first time is
	// not told. With it set, each response of a file names it in its
	// Surrogate-Key and Cache-Tag headers, as Purge.Keys do.
	OnPurge func(ctx context.Context, p Purge) error
	// OnReject, if set, is told about every URL that was not written, with
	// the reason: an *InvalidURLError (of its loc, or of its news article
	// in a section that declares ExtNews) or ErrPageFull; page is 0 for a
	// URL of the section's Atom feed. It is called from the build
	// goroutine and must not block.
	OnReject func(section string, page int64, loc string, err error)
	// OnNotice, if set, is told about every URL that was written with a
	// correction, once per correction: each element left out for breaking
	// a rule (an *InvalidURLError whose Dropped names it, matching
	// ErrElementDropped: a bad image, video, alternate, lastmod, …), and
	// ErrSelfLinkAdded. It is called from the build goroutine and must not
	// block. Such a URL counts once in Stats.CorrectedURLs, and each
	// element left out in Stats.DroppedElements.
	OnNotice func(section string, page int64, loc string, err error)
	// Logger receives build failures (error); for each build, one line
	// for the URLs it skipped and the elements it left out (warn) and one
	// for its other corrections (info), each with counts by reason and the
	// first three URLs, however many there are; and one line per build
	// (debug). Nil means slog.Default(), as net/http's servers log to the
	// standard logger when given none: a failing Source is never silent.
	// To log nothing, give slog.New(slog.DiscardHandler).
	Logger *slog.Logger
	// Now is the clock used for freshness and for the age of news articles.
	// Nil means time.Now.
	Now func() time.Time
	// NewsAnyAge writes news articles of any age. By default (false), an
	// article whose PublicationDate is more than two days before the build
	// time is skipped with its URL and reported (news.publication_date,
	// "older than two days"), as news sitemaps hold only the last two
	// days. Either way, an article dated more than five minutes after the
	// build time is skipped and reported: it is not published yet.
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
	// ClockFile, if set, is the path of a file where the Sitemap keeps the
	// content clocks of its files (made if missing; its directory must
	// exist), so that a restart without a Store keeps every file's
	// Last-Modified and index <lastmod>: a file whose bytes did not change
	// keeps its clock, and 304s, across restarts. Each new clock is written
	// to disk before it is served. Without a Store, ClockFile or a Source
	// that reports PageInfo.Changed, a restart gives every file a
	// Last-Modified after the process started (docs/content-clock.md).
	// One file per Sitemap; "" means none.
	ClockFile string
	// Stylesheet makes the sitemap readable in a browser: every index and
	// sitemap file starts with an <?xml-stylesheet?> instruction naming
	// BASE/sitemap.xsl (BASE the base URL's path, so the same origin), which
	// is then served, and which a browser applies to show the file as a
	// table. Crawlers ignore it. Off by default: the files carry no
	// instruction and sitemap.xsl is the application's.
	Stylesheet bool
	// Audit, if set, turns on the self-audit: after a page is built, a
	// sample of its URLs is requested in process through the application
	// that Handler wraps, and checked (status 200, no redirect, no
	// noindex, the canonical link, robots.txt); see Audit and
	// Sitemap.Audit. Nil means off.
	Audit *Audit
	// Crawlers configures the crawl log (Sitemap.CrawlLog): the last
	// fetch of each file by each crawler family, verified by address
	// when given the families' published ranges. The zero value turns
	// it off; any field set turns it on; see Crawlers.
	Crawlers Crawlers
	// Robots asks AI crawlers, by purpose, in the robots.txt the Handler
	// serves: rules for training, search and user-triggered fetchers, and
	// a Content-Signal line, merged into the application's robots.txt
	// without changing its answers for any agent it names. Such lines
	// ask and do not enforce. The zero value adds nothing; see
	// RobotsPolicy.
	Robots RobotsPolicy

	// HTML serves an HTML view of the sitemap for people, with no script:
	// BASE/sitemap_index.html lists every file with its lastmod and URL
	// count, and BASE/sitemap-NAME-N.html lists a file's URLs with their
	// lastmod, images, alternates, news and video, in parts of at most
	// 2 MB (sitemap-NAME-N.part2.html, …) linked by rel="prev" and
	// rel="next". A view is made from the file's cached XML, with no
	// Source read, has the file's Last-Modified and its own ETag, and is
	// counted in CacheBytes. The XML index never lists it. Off by default:
	// these paths are the application's.
	HTML bool
	// HTMLIndexable lets search engines index the HTML view: its pages
	// are sent without "X-Robots-Tag: noindex". Off by default: the view
	// repeats what the XML says, for people.
	HTMLIndexable bool
	// IndexName is the index's file name under the base path: "" means
	// "sitemap_index.xml". Renaming it (to escape a search console's
	// back-off on a name, say) renames its HTML view too (the name less
	// ".xml", then ".html"), and robots.txt names it; more index files,
	// past 50,000 pages, keep their names sitemap_index-2.xml and on. It is
	// ASCII letters, digits, '_' and '-', then ".xml", and not
	// sitemap-* or sitemap_index-*. Whatever it is, BASE/sitemap.xml serves
	// the index too, unless the application behind Handler answers that
	// path with anything but a 404: its own file wins.
	IndexName string
	// SingleFile serves a small site as one sitemap file with no index:
	// the index's name (IndexName, and sitemap.xml) serves a <urlset> of
	// every section's URLs, while every section lists one page at most.
	// New fails if the sections' page sizes add up to more than 50,000 or
	// one is Latest. A site that grows past one file (a section's second
	// page) is served an index of its files at the same name again, with
	// a warning logged, until it fits again. Off by default.
	SingleFile bool

	// WarmUp, if set, builds the index, every file it lists and the feeds
	// in the background after New and again after each InvalidateAll, at
	// most WarmUp.Rate files a second and WarmUp.Workers at once (see
	// WarmUp). Nil means off: each file is built on its first request.
	WarmUp *WarmUp
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
	// PageSize is the most URLs one file may hold; a URL the Source yields
	// beyond it fails the page (logged, 503 or the last good copy), and is
	// read no further. A Source that implements
	// PageSizer gives it: leave PageSize zero, since New refuses a value
	// that differs. Otherwise zero means 50,000, or 1,000 for a news
	// section.
	PageSize int
	// Extensions are the namespaces the section's files declare. Zero means
	// ExtImage|ExtVideo|ExtAlternates. A section whose Extensions include
	// ExtNews is a news section: PageSize at most 1,000.
	Extensions Extensions
	// Latest serves the section at one fixed URL, sitemap-NAME-1.xml.gz,
	// holding its PageSize most recently changed URLs (for a news section,
	// the newest 1,000), read with one Recent call: its Source must
	// implement RecentLister, and its Pages is not read. The index always
	// lists the file; with no URL it is an empty <urlset> (200), the one
	// departure from the sitemap schema, which Google's news guidance
	// allows. In a news section, articles older than two days are left out
	// without a report (unless Config.NewsAnyAge). Invalidate with any page
	// number names the file. Off by default: the section is paged by its
	// Source's Pages.
	Latest bool
	// ChangeFreq and Priority are the section's defaults: each URL with
	// no <changefreq> of its own (URL.ChangeFreq "") is written with
	// ChangeFreq, and each with no <priority> (URL.Priority nil) with
	// Priority. A URL's own value wins, even one that breaks a rule (it is
	// left out and reported, and no default takes its place). New checks
	// them: one of the protocol's values, and 0.0 to 1.0. Zero and nil
	// write none.
	ChangeFreq ChangeFreq
	Priority   *float64
	// Hreflang, if set, declares that every page of the section exists in
	// several languages: each URL the Source yields is written once per
	// language, every version listing all of them and the x-default (see
	// Hreflang). Nil means each URL is written as given.
	Hreflang *Hreflang
}

// Hreflang declares, once for a whole section, that each of its pages
// exists in several languages, as Django's i18n, alternates and x_default
// do: the Source yields each page once, and the section's files hold the
// page in every language, each <url> listing every language version
// (itself included) and the x-default, as the hreflang rules ask.
//
// A language's version of a page is the Source's loc with the language's
// Prefix put after the base URL: with the base URL https://example.com/
// and the Languages {"en", ""}, {"de", "de"}, the Source's
// https://example.com/p/1 is written as https://example.com/p/1 and
// https://example.com/de/p/1, each with the links en, de and x-default.
//
// A URL that has Alternates of its own is written as given, alone: that is
// how a page that exists in fewer languages, or under other paths, says
// so. A Source's loc that does not start with the base URL as New
// canonicalised it (such as "https://example.com/") is not written and is
// reported.
//
// Each file holds the section's page size times the number of Languages
// <url> entries, at most 50,000: New refuses a page size that would hold
// more, and a zero Section.PageSize means 50,000 divided by that number.
// A FromSlice list short enough for one file is taken whatever its page
// size.
// Only page files are expanded: the section's Atom feed lists the
// Source's URLs as they are. It needs ExtAlternates, and is not for news
// sections (a news article has one language).
type Hreflang struct {
	// Languages are the languages every page of the section exists in, in
	// the order written: each a BCP 47 tag, none twice (without regard to
	// case), and each with its own Prefix.
	Languages []Language
	// XDefault is the Tag of the language whose version is also the
	// x-default link, for visitors of no listed language; "" writes no
	// x-default.
	XDefault string
}

// Language is one language of a Hreflang cluster.
type Language struct {
	// Tag is the BCP 47 language tag written as the hreflang, such as
	// "de", "en-GB" or "es-419". "x-default" is not a language: name it
	// with Hreflang.XDefault.
	Tag string
	// Prefix is the path the language's pages have after the base URL's
	// path, such as "de" or "/de" for /de/p/1 (slashes at its ends are
	// ignored); "" for the language whose pages are the Source's own
	// locs. It is one or more path segments of letters, digits and
	// "-._~".
	Prefix string
}

// cluster checks h, the Hreflang of the section named section, into the
// cluster the section's pages are written by (internal/hreflang).
func (h *Hreflang) cluster(section string) (*hreflang.Cluster, error) {
	tags, prefixes := make([]string, len(h.Languages)), make([]string, len(h.Languages))
	for i, l := range h.Languages {
		tags[i], prefixes[i] = l.Tag, l.Prefix
	}
	return hreflang.New(section, tags, prefixes, h.XDefault)
}

// ErrConfig is wrapped by every error New returns.
var ErrConfig = errors.New("sitemap: invalid configuration")

// Sitemap serves a sitemap tree. It is an http.Handler for the sitemap
// files; Handler wraps an application to add robots.txt. Create it with New
// and stop it with Close.
type Sitemap struct {
	// The public front: its methods are the API and the HTTP layer, and
	// it holds the parts that do the work. The site's settings never
	// change after New; documents own every piece of state of serving and
	// building; the reporter tells the world what happened.
	site   *site
	docs   *documents
	rep    *reporter
	robots atomic.Pointer[robotsSet] // robots.txt lines for the current number of index files
	crawls *crawllog.Log             // who fetched each file (crawllog.go); nil when off
	notes  htmlNoteList              // what the HTML view shows live about a file (html.go)
	warm   *warmup.Warmer[docKey]    // the warm-up (warmup.go); nil when off
	date   respond.Date              // the Date header of the files' responses (serve.go)
}

// New checks cfg and the sections and returns a Sitemap ready to serve.
// Every configuration mistake is an error wrapping ErrConfig.
func New(cfg Config, sections ...Section) (*Sitemap, error) {
	st, err := newSite(&cfg, sections)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	log, now := cfg.Logger, cfg.Now
	if log == nil {
		log = slog.Default()
	}
	if now == nil {
		now = time.Now
	}
	warnNoFeed(st, log)
	rep := newReporter(st, &cfg, log)
	crawls, err := newCrawlLog(&cfg.Crawlers, len(st.sections))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	var file *clockFile
	if cfg.ClockFile != "" {
		if file, err = openClockFile(cfg.ClockFile, st.sections, now(), log); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrConfig, err)
		}
	}
	clocks := newClocks(now(), cfg.Store != nil, file)
	raw := now
	now = func() time.Time { return clocks.now(raw()) } // the Store's time, if this replica's is off it (fleet.skew)
	tl := &tools{site: st, clocks: clocks, rep: rep, now: now}
	d := &documents{
		site: st, ledger: newLedger(), clocks: clocks, failures: newFailures(), tier: noTier{}, rep: rep, now: now,
		cache: newPageCache(st.cacheBytes, st.cacheEntries, func(k docKey, n int, b int64) { rep.of(k).Cached(n, b) }),
		slots: newSlots(st.maxBuilds),
		builders: [...]builder{
			docPage:  pageBuilder{tl},
			docIndex: indexBuilder{tl},
			docFeed:  feedBuilder{tl},
		},
		segMarks: &tl.marks,
	}
	d.ctx, d.cancel = context.WithCancel(context.Background())
	d.rebuilds = newRebuilds(st.maxBuilds, d.background, d.rebuild, d.ctx.Done())
	d.hearing = newHearing(d.heard, d.ctx.Done())
	// Last, what starts goroutines, which only Close stops.
	if cfg.IndexNow != nil {
		if rep.indexNow, err = newIndexNow(cfg.IndexNow, st.base.url, log, now); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrConfig, err) // cannot happen: newSite checked it
		}
	}
	if cfg.Audit != nil {
		if rep.audit, err = newAuditor(st.base.url, cfg.Audit, log, now, func(k docKey) { d.invalidate([]docKey{k}, nil) }); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrConfig, err) // cannot happen: newSite checked the base URL
		}
	}
	if cfg.OnPurge != nil {
		rep.purger = newPurger(cfg.OnPurge, log)
	}
	if cfg.Store != nil {
		d.tier = newFleet(newShared(cfg.Store, st.base.url, log), st, d.ledger, clocks, d, log, raw)
	}
	sm := &Sitemap{site: st, docs: d, rep: rep, crawls: crawls}
	if crawls != nil {
		sm.notes = append(sm.notes, crawlNotes{log: crawls, sections: len(st.sections), now: now})
	}
	if rep.audit != nil {
		sm.notes = append(sm.notes, auditNotes{audit: rep.audit, site: st})
	}
	if cfg.WarmUp != nil {
		sm.warm = startWarmer(d, cfg.WarmUp)
	}
	return sm, nil
}

// IndexURL is the absolute URL of the sitemap index: its first file, when
// more than 50,000 pages make it several (robots.txt names them all).
func (s *Sitemap) IndexURL() string { return s.site.indexLoc }

// Invalidate tells the Sitemap that pages of a section changed, such as
// after a product was edited (adapters/sqlsource's PageOf names its
// page); with no page number, every page of the section did. Each cached
// page named is rebuilt in the background, at most MaxBuilds at a time,
// and the index after them; meanwhile the old copy is served (and a
// request for it starts its rebuild), and every request that starts after
// its rebuild finished gets the new bytes under a new Last-Modified. A
// page that is not cached gets a new clock, which the index shows, and is
// built on its next request. A page number the section does not have (one
// that neither the cached index lists nor the cache holds) is ignored. The
// only error is a section name that is not configured.
//
// Invalidate returns at once, however often it is called: a page's
// rebuild starts at once, or, when Invalidate rebuilt it less than a
// second ago, once that second has passed, and a page waits for one
// rebuild at most (one more after a rebuild under way, which may have
// read the data from before the change). A storm of calls for one page
// costs one background worker and about one Source read a second.
//
// The section's Atom feed, if it has one, is outdated too: its cached copy
// is served while it is rebuilt, on its next request.
//
// Without Invalidate, changes are found by the TTL: an expired page is
// rebuilt, or revalidated by its PageInfo.Version.
func (s *Sitemap) Invalidate(section string, pages ...int64) error {
	sec := s.site.byName[section]
	if sec == nil {
		return fmt.Errorf("sitemap: Invalidate: no section %q", section)
	}
	switch {
	case sec.latest():
		pages = []int64{1} // its one file, whatever page the caller named (latest.go)
	case len(pages) == 0:
		pages = s.docs.knownPages(sec.index)
	}
	keys := make([]docKey, 0, len(pages))
	for _, n := range pages {
		keys = append(keys, pageKey(sec.index, n))
	}
	var feeds []docKey
	if sec.feed != nil {
		feeds = append(feeds, feedKey(sec.index))
	}
	s.docs.invalidate(keys, feeds)
	return nil
}

// InvalidateKeys says that the rows with these keys changed (added, edited or
// deleted) in the named section, whose Source must implement SegmentSource
// (else an error, and nothing is done). Only the segments that hold them are
// read again and re-compressed; the other segments' bytes are kept and the
// page is spliced. With a Store, the other replicas are told as by Invalidate
// of the pages. Like Invalidate it never blocks on a build.
func (s *Sitemap) InvalidateKeys(section string, keys ...int64) error {
	sec := s.site.byName[section]
	if sec == nil {
		return fmt.Errorf("sitemap: InvalidateKeys: no section %q", section)
	}
	src, ok := sec.src.(SegmentSource)
	if !ok || sec.latest() {
		return fmt.Errorf("sitemap: InvalidateKeys: the Source of section %q is not a SegmentSource", section)
	}
	segs := make(map[docKey][]int)
	for _, key := range keys {
		if page, seg := src.SegmentOf(key); page > 0 {
			k := pageKey(sec.index, page)
			segs[k] = append(segs[k], seg)
		}
	}
	var feeds []docKey
	if sec.feed != nil {
		feeds = append(feeds, feedKey(sec.index))
	}
	s.docs.invalidateKeys(segs, feeds)
	return nil
}

// InvalidateAll tells the Sitemap that everything may have changed: every
// section, every page, as Invalidate does. With Config.WarmUp, the
// warm-up then builds every file again, from the index.
func (s *Sitemap) InvalidateAll() {
	var keys, feeds []docKey
	for _, sec := range s.site.sections {
		if sec.feed != nil {
			feeds = append(feeds, feedKey(sec.index))
		}
		for _, n := range s.docs.knownPages(sec.index) {
			keys = append(keys, pageKey(sec.index, n))
		}
	}
	s.docs.invalidate(keys, feeds)
	if s.warm != nil {
		s.warm.Kick() // one pass more at most, however many calls
	}
}

// Notify says that the pages at urls changed, were added or were removed,
// for what the Sitemap cannot see by itself (a page whose sitemap entry
// did not change). The URLs join the change stream: Config.OnChange is
// told them (as Changed, with Page 0), and the IndexNow endpoints
// (Config.IndexNow) get them. It returns at once: for IndexNow the URLs
// are queued, each once, and sent in the background in batches
// (IndexNow.Delay); a URL that is not under the base URL is refused
// (logged, Stats.IndexNowRefused), one that does not fit the queue is
// dropped (Stats.IndexNowDropped). It is safe for concurrent use, and does
// nothing on a nil Sitemap.
func (s *Sitemap) Notify(urls ...string) {
	if s == nil || len(urls) == 0 {
		return
	}
	s.rep.changed(&Change{Changed: urls})
}

// Close cancels the builds under way, background rebuilds and builds for
// requests, and waits for them to end, and for the audit and OnPurge to
// tell what they hold, for at most BuildTimeout in all: a build whose
// Source or hook ignores its context, or an OnPurge that does, is then
// left to end on its own (Close logs which, once), and keeps, stores and
// reports nothing when it does. With Audit, the audit's request under way
// is cancelled, every later write of its handler fails, and Close waits
// for the application's handlers serving the audit within the same
// BuildTimeout: one that ignores its context and its failing writes is
// then left to end on its own (logged).
// A build that Close ends is no build error. Requests after Close are
// answered from the cache; nothing is built (503). With IndexNow, Close
// then sends the URLs still queued, for at most 10 seconds, and drops
// (counts and logs) what is left; URLs notified afterwards are dropped.
func (s *Sitemap) Close() error {
	deadline := time.Now().Add(s.site.timeout) // one bound for all, whatever the application's code does
	left := func() time.Duration { return max(time.Until(deadline), 0) }
	if a := s.rep.audit; a != nil {
		a.Stop() // its requests end while the builds do
	}
	tier := make(chan struct{}) // the fleet's subscription ends beside the builds
	go func() { s.docs.tier.close(left()); close(tier) }()
	s.docs.close(left())
	<-tier
	if s.crawls != nil {
		s.crawls.Close()
	}
	s.docs.clocks.file.close()
	if a := s.rep.audit; a != nil {
		a.Close(deadline) // what is left of BuildTimeout
	}
	if p := s.rep.purger; p != nil {
		p.Close(left())
	}
	if n := s.rep.indexNow; n != nil {
		ctx, cancel := context.WithTimeout(context.Background(), indexNowCloseTimeout)
		n.Close(ctx)
		cancel()
	}
	return nil
}

// newSite checks cfg and the sections and completes them. Its errors do
// not say "sitemap:": New wraps them in ErrConfig, which does.
func newSite(cfg *Config, sections []Section) (*site, error) {
	canonical, err := parseBase(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	name := cmp.Or(cfg.IndexName, indexFile)
	if err := paths.CheckIndexName(name); err != nil {
		return nil, err
	}
	base := splitBase(canonical)
	st := &site{
		siteNames:    siteNames{Names: paths.Names{Path: base.path, IndexName: name, IndexStem: strings.TrimSuffix(name, ".xml"), Numbers: make(map[string]int)}},
		base:         base,
		indexLoc:     canonical + name,
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
	st.HTML, st.htmlIndex = cfg.HTML, cfg.HTML && cfg.HTMLIndexable
	if cfg.ListXML {
		st.listExt = ".xml"
	}
	if cfg.Stylesheet {
		st.xsl, st.siteNames.XSLName = htmlview.NewStylesheetFile(st.base.path), htmlview.StylesheetName
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
		st.headers.cacheControl = []string{crawllog.PrivateCacheControl(respond.First(st.headers.cacheControl))}
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
	st.layout = paths.Layout(st.Files)
	return st, nil
}

// newReporter makes the reporter of st, with cfg's hooks; New gives it
// its senders.
func newReporter(st *site, cfg *Config, log *slog.Logger) *reporter {
	return &reporter{site: st, log: log, perSection: secstats.New(len(st.sections), func(i int) string { return st.sections[i].name }),
		onReject: cfg.OnReject, onNotice: cfg.OnNotice, onChange: cfg.OnChange}
}

func (st *site) addSection(i int, sec Section, n int) error {
	switch {
	case sec.Source == nil:
		return fmt.Errorf("section %d (%q) has no Source", i, sec.Name)
	case sec.Name == "" && n > 1:
		return fmt.Errorf("section %d has no Name; only a single section may be unnamed", i)
	case sec.Name != "" && !paths.ValidSectionName(sec.Name, maxSectionName):
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
	var cl *hreflang.Cluster
	if sec.Hreflang != nil {
		var err error
		if cl, err = sec.Hreflang.cluster(sec.Name); err != nil {
			return err
		}
		switch per := MaxURLs / cl.Size(); {
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
				sec.Name, size, cl.Size(), size*cl.Size(), MaxURLs, per)
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
	s := &section{index: i, name: sec.Name, src: sec.Source, pageSize: size}
	if sec.Latest {
		s.src = latest{src: rl, size: size} // latest.go
	}
	if sec.Name == "" {
		st.unnamed = s
	}
	s.feed = st.feeds.feedOf(s, sec.Source)
	files := paths.Files{Name: sec.Name, Prefix: pagePrefix(sec.Name)}
	if s.feed != nil {
		files.Feed = s.feed.name
	}
	st.Files = append(st.Files, files)
	st.Numbers[sec.Name] = i
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
