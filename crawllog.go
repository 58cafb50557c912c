package sitemap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"time"

	"github.com/freshmap/sitemap/internal/crawllog"
)

// The crawl log's public face. The log itself (who asks, the crawler
// families, their ranges and reverse DNS, the bounded table of fetches)
// is package internal/crawllog, which knows nothing of this package:
// this file translates Config.Crawlers into its Options and its answers
// into CrawlFetch and CrawlCount; a file's key is its File in
// route.go (docKey.crawlFile: a group per section row of SectionStats, the file's
// number in it), and the handler calls the Log itself.

// Crawlers configures the crawl log (Sitemap.CrawlLog): who fetched each
// sitemap file, as recognised by User-Agent and verified by address.
// The zero value turns the crawl log off, so that a cached hit runs only
// what serving needs; setting any field turns it on (Files alone logs by
// User-Agent, with every claim unverified). On, it costs a cached hit
// about 2.5–3.5% of its time on a keep-alive connection and 4.5–6% on a
// new connection each time (BENCHMARKS.md).
type Crawlers struct {
	// Ranges returns the published address ranges of crawler families,
	// keyed by family, as CrawlFetch.Crawler names them: "Googlebot",
	// "GPTBot", "ChatGPT-User", … (ReadCrawlerRanges reads the files the
	// vendors publish; CrawlerRangeFiles reads several). A request whose
	// User-Agent claims a family is verified when its address is in that
	// family's ranges, and spoofed when it is not; without ranges for the
	// family, its claims are unverifiable. It is called once, in New, and
	// its error is New's. The library never fetches ranges over the
	// network. Nil means none.
	Ranges func() (map[string][]netip.Prefix, error)
	// Resolver, if set, also verifies by reverse DNS the families whose
	// vendors document it (Googlebot, Bingbot, YandexBot, Applebot,
	// Baiduspider, Amazonbot): an address outside the family's ranges
	// whose name is in the vendor's domains and resolves back to it.
	// Lookups are made in the background, one at a time, once per
	// address; until an address is answered, its claims count as not
	// verified. net.DefaultResolver will do. Nil means none.
	Resolver CrawlerResolver
	// AddressHeader names the header a trusted reverse proxy sets to the
	// client's address, such as "X-Forwarded-For": the last address in
	// it is used (the one the proxy added). Set it only behind such a
	// proxy, which must overwrite or append to the header: otherwise any
	// client can claim any address. "" means the request's RemoteAddr.
	AddressHeader string
	// VerifiedOnly answers the sitemap files (the index, pages and feeds;
	// not robots.txt) only to verified crawlers: every other request gets
	// a 403, and what verified crawlers get is Cache-Control private. It
	// needs Ranges or Resolver. With Resolver, an address outside the
	// ranges gets 403s until its lookup has answered. Off by default.
	VerifiedOnly bool
	// Files is the most files the crawl log keeps; the fetches of a file
	// past it are not logged. A positive Files turns the log on by
	// itself. Zero means 1,000 when another field turns it on (each file
	// 352 bytes, and 96 for each column that fetched it); negative turns
	// the crawl log off whatever the other fields say.
	Files int
}

var errVerifiedNoRanges = errors.New("Crawlers.VerifiedOnly needs Crawlers.Ranges or Crawlers.Resolver")

// CrawlFetch is the last fetch of a file by one crawler family.
type CrawlFetch struct {
	// Crawler is the family the User-Agent claims, by its robots.txt
	// token, or "other" for any other client. The search engines:
	// "Googlebot", "Bingbot", "YandexBot", "Applebot", "DuckDuckBot",
	// "Baiduspider". AI training: "GPTBot", "ClaudeBot", "CCBot",
	// "Bytespider", "Meta-ExternalAgent", "Amazonbot". AI search:
	// "OAI-SearchBot", "Claude-SearchBot", "PerplexityBot". Fetches a
	// person asked an assistant for: "ChatGPT-User", "Claude-User",
	// "Perplexity-User", "Google-Agent", "Meta-ExternalFetcher".
	Crawler string
	// Purpose is what the family fetches for: "search", "training" or
	// "user-triggered"; "" for other.
	Purpose string
	// Verified tells that the address was in the family's ranges
	// (Crawlers.Ranges). A claim that was not is kept apart, with
	// Verified false: a spoofed Googlebot is never counted as Googlebot.
	Verified bool
	// Spoofed tells that the family's ranges were given and the address
	// was not in them. A claim neither verified nor spoofed could not be
	// checked: the family had no ranges (Anthropic, ByteDance and Meta
	// publish none).
	Spoofed     bool
	Time        time.Time // when the request was answered, to the second (the clock read as it came; the Store's time, as Last-Modified)
	Status      int       // its status: 200, 206, 304, 403, 503, …
	Bytes       int64     // its body bytes
	Conditional bool      // the request had a non-empty If-None-Match or If-Modified-Since (a 304 has Status 304)
	Fetches     int64     // fetches of the file (of the section, in SectionStats) by this column since New
}

// CrawlCount is a number of fetches of a section's files by one crawler
// column with one status (SectionStats.CrawlCounts).
type CrawlCount struct {
	Crawler  string // as in CrawlFetch
	Purpose  string // as in CrawlFetch
	Verified bool   // as in CrawlFetch
	Spoofed  bool   // as in CrawlFetch
	Status   int    // 200, 206, 304, 403, 412, 416, 500 or 503; 0 for any other
	Fetches  int64
}

// FileCrawls is the crawl log of one file.
type FileCrawls struct {
	File    string       // its name, such as "sitemap-products-3.xml.gz" or "sitemap_index.xml"; fetches of its .xml and .txt forms count here too
	Section string       // its section, as SectionStats names it ("_index" for the index files)
	Crawls  []CrawlFetch // one per column that fetched it, the latest first
}

// CrawlerResolver is what verification by reverse DNS
// (Crawlers.Resolver) asks of DNS; *net.Resolver (net.DefaultResolver)
// is one.
type CrawlerResolver interface {
	LookupAddr(ctx context.Context, addr string) (names []string, err error)
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// ReadCrawlerRanges reads a crawler's published address ranges, for
// Crawlers.Ranges: either the JSON that Google, Bing, OpenAI and
// Perplexity publish (googlebot.json, Google's user-triggered fetchers'
// file, bingbot.json, gptbot.json, searchbot.json, chatgpt-user.json,
// perplexitybot.json, perplexity-user.json: {"prefixes": [{"ipv4Prefix":
// "…"}, {"ipv6Prefix": "…"}]}), or a plain list of prefixes or
// addresses, one a line, with '#' comments. It reads at most 16 MiB.
// Download the files yourself: the library never fetches them.
func ReadCrawlerRanges(r io.Reader) ([]netip.Prefix, error) {
	p, err := crawllog.ReadRanges(r)
	if err != nil {
		return nil, fmt.Errorf("sitemap: %w", err)
	}
	return p, nil
}

// CrawlerRangeFiles returns a Crawlers.Ranges that reads the vendors'
// files, downloaded beforehand, with ReadCrawlerRanges: for each family
// (as Fetch.Crawler names it), the paths of its files, such as
// {"GPTBot": {"/etc/crawlers/gptbot.json"}, "ChatGPT-User":
// {"/etc/crawlers/chatgpt-user.json"}}. A family's files are read as one
// list. A file that cannot be read is New's error, naming it.
func CrawlerRangeFiles(files map[string][]string) func() (map[string][]netip.Prefix, error) {
	return crawllog.RangeFiles(files)
}

// newCrawlLog makes the crawl log of a site with sections sections; nil
// when it is off: Crawlers is zero, or its Files negative. Its files are
// grouped by the rows of SectionStats (docKey.crawlFile).
func newCrawlLog(c *Crawlers, sections int) (*crawllog.Log, error) {
	zero := c.Files == 0 && c.Ranges == nil && c.Resolver == nil && c.AddressHeader == "" && !c.VerifiedOnly // every field of Crawlers
	if c.Files < 0 || zero {
		return nil, nil
	}
	if c.VerifiedOnly && c.Ranges == nil && c.Resolver == nil {
		return nil, errVerifiedNoRanges
	}
	o := crawllog.Options{AddressHeader: c.AddressHeader, VerifiedOnly: c.VerifiedOnly, Files: c.Files, Groups: 2*sections + 1}
	if c.Resolver != nil {
		o.Resolver = c.Resolver
	}
	if c.Ranges != nil {
		ranges, err := c.Ranges()
		if err != nil {
			return nil, fmt.Errorf("Crawlers.Ranges: %w", err)
		}
		o.Ranges = ranges
	}
	l, err := crawllog.New(o)
	if err != nil {
		return nil, fmt.Errorf("Crawlers.Ranges: %w", err)
	}
	return l, nil
}

// crawlSection returns the crawl log of group i of l, a section row of
// SectionStats (SectionStats.Crawls and CrawlCounts).
func crawlSection(l *crawllog.Log, i int) ([]CrawlFetch, []CrawlCount) {
	fs, cs := l.Group(i)
	var counts []CrawlCount
	for _, c := range cs {
		counts = append(counts, CrawlCount(c))
	}
	return crawlFetches(fs), counts
}

// crawlFetches are fs as CrawlFetch; nil for none.
func crawlFetches(fs []crawllog.Fetch) []CrawlFetch {
	var out []CrawlFetch
	for _, f := range fs {
		out = append(out, CrawlFetch(f))
	}
	return out
}
