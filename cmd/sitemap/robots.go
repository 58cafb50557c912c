package main

import (
	"bufio"
	"bytes"
	"net"
	"net/url"
	"strings"
	"sync"
)

// sitemapLines returns the values of the Sitemap: lines of a robots.txt,
// as Google's robots.txt parser reads them: a UTF-8 byte-order mark before
// the first line is read past, a "#" starts a comment that runs to the
// end of the line, and the key may be spelled Sitemap, Site-map or
// Sitemaps, in any case (the parser of Google and those of other crawlers
// take the misspellings). abs holds the absolute URLs, bad the other
// values.
func sitemapLines(body []byte) (abs, bad []string) {
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		key, val, ok := strings.Cut(line, ":")
		if !ok || !isSitemapKey(strings.TrimSpace(key)) {
			continue
		}
		val = strings.TrimSpace(val)
		if u, err := url.Parse(val); err != nil || !u.IsAbs() {
			bad = append(bad, val)
			continue
		}
		abs = append(abs, val)
	}
	return abs, bad
}

// isSitemapKey tells the keys of a Sitemap: line.
func isSitemapKey(k string) bool {
	return strings.EqualFold(k, "sitemap") || strings.EqualFold(k, "site-map") || strings.EqualFold(k, "sitemaps")
}

// robotsCache holds the Sitemap: lines of each origin's robots.txt, each
// fetched once, for cross-submission (check.Options.Robots).
type robotsCache struct {
	mu   sync.Mutex
	byOr map[string]*robotsEntry
}

type robotsEntry struct {
	once  sync.Once
	lines []string
}

// lines returns origin's Sitemap: lines, calling fetch for them the first
// time; concurrent callers for one origin wait for that one fetch.
func (rc *robotsCache) lines(origin string, fetch func() []string) []string {
	rc.mu.Lock()
	if rc.byOr == nil {
		rc.byOr = map[string]*robotsEntry{}
	}
	e := rc.byOr[origin]
	if e == nil {
		e = &robotsEntry{}
		rc.byOr[origin] = e
	}
	rc.mu.Unlock()
	e.once.Do(func() { e.lines = fetch() })
	return e.lines
}

// origin is how check names an origin for Robots: the scheme and host in
// lower case, and the port unless it is the scheme's default.
func origin(u *url.URL) string {
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if port == "" || port == "80" && scheme == "http" || port == "443" && scheme == "https" {
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
		return scheme + "://" + host
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}
