// Package sitemap serves always-fresh, protocol-exact XML sitemaps straight
// from a Go web server, for catalogues of any size.
//
// # Usage
//
// An application describes its catalogue as one or more [Source] values and
// hands them to [New]. The resulting [Sitemap] is an [http.Handler] for the
// sitemap files, and [Sitemap.Handler] is a middleware that also merges a
// Sitemap: line into robots.txt:
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
// It serves, under the base URL's path:
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
//
// With [Config.SingleFile], a small site's index is instead one <urlset> of
// every section's URLs, for as long as each section has one page at most.
//
// # Sources
//
// A [Source] reports its pages cheaply ([Source.Pages]) and streams the URLs
// of any one page ([Source.URLs]); [FromSlice], [FromSeq] and [FromRange]
// make one for small sites, and adapters/sqlsource reads a SQL table by key
// range. Every URL is checked against the protocol, and nothing that
// breaks a rule is written: an image, video, alternate or optional field
// that does is left out, the URL written with the rest, and reported to
// [Config.OnNotice] ([ErrElementDropped]); a URL whose loc breaks one is
// skipped and reported to [Config.OnReject]. Either fails the page with
// [Config.Strict]. The Logger gets one line per build for all of them. In
// a news section, an article older than two days skips its URL unless
// [Config.NewsAnyAge]; hreflang alternates must be well-formed BCP 47
// tags, each once, and list the page itself: a missing self link is added
// from [URL.Hreflang] and reported to [Config.OnNotice]. Internationalized hosts are written in punycode. A Source that
// also implements [RecentLister] can have an Atom feed of its most recently
// changed URLs, cached like a page and named in robots.txt.
//
// # Caching
//
// Built pages are kept gzip-compressed in an LRU cache bounded by
// [Config.CacheBytes], fresh for [Config.TTL]. Concurrent requests for a
// page that is not cached share one build, and at most [Config.MaxBuilds]
// builds run at once. An expired page is served at once while one rebuild
// runs in the background (stale-while-revalidate), or is renewed without a
// rebuild when its [PageInfo.Version] has not changed; if the rebuild fails
// the last good copy stays in service (stale-if-error). Without one, the
// answer is 503 with Retry-After. A failed or partial build is never cached,
// and is not retried before [Config.RetryAfter]. A page number the index
// does not list is a 404 without a page read. [Sitemap.Invalidate] says
// what the application changed.
// [Sitemap.Stats] and [Sitemap.SectionStats] count hits, misses, builds
// and their durations, rejected URLs and responses, for metrics (the
// adapters/promsitemap collector, or expvar through adapters/expvarsitemap).
// [Sitemap.CrawlLog] tells, for each file, the last fetch by each crawler
// family (Googlebot, Bingbot, …, and the AI crawlers and agents: GPTBot,
// ChatGPT-User, …), each with its purpose (search, training or
// user-triggered), recognised by User-Agent and verified by the address
// ranges the owner gives in [Config.Crawlers] ([CrawlerRangeFiles]) or by
// reverse DNS ([Crawlers.Resolver]), spoofed claims and unverifiable ones
// kept apart, in a table of fixed size; [Crawlers.VerifiedOnly] answers
// 403 to everyone else, and private to them.
//
// # IndexNow
//
// With [Config.IndexNow], [Sitemap.Notify] sends changed URLs to IndexNow
// endpoints in the background, in batches, retried on 429 and 5xx from a
// bounded queue, and the Sitemap serves the key file at BASE/KEY.txt.
//
// # Self-audit
//
// With [Config.Audit], a sample of each built page's URLs is requested in
// process through the application [Sitemap.Handler] wraps, marked with
// [AuditHeader], and checked for a status other than 200, a redirect,
// noindex, another canonical, robots.txt, and a lastmod behind or ahead
// of the dates the page gives; [Sitemap.Audit] reports what was found,
// and [Audit].LeaveOut leaves out of the files the URLs found noindex or
// canonicalised elsewhere.
//
// Responses carry a strong ETag (a hash of the XML) and a Last-Modified,
// the file's content clock: the later of its newest lastmod and the time
// its bytes last changed, which never moves backwards (see the README's
// "The content clock"). Conditional requests are answered with 304
// without calling the Source.
//
// # robots.txt
//
// [Sitemap.Handler] answers /robots.txt by calling the application: its
// robots.txt passes through with "Sitemap: BASE/sitemap_index.xml" (and a
// Sitemap: line per Atom feed) appended unless present. If the application has none (404), a minimal
// robots.txt that allows everything and names the sitemap is served.
// [Config.Robots] adds rules for AI crawlers by purpose and a
// Content-Signal line ([RobotsPolicy]), merged without changing the
// answers for any agent the application's file names. They ask; they do
// not enforce.
//
// Nothing of a request but its method, path, Accept-Encoding and
// conditional headers decides a response (and, with
// [Crawlers.VerifiedOnly], its User-Agent and address): Host and X-Forwarded-* headers
// never reach a sitemap, a cache key or robots.txt; every absolute URL
// comes from [Config.BaseURL]. To serve several hosts from one process,
// make one Sitemap per host and hand them to [NewSites]: [Sites.Handler]
// picks one by the request's Host, from that fixed list only, and passes a
// request for any other host to the application untouched, so it reaches
// no Sitemap and no cache.
//
// Replicas of a site behind a load balancer share a [Store]
// ([Config.Store]; adapters/redisstore keeps it in Redis): each file is
// built once for all of them, under a lock in the store, and served by
// every replica from the stored copy with the same ETag, Last-Modified
// and index <lastmod>; [Sitemap.Invalidate] on one reaches all. When the
// store fails, each replica serves alone until it answers again.
package sitemap
