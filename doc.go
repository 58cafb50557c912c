// Package sitemap serves always-fresh, protocol-exact XML sitemaps straight
// from a Go web server, for catalogues of any size: no offline job, no files
// on disk, and at most one read of the catalogue per page per freshness
// period however many crawlers ask.
//
// # Usage
//
// An application describes its catalogue as one or more [Source] values and
// hands them to [New]. The resulting [Sitemap] is an [http.Handler] for the
// sitemap files, and [Sitemap.Handler] is a middleware that also merges a
// Sitemap: line into robots.txt and passes every other request to the
// application untouched:
//
//	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://example.com"},
//		sitemap.Section{Name: "products", Source: products},
//		sitemap.Section{Name: "pages", Source: pages})
//	if err != nil {
//		log.Fatal(err) // every configuration mistake surfaces here
//	}
//	defer sm.Close()
//	http.ListenAndServe(":8080", sm.Handler(app)) // or chi: r.Use(sm.Handler)
//
// A Sitemap mounted as a bare handler (mux.Handle("/", sm), chi's
// r.Mount("/", sm)) serves the same files but not robots.txt; mount it
// without stripping the path, as it matches the request path against the
// base URL's. It serves, under the base URL's path:
//
//	/sitemap_index.xml               the index: one <sitemap> per page of every section ([Config.IndexName])
//	/sitemap.xml                     the index too, unless the application has a sitemap.xml of its own
//	/sitemap-SECTION-N.xml.gz        page N of a named section, as a gzip file
//	/sitemap-N.xml.gz                page N when there is a single unnamed section
//	/sitemap-SECTION-N.xml           the same page as XML (gzip-encoded when accepted)
//	/sitemap-SECTION-N.txt           its URLs as plain text, one a line
//	/sitemap_index-2.xml …           more index files, past 50,000 pages
//	/sitemap-SECTION.atom            the section's Atom feed of its newest URLs ([Config.FeedEntries])
//	/sitemap.atom                    the same, for a single unnamed section
//	/robots.txt                      the application's, with Sitemap: merged in (middleware only)
//	/sitemap_index.html              the index as HTML for people ([Config.HTML])
//	/sitemap-SECTION-N.html …        a page as HTML, in parts under 2 MB (.part2.html …)
//	/sitemap.xsl                     the stylesheet that shows the files in a browser ([Config.Stylesheet])
//	/KEY.txt                         the IndexNow key file ([Config.IndexNow])
//
// Any other name under those patterns (a page the index does not list, a
// zero-padded number, a percent-encoded alias) is a 404, decided without
// reading the Source. With [Config.SingleFile], a small site's index is
// instead one <urlset> of every section's URLs, for as long as each section
// has one page at most.
//
// Every field of [Config] is documented on the field, with its default; the
// zero value of every field but BaseURL is a working default.
//
// # Sources
//
// A [Source] reports its pages cheaply ([Source.Pages], each page's newest
// lastmod and optionally a [PageInfo.Version] or durable change time) and
// streams the URLs of any one page ([Source.URLs]). Page n should be a key
// range, never an OFFSET, so that every page costs the same and a URL stays
// in its file as others come and go. [FromSlice], [FromSeq] and [FromRange]
// make one for small sites; adapters/sqlsource reads a SQL table by key range
// and follows its changes; adapters/chiroutes lists a chi router's pages.
// Each [Section] has its own files, page size (a Source that knows it
// implements [PageSizer]) and [Extensions] (image, video, news, hreflang);
// [Section.Hreflang] declares the languages every page of a section exists
// in, and [Section.Latest] keeps a news section at one fixed file of its
// newest URLs. A Source that also implements [RecentLister] can have an
// Atom feed, cached like a page and named in robots.txt; one that
// implements [PageReporter] gives a page rebuilt on Invalidate the clock
// its change time gives, which a restart keeps.
//
// # The protocol's rules
//
// Every URL is checked against the protocol as it is written (absolute,
// under the base URL, under 2,048 characters, hosts in punycode, the
// extensions' limits). Nothing that breaks a rule is written: an image,
// video, alternate or optional field that does is left out, the URL written
// with the rest, and reported to [Config.OnNotice] ([ErrElementDropped]); a
// URL whose loc breaks one is skipped and reported to [Config.OnReject]
// ([InvalidURLError]). Either fails the page with [Config.Strict]. The
// Logger gets one line per build for all of them. In a news section, an
// article older than two days skips its URL unless [Config.NewsAnyAge];
// hreflang alternates must be well-formed BCP 47 tags, each once, and list
// the page itself: a missing self link is added from [URL.Hreflang] and
// reported ([ErrSelfLinkAdded]).
//
// # Caching
//
// Built pages are kept gzip-compressed in an LRU cache bounded by
// [Config.CacheBytes], fresh for [Config.TTL]. Concurrent requests for a
// page that is not cached share one build, and at most [Config.MaxBuilds]
// builds run at once, a build that a request waits for first. An expired
// page is served at once while one rebuild runs in the background
// (stale-while-revalidate), or is renewed without a rebuild when its
// [PageInfo.Version] has not changed; if the rebuild fails
// the last good copy stays in service (stale-if-error). Without one, the
// answer is 503 with Retry-After. A failed or partial build is never cached,
// and is not retried before [Config.RetryAfter]. [Sitemap.Invalidate] says
// what the application changed: the pages named are rebuilt in the
// background at once, at most once a second each however often it is
// called. [Config.WarmUp] builds every file after a deploy, and
// [Config.OnChange] is told the URLs each rebuilt page gained, changed and
// lost.
//
// # The content clock
//
// Responses carry a strong ETag (a hash of the XML) and a Last-Modified,
// the file's content clock, which is also its <lastmod> in the index: the
// later of its newest lastmod and the time its bytes last changed. A
// Last-Modified is never given to two different bytes of a file, never
// moves back, moves only when the bytes change, and is never later than
// the response's Date; so If-Modified-Since is never answered 304 for bytes
// other than those served at that date. Across restarts the clocks are kept
// by a [Store], a [Config.ClockFile] or a Source's [PageInfo.Changed];
// without any, a fresh process gives no Last-Modified for about two
// seconds (its floor), and then clocks after its start. Conditional
// requests are answered with 304 without calling the Source.
//
// # Several sites and replicas
//
// Nothing of a request but its method, path, Accept-Encoding and
// conditional headers decides a response (and, with
// [Crawlers.VerifiedOnly], its User-Agent and address): Host and
// X-Forwarded-* headers never reach a sitemap, a cache key or robots.txt;
// every absolute URL comes from [Config.BaseURL]. To serve several hosts
// from one process, make one Sitemap per host and hand them to [NewSites]:
// [Sites.Handler] picks one by the request's Host, from that fixed list
// only, and passes a request for any other host to the application
// untouched, so it reaches no Sitemap and no cache.
//
// Replicas of a site behind a load balancer share a [Store]
// ([Config.Store]; adapters/redisstore keeps it in Redis, one server or a
// cluster): each file is built once for all of them, under a lock in the
// store, and served by every replica from the stored copy with the same
// ETag, Last-Modified and index <lastmod>; [Sitemap.Invalidate] on one
// reaches all. When the store fails, each replica serves alone until it
// answers again.
//
// # robots.txt
//
// [Sitemap.Handler] answers /robots.txt by calling the application: its
// robots.txt passes through with "Sitemap: BASE/sitemap_index.xml" (and a
// Sitemap: line per Atom feed) appended unless present. If the application
// has none (404), a minimal robots.txt that allows everything and names the
// sitemap is served. [Config.Robots] adds rules for AI crawlers by purpose
// and a Content-Signal line ([RobotsPolicy]), merged without changing the
// answers for any agent the application's file names. They ask; they do
// not enforce.
//
// # Telling others what changed
//
// With [Config.IndexNow], changed URLs (those [Config.OnChange] sees, and
// those given to [Sitemap.Notify]) are sent to IndexNow endpoints in the
// background, in batches, retried on 429 and 5xx from a bounded queue, and
// the Sitemap serves the key file. With [Config.OnPurge], a CDN in front is
// told, once per fleet, the files whose bytes changed ([Purge]), and every
// response names its file in Surrogate-Key and Cache-Tag.
//
// # Watching it work
//
// [Sitemap.Stats] and [Sitemap.SectionStats] count hits, misses, builds
// and their durations, rejected URLs and responses, for metrics (the
// adapters/promsitemap collector, or expvar through
// adapters/expvarsitemap). With any field of [Config.Crawlers] set (the
// log is off by default), [Sitemap.CrawlLog] tells, for each file, the
// last fetch by each crawler family (Googlebot, Bingbot, …, and the AI
// crawlers and agents: GPTBot, ChatGPT-User, …), each with its purpose
// (search, training or user-triggered), recognised by User-Agent and
// verified by the address ranges the owner gives in [Config.Crawlers]
// ([CrawlerRangeFiles]) or by reverse DNS ([Crawlers.Resolver]), spoofed
// claims and unverifiable ones kept apart, in a table of fixed size;
// [Crawlers.VerifiedOnly] answers 403 to everyone else, and private to
// them.
//
// With [Config.Audit], a sample of each built page's URLs is requested in
// process through the application [Sitemap.Handler] wraps, marked with
// [AuditHeader], and checked for a status other than 200, a redirect,
// noindex, another canonical, robots.txt, and a lastmod behind or ahead of
// the dates the page gives; [Sitemap.Audit] reports what was found, and
// [Audit].LeaveOut leaves out of the files the URLs found noindex or
// canonicalised elsewhere. With [Config.HTML], people can read the index
// and every file as accessible HTML, made from the cached XML, with notes
// from the crawl log and the audit.
//
// # Other packages
//
// Package parse reads sitemaps, indexes and plain-text sitemaps back,
// within fixed memory; package check holds the protocol's rules that the
// sitemap check command (cmd/sitemap) applies to any site, with the HTTP
// side and a sample of the listed pages; package export writes a served
// tree to a directory, atomically and incrementally.
//
// # Further reading
//
// The repository's docs folder holds the reference that needs more than a
// doc comment, one topic a file: the [configuration] table, [sources] and
// the [sqlsource] adapter, [the files served], [caching],
// [the content clock], [several replicas] and [several sites],
// the [broken rules], [news and hreflang], [feeds],
// [sending to IndexNow], [CDN purge], [metrics], the [crawl log],
// the [self-audit], [robots.txt] policies, the [HTML view],
// [reading back], [checking], [static export] and [the demo].
//
// [configuration]: https://github.com/freshmap/sitemap/blob/main/docs/config.md
// [sources]: https://github.com/freshmap/sitemap/blob/main/docs/sources.md
// [sqlsource]: https://github.com/freshmap/sitemap/blob/main/docs/sqlsource.md
// [the files served]: https://github.com/freshmap/sitemap/blob/main/docs/serving.md
// [caching]: https://github.com/freshmap/sitemap/blob/main/docs/caching.md
// [the content clock]: https://github.com/freshmap/sitemap/blob/main/docs/content-clock.md
// [several replicas]: https://github.com/freshmap/sitemap/blob/main/docs/fleet.md
// [several sites]: https://github.com/freshmap/sitemap/blob/main/docs/hosts.md
// [broken rules]: https://github.com/freshmap/sitemap/blob/main/docs/rules.md
// [news and hreflang]: https://github.com/freshmap/sitemap/blob/main/docs/news-and-hreflang.md
// [feeds]: https://github.com/freshmap/sitemap/blob/main/docs/feeds.md
// [sending to IndexNow]: https://github.com/freshmap/sitemap/blob/main/docs/indexnow.md
// [CDN purge]: https://github.com/freshmap/sitemap/blob/main/docs/cdn-purge.md
// [metrics]: https://github.com/freshmap/sitemap/blob/main/docs/metrics.md
// [crawl log]: https://github.com/freshmap/sitemap/blob/main/docs/crawl-log.md
// [self-audit]: https://github.com/freshmap/sitemap/blob/main/docs/audit.md
// [robots.txt]: https://github.com/freshmap/sitemap/blob/main/docs/robots.md
// [HTML view]: https://github.com/freshmap/sitemap/blob/main/docs/html-view.md
// [reading back]: https://github.com/freshmap/sitemap/blob/main/docs/parse.md
// [checking]: https://github.com/freshmap/sitemap/blob/main/docs/checking.md
// [static export]: https://github.com/freshmap/sitemap/blob/main/docs/export.md
// [the demo]: https://github.com/freshmap/sitemap/blob/main/docs/demo.md
package sitemap
