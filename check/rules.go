package check

// Rule is one rule the checker applies: a stable name, its severity and
// what it asks.
type Rule struct {
	Name     string
	Severity Severity
	Doc      string
}

// Rules are every rule, in the order of the table in docs/checking.md. Names are
// stable identifiers: CI scripts may match on them.
var Rules = []Rule{
	{"xml", Error, "the document is well-formed XML (the declaration, if any, first; no DOCTYPE, nesting ≤ 32, one text node ≤ 32 KiB); the rest of the file is not read after this error"},
	{"encoding", Error, "the document is UTF-8 (a byte-order mark is allowed) and declares no other encoding: not UTF-16, not Latin-1"},
	{"namespace", Error, "every prefix is declared: an xhtml:, image:, video: or news: element has its xmlns: on the root (otherwise it is skipped)"},
	{"root", Error, "the root is <urlset> or <sitemapindex> in the namespace http://www.sitemaps.org/schemas/sitemap/0.9 (a plain-text sitemap, one URL a line, and an RSS, Atom 1.0 or Atom 0.3 feed are read too)"},
	{"urlset-empty", Warning, "a <urlset> lists at least one URL (the schema wants one; Google accepts an empty one, such as a news file with no article of the last two days, which Section.Latest serves)"},
	{"file-entries", Error, "at most 50,000 <url> or <sitemap> entries in one file"},
	{"file-size", Error, "at most 50 MB (52,428,800 bytes) uncompressed in one file"},
	{"element-order", Error, "the children of <url> (loc, lastmod, changefreq, priority, then extensions), <sitemap>, <image:image>, <video:video>, <news:news> and <news:publication> come in the schemas' order, each at most once unless the schema repeats it"},
	{"value", Error, "an element's value has its type (yes/no, integer, decimal…)"},
	{"loc-missing", Error, "every <url>, <sitemap> and <image:image> has its loc, not empty nor only white space (an entry without one is not counted as a URL)"},
	{"loc-absolute", Error, "a loc is an absolute http or https URL with a host, no user info"},
	{"loc-escaped", Error, "a loc is RFC 3986 escaped: no spaces, non-ASCII or <>\"{}|\\^` unencoded, no bad %-escapes"},
	{"loc-length", Error, "a loc is under 2,048 characters"},
	{"loc-scope", Error, "a loc has the sitemap's scheme, host and port and lies under its directory (for an index: its files)"},
	{"loc-duplicate", Warning, "a URL is listed once in the whole tree"},
	{"lastmod-format", Error, "lastmod is a W3C datetime (YYYY-MM-DD or YYYY-MM-DDThh:mm:ssTZD)"},
	{"lastmod-future", Error, "lastmod is not more than 5 minutes in the future"},
	{"lastmod-stamp", Warning, "the lastmods of a file with more than one entry are not all equal (a build time, not the pages')"},
	{"priority-range", Error, "priority is a decimal from 0.0 to 1.0"},
	{"changefreq-value", Error, "changefreq is always, hourly, daily, weekly, monthly, yearly or never"},
	{"image-count", Error, "at most 1,000 <image:image> in one <url>"},
	{"ext-url", Error, "image, video and hreflang URLs are absolute http(s) URLs; an hreflang xhtml:link has an href"},
	{"video-required", Error, "a video has thumbnail_loc, title, description and content_loc or player_loc"},
	{"video-length", Error, "video title ≤ 100 characters, description ≤ 2,048, category ≤ 256, at most 32 tags"},
	{"video-value", Error, "video duration 1–28,800 s, rating 0.0–5.0, yes/no flags (yes, Yes, YES, no, No, NO, as the schema allows), allow/deny relationships, platforms web/mobile/tv"},
	{"news-required", Error, "a news entry has publication name, language, publication_date and title"},
	{"news-value", Error, "news language is ISO 639 (or zh-cn, zh-tw), access Subscription or Registration, genres from the list, at most 5 stock tickers EXCHANGE:SYMBOL"},
	{"news-count", Error, "at most 1,000 news URLs in one file"},
	{"hreflang-tag", Error, "hreflang is a well-formed BCP 47 tag or x-default"},
	{"hreflang-duplicate", Error, "no hreflang is listed twice for one URL (case-insensitive)"},
	{"hreflang-self", Error, "a URL with alternates lists itself among them"},
	{"hreflang-reciprocal", Error, "if A lists B as an alternate and B is in the tree, B lists A"},
	{"tree-bound", Warning, "the rules across files covered every URL: past the memory bound (-max-memory) they spill to temporary files, and that did not fail"},
	{"index-nested", Error, "an index lists sitemaps, never other indexes"},
	{"index-self", Error, "an index does not list itself"},
	{"fetch", Error, "the file could be fetched or read (a loopback, private or link-local address is not connected to unless it is the host given, or -allow-private)"},
	{"deadline", Error, "the walk covered the whole tree: it ended within -deadline, met no more than -max-files files, and asked no more than 64 hosts' robots.txt for cross-submission"},
	{"robots", Error, "robots.txt names at least one sitemap with an absolute Sitemap: line (also spelled Site-map: or Sitemaps:), within its first 500 KiB"},
	{"http-status", Error, "a GET answers 200"},
	{"http-content-type", Error, "Content-Type matches the bytes: application/gzip for a gzip file without Content-Encoding, XML (application/xml, text/xml) otherwise"},
	{"http-etag", Warning, "the response has an ETag"},
	{"http-last-modified", Warning, "the response has a Last-Modified"},
	{"http-conditional", Warning, "If-None-Match with the ETag, and If-Modified-Since with the Last-Modified, are answered 304"},
	{"http-head", Error, "HEAD answers the GET's status with no body"},
	{"page-status", Warning, "with -deep: a page the sitemap lists answers 200 (not a 4xx or 5xx)"},
	{"page-redirect", Warning, "with -deep: a listed page does not redirect; list the target instead"},
	{"page-noindex", Warning, "with -deep: a listed page has no noindex (X-Robots-Tag or <meta name=\"robots\">, for all crawlers or Googlebot)"},
	{"page-canonical", Warning, "with -deep: a listed page's canonical link (<link rel=\"canonical\"> or a Link header), if any, names the listed URL"},
	{"page-robots", Warning, "with -deep: the site's robots.txt allows a listed page to Googlebot (longest match wins)"},
	{"page-error", Warning, "with -deep: a listed page could be fetched"},
	{"http-unknown", Error, "a sitemap path that names no file (a page past the last, a made-up name) answers 404 or another 4xx, never a 5xx"},
}

var severities = func() map[string]Severity {
	m := make(map[string]Severity, len(Rules))
	for _, r := range Rules {
		m[r.Name] = r.Severity
	}
	return m
}()

// NewFinding returns a finding of the named rule, with that rule's
// severity, about a whole file.
func NewFinding(rule, file, msg string) Finding {
	sev, ok := severities[rule]
	if !ok {
		panic("check: unknown rule " + rule)
	}
	return Finding{Rule: rule, Severity: sev, File: file, Msg: msg}
}
