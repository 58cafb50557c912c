package sitemap

import (
	"math"
	"strconv"
	"strings"

	"github.com/freshmap/sitemap/internal/crawllog"
	"github.com/freshmap/sitemap/internal/htmlview"
)

// Document identity, in one place: a request path names a route (a
// document and the form it is served in); a document is named by a
// docKey; a key has one file name (in logs, in messages to the other
// replicas) and one store name (its keys in the Store).

// keyKind is the kind of document a key names.
type keyKind uint8

const (
	docPage  keyKind = iota // page n of a section
	docIndex                // the index; a clock's key may name its file n+1 (indexFileKey)
	docFeed                 // the Atom feed of a section (feed.go)
)

// docKey names a document: its kind, its section (pages and feeds) and
// its number (pages; for the index, the file number less one, which only
// a clock's key uses). It is comparable and needs no allocation.
type docKey struct {
	kind keyKind
	sec  int
	page int64
}

var indexKey = docKey{kind: docIndex}

// pageKey is the key of page n of section sec.
func pageKey(sec int, n int64) docKey { return docKey{kind: docPage, sec: sec, page: n} }

// feedKey is the key of the Atom feed of section sec.
func feedKey(sec int) docKey { return docKey{kind: docFeed, sec: sec} }

// indexFileKey is the clock key of index file number file (from 1); the
// first is indexKey.
func indexFileKey(file int) docKey { return docKey{kind: docIndex, page: int64(file - 1)} }

// row is k's row in SectionStats (internal/secstats, Table.At) in a site of n sections,
// which is also the crawl log's group of its file: the pages of each
// section, then the feeds, then the index.
func (k docKey) row(n int) int {
	switch k.kind {
	case docPage:
		return k.sec
	case docFeed:
		return n + k.sec
	}
	return 2 * n
}

// rowKey is row's inverse: the key of number page (an index file's is
// indexFileKey's) in row i of a site of n sections.
func rowKey(i, n int, page int64) docKey {
	switch {
	case i < n:
		return pageKey(i, page)
	case i < 2*n:
		return docKey{kind: docFeed, sec: i - n, page: page}
	}
	return docKey{kind: docIndex, page: page}
}

// crawlFile is k's file in the crawl log (indexFileKey for an index
// file), in a site of n sections.
func (k docKey) crawlFile(n int) crawllog.File { return crawllog.File{Group: k.row(n), N: k.page} }

// String is the key's name in singleflight groups.
func (k docKey) String() string {
	switch k.kind {
	case docIndex:
		return "index/" + strconv.FormatInt(k.page, 10)
	case docFeed:
		return "feed/" + strconv.Itoa(k.sec)
	}
	return strconv.Itoa(k.sec) + "/" + strconv.FormatInt(k.page, 10)
}

// indexFile is the default name of the first index file
// (Config.IndexName), and its name in the Store whatever its name; the
// others are sitemap_index-2.xml and on (indexFileName).
const indexFile = "sitemap_index.xml"

// rootName is the name crawlers and people try first. Unless it is the
// index's name, it stands for the index where the application has no
// file of its own there (middleware.go, serveRoot).
const rootName = "sitemap.xml"

// unnamedFeed is the feed's name of an unnamed section.
const unnamedFeed = "sitemap.atom"

// siteNames is what naming and routing read of the site (site embeds
// it, settings.go): the base path, the index's names and each section's
// file names. New fills it in; nothing changes it after.
type siteNames struct {
	path      string         // the base URL's path: "/shop/"
	indexName string         // Config.IndexName: sitemap_index.xml by default
	indexStem string         // indexName less ".xml": its HTML view's name less ".html"
	layout    string         // names the sections, in order, in the index's store key
	html      bool           // serve the HTML view (html.go)
	xslName   string         // the stylesheet's file name (Config.Stylesheet, xsl.go); "" when off
	files     []sectionFiles // by section number
	numbers   map[string]int // the section numbers by name, "" for the unnamed section
}

// sectionFiles are the names of a section's files.
type sectionFiles struct {
	name   string // the section's name; "" if it is unnamed
	prefix string // of its pages: "sitemap-NAME-" or "sitemap-"
	feed   string // of its Atom feed: sitemap-NAME.atom or sitemap.atom; "" if it has none
}

// pagePrefix is the start of the file names of a section's pages.
func pagePrefix(section string) string {
	if section == "" {
		return "sitemap-"
	}
	return "sitemap-" + section + "-"
}

// indexFileName is the name of index file number n (from 1): the first
// is Config.IndexName; the others keep their names whatever it is, which
// no IndexName can take (checkIndexName).
func (sn *siteNames) indexFileName(n int) string {
	if n == 1 {
		return sn.indexName
	}
	return "sitemap_index-" + strconv.Itoa(n) + ".xml"
}

// fileName names the document k: its file name under the base path, as
// logs and the messages to other replicas name it.
func (sn *siteNames) fileName(k docKey) string {
	switch k.kind {
	case docIndex:
		return sn.indexFileName(int(k.page) + 1)
	case docFeed:
		return sn.files[k.sec].feed
	}
	return sn.files[k.sec].prefix + strconv.FormatInt(k.page, 10) + ".xml.gz"
}

// storeName is the name of document k in the Store. An index depends on
// every section, so replicas whose sections differ (a rolling deploy that
// adds one) keep their indexes apart.
func (sn *siteNames) storeName(k docKey) string {
	if k == indexKey {
		return indexFile + "@" + sn.layout
	}
	return sn.fileName(k)
}

// keyOf returns the key of the document whose file name is name (as
// fileName gives it), if this site has it.
func (sn *siteNames) keyOf(name string) (docKey, bool) {
	rt, ok := sn.route(sn.path + name)
	switch {
	case !ok, rt.rep == asHTML:
		return docKey{}, false
	case rt.rep == asAtom, rt.key.kind == docIndex && rt.file == 1, rt.key.kind == docPage && rt.rep == asGzipFile:
		return rt.key, true
	}
	return docKey{}, false
}

// representation is the form a document is served in.
type representation uint8

const (
	asGzipFile representation = iota // .xml.gz: application/gzip, no Content-Encoding
	asXML                            // .xml: negotiated, gzip-encoded or plain
	asText                           // .txt: the page's locations, one a line (plain.go), negotiated
	asAtom                           // .atom: a section's Atom feed (feed.go), negotiated
	asHTML                           // .html: a part of the document's HTML view (html.go), negotiated
)

// route is what a sitemap path names: a document, the form it is served
// in and, for the index, which of its files.
type route struct {
	key  docKey
	file int // the index file, from 1
	rep  representation
	part int // the part of the HTML view, from 1
	// root: rootName standing for the index, which the application's own
	// file of that name, if it has one, overrides (middleware.go).
	root bool
}

// owns reports whether path is one of the sitemap's file names, valid or
// not: the index's (Config.IndexName) and sitemap.xml, or sitemap-*.xml, sitemap-*.xml.gz, sitemap-*.txt,
// sitemap-*.atom and sitemap.atom under the base path, sitemap.xsl
// with Config.Stylesheet, and sitemap_index*.html and sitemap-*.html with
// Config.HTML. The middleware passes every other path on.
func (sn *siteNames) owns(path string) bool {
	prefix := sn.path
	// Most requests are not ours: reject them on one byte first.
	if len(path) <= len(prefix) || path[len(prefix)] != 's' && path[len(prefix)] != sn.indexName[0] {
		return false
	}
	rest, ok := strings.CutPrefix(path, prefix)
	if !ok {
		return false
	}
	if sn.html && strings.HasSuffix(rest, ".html") && (strings.HasPrefix(rest, "sitemap-") || strings.HasPrefix(rest, "sitemap_index") || strings.HasPrefix(rest, sn.indexStem)) {
		return true
	}
	return rest == sn.indexName || rest == rootName || rest == unnamedFeed || sn.xslName != "" && rest == sn.xslName || strings.HasPrefix(rest, "sitemap_index-") && strings.HasSuffix(rest, ".xml") ||
		strings.HasPrefix(rest, "sitemap-") && (strings.HasSuffix(rest, ".xml") || strings.HasSuffix(rest, ".xml.gz") ||
			strings.HasSuffix(rest, ".txt") || strings.HasSuffix(rest, ".atom"))
}

// route parses a sitemap path. Only the one canonical name of each file is
// accepted: a page number is a decimal without sign or leading zero.
func (sn *siteNames) route(path string) (route, bool) {
	rest, ok := strings.CutPrefix(path, sn.path)
	if !ok {
		return route{}, false
	}
	if rest == sn.indexName {
		return route{key: indexKey, file: 1, rep: asXML}, true
	}
	if rest == rootName {
		return route{key: indexKey, file: 1, rep: asXML, root: true}, true
	}
	if rest == unnamedFeed {
		i, ok := sn.numbers[""]
		return sn.feedRoute(i, ok)
	}
	if sn.html && strings.HasSuffix(rest, ".html") {
		return sn.htmlRoute(strings.TrimSuffix(rest, ".html"))
	}
	if num, ok := strings.CutPrefix(rest, "sitemap_index-"); ok {
		// sitemap_index-2.xml and on; the first file has no number.
		if num, ok = strings.CutSuffix(num, ".xml"); !ok {
			return route{}, false
		}
		if n, ok := parsePage(num); ok && n >= 2 {
			return route{key: indexKey, file: int(min(n, math.MaxInt32)), rep: asXML}, true
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
		if i, ok := sn.numbers[strings.TrimSuffix(name, ".atom")]; ok && sn.files[i].name != "" {
			return sn.feedRoute(i, true)
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
	sec, ok := sn.numbers[secName]
	if !ok {
		return route{}, false
	}
	page, ok := parsePage(num)
	if !ok {
		return route{}, false
	}
	return route{key: pageKey(sec, page), rep: rep}, true
}

// htmlRoute routes the name of a part of an HTML view, less ".html":
// sitemap_index or sitemap-NAME-N for the first part, and with ".partP"
// (P from 2, canonical) for the others (htmlPartName).
func (sn *siteNames) htmlRoute(stem string) (route, bool) {
	part := int64(1)
	if i := strings.LastIndex(stem, ".part"); i >= 0 {
		p, ok := parsePage(stem[i+len(".part"):])
		if !ok || p < 2 {
			return route{}, false
		}
		stem, part = stem[:i], min(p, math.MaxInt32)
	}
	rt, ok := route{key: indexKey, file: 1}, stem == sn.indexStem
	if !ok {
		// The page's XML route decides: the same names, the same rules.
		rt, ok = sn.route(sn.path + stem + ".xml.gz")
	}
	rt.rep, rt.part = asHTML, int(part)
	return rt, ok && rt.key.kind != docFeed
}

// htmlStem is the name of the first part of document k's HTML view, less
// ".html": the index's name less ".xml" (sitemap_index), or
// sitemap-NAME-N.
func (sn *siteNames) htmlStem(k docKey) string {
	if k.kind == docIndex {
		return sn.indexStem
	}
	return sn.files[k.sec].prefix + strconv.FormatInt(k.page, 10)
}

// htmlPartName is the file name of part n (from 1) of the HTML view
// whose stem is stem.
func htmlPartName(stem string, n int) string { return htmlview.PartName(stem, n) }

// feedRoute routes to the feed of section sec, if ok (there is such a
// section) and it has one.
func (sn *siteNames) feedRoute(sec int, ok bool) (route, bool) {
	if !ok || sn.files[sec].feed == "" {
		return route{}, false
	}
	return route{key: feedKey(sec), rep: asAtom}, true
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
