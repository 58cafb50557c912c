package sitemap

import (
	"math"
	"strconv"
	"strings"
)

// indexFile is the name of the first index file; the others are
// sitemap_index-2.xml and on (indexName).
const indexFile = "sitemap_index.xml"

// indexName is the name of index file number n (from 1).
func indexName(n int) string {
	if n == 1 {
		return indexFile
	}
	return "sitemap_index-" + strconv.Itoa(n) + ".xml"
}

// representation is the form a document is served in.
type representation uint8

const (
	asGzipFile representation = iota // .xml.gz: application/gzip, no Content-Encoding
	asXML                            // .xml: negotiated, gzip-encoded or plain
	asText                           // .txt: the page's locations, one a line (text.go), negotiated
	asAtom                           // .atom: a section's Atom feed (feed.go), negotiated
)

// route is what a sitemap path names.
type route struct {
	sec  *section // nil for the index
	page int64    // for the index, its file number: 1 for sitemap_index.xml, n for sitemap_index-n.xml; 0 for a feed
	rep  representation
}

// owns reports whether path is one of the sitemap's file names, valid or
// not: sitemap_index.xml, or sitemap-*.xml, sitemap-*.xml.gz, sitemap-*.txt,
// sitemap-*.atom and sitemap.atom under the base path, and sitemap.xsl
// with Config.Stylesheet. The middleware
// passes every other path on.
func (s *Sitemap) owns(path string) bool {
	// Most requests are not ours: reject them on one byte first.
	if len(path) <= len(s.prefix)+len("sitemap") || path[len(s.prefix)] != 's' {
		return false
	}
	rest, ok := strings.CutPrefix(path, s.prefix)
	if !ok {
		return false
	}
	return rest == indexFile || rest == unnamedFeed || s.xsl != nil && rest == xslName || strings.HasPrefix(rest, "sitemap_index-") && strings.HasSuffix(rest, ".xml") ||
		strings.HasPrefix(rest, "sitemap-") && (strings.HasSuffix(rest, ".xml") || strings.HasSuffix(rest, ".xml.gz") ||
			strings.HasSuffix(rest, ".txt") || strings.HasSuffix(rest, ".atom"))
}

// route parses a sitemap path. Only the one canonical name of each file is
// accepted: a page number is a decimal without sign or leading zero.
func (s *Sitemap) route(path string) (route, bool) {
	rest, ok := strings.CutPrefix(path, s.prefix)
	if !ok {
		return route{}, false
	}
	if rest == indexFile {
		return route{page: 1, rep: asXML}, true
	}
	if rest == unnamedFeed {
		return s.feedRoute(s.unnamed)
	}
	if num, ok := strings.CutPrefix(rest, "sitemap_index-"); ok {
		// sitemap_index-2.xml and on; the first file has no number.
		if num, ok = strings.CutSuffix(num, ".xml"); !ok {
			return route{}, false
		}
		if n, ok := parsePage(num); ok && n >= 2 {
			return route{page: n, rep: asXML}, true
		}
		return route{}, false
	}
	name, ok := strings.CutPrefix(rest, "sitemap-")
	if !ok {
		return route{}, false
	}
	var rep representation
	switch {
	case strings.HasSuffix(name, ".xml.gz"):
		name, rep = strings.TrimSuffix(name, ".xml.gz"), asGzipFile
	case strings.HasSuffix(name, ".xml"):
		name, rep = strings.TrimSuffix(name, ".xml"), asXML
	case strings.HasSuffix(name, ".txt"):
		name, rep = strings.TrimSuffix(name, ".txt"), asText
	case strings.HasSuffix(name, ".atom"):
		// sitemap-NAME.atom: a page number never ends a feed's name, so
		// sitemap-NAME-N.atom (or a named sitemap-.atom) is nobody's.
		if sec := s.byName[strings.TrimSuffix(name, ".atom")]; sec != nil && sec.name != "" {
			return s.feedRoute(sec)
		}
		return route{}, false
	default:
		return route{}, false
	}
	secName, num := "", name
	if i := strings.LastIndexByte(name, '-'); i >= 0 {
		if i == 0 {
			return route{}, false
		}
		secName, num = name[:i], name[i+1:]
	}
	sec := s.byName[secName]
	if sec == nil {
		return route{}, false
	}
	n, ok := parsePage(num)
	if !ok {
		return route{}, false
	}
	return route{sec: sec, page: n, rep: rep}, true
}

// unnamedFeed is the feed's name of an unnamed section.
const unnamedFeed = "sitemap.atom"

// feedRoute routes to the feed of sec, if sec has one.
func (s *Sitemap) feedRoute(sec *section) (route, bool) {
	if sec == nil || sec.feed == nil {
		return route{}, false
	}
	return route{sec: sec, rep: asAtom}, true
}

// parsePage accepts a canonical page number: 1 to math.MaxInt64 in
// decimal, with no sign and no leading zero.
func parsePage(s string) (int64, bool) {
	if len(s) == 0 || len(s) > 19 || s[0] == '0' {
		return 0, false
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0') // 19 digits fit a uint64
	}
	if n > math.MaxInt64 {
		return 0, false
	}
	return int64(n), true
}
