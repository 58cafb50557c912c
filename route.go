package sitemap

import (
	"strconv"

	"github.com/freshmap/sitemap/internal/crawllog"
	"github.com/freshmap/sitemap/internal/htmlview"
	"github.com/freshmap/sitemap/internal/paths"
)

// Document identity, in one place: a request path names a route (a
// document and the form it is served in); a document is named by a
// docKey; a key has one file name (in logs, in messages to the other
// replicas) and one store name (its keys in the Store).

// keyKind is the kind of document a key names.
type keyKind uint8

const (
	docPage  = keyKind(paths.Page)  // page n of a section
	docIndex = keyKind(paths.Index) // the index; a clock's key may name its file n+1 (indexFileKey)
	docFeed  = keyKind(paths.Feed)  // the Atom feed of a section (feed.go)
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
	paths.Names        // the base path, the index's names, each section's file names (internal/paths)
	layout      string // names the sections, in order, in the index's store key
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
// no IndexName can take (internal/paths, CheckIndexName).
func (sn *siteNames) indexFileName(n int) string {
	if n == 1 {
		return sn.IndexName
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
		return sn.Files[k.sec].Feed
	}
	return sn.Files[k.sec].Prefix + strconv.FormatInt(k.page, 10) + ".xml.gz"
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
	rt, ok := sn.route(sn.Path + name)
	switch {
	case !ok, rt.rep == asHTML:
		return docKey{}, false
	case rt.rep == asAtom, rt.key.kind == docIndex && rt.file == 1, rt.key.kind == docPage && rt.rep == asGzipFile:
		return rt.key, true
	}
	return docKey{}, false
}

// representation is the form a document is served in (internal/paths).
type representation = paths.Rep

const (
	asGzipFile = paths.GzipFile // .xml.gz: application/gzip, no Content-Encoding
	asXML      = paths.XML      // .xml: negotiated, gzip-encoded or plain
	asText     = paths.Text     // .txt: the page's locations, one a line (plain.go), negotiated
	asAtom     = paths.Atom     // .atom: a section's Atom feed (feed.go), negotiated
	asHTML     = paths.HTML     // .html: a part of the document's HTML view (html.go), negotiated
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
// not (internal/paths, Names.Owns). The middleware passes every other
// path on.
func (sn *siteNames) owns(path string) bool { return sn.Owns(path) }

// route parses a sitemap path (internal/paths, Names.Route). Only the one
// canonical name of each file is accepted: a page number is a decimal
// without sign or leading zero.
func (sn *siteNames) route(path string) (route, bool) {
	r, ok := sn.Route(path)
	return route{key: docKey{kind: keyKind(r.Kind), sec: r.Sec, page: r.Page}, file: r.File, rep: r.Rep, part: r.Part, root: r.Root}, ok
}

// htmlStem is the name of the first part of document k's HTML view, less
// ".html": the index's name less ".xml" (sitemap_index), or
// sitemap-NAME-N.
func (sn *siteNames) htmlStem(k docKey) string {
	if k.kind == docIndex {
		return sn.IndexStem
	}
	return sn.Files[k.sec].Prefix + strconv.FormatInt(k.page, 10)
}

// htmlPartName is the file name of part n (from 1) of the HTML view
// whose stem is stem.
func htmlPartName(stem string, n int) string { return htmlview.PartName(stem, n) }
