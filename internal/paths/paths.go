// Package paths parses a sitemap's request paths: which of its file names
// a path is, valid or not (Owns), and what a valid one names (Route): a
// document by kind, section and number, the form it is served in, the
// index file, the HTML view's part. It is given the site's names as plain
// strings; the root package's siteNames embeds them and keeps the
// documents' keys, file names and store names.
package paths

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cespare/xxhash/v2"
)

// Kind is the kind of document a path names, in the order of the root's
// keyKind.
type Kind uint8

const (
	Page  Kind = iota // page n of a section
	Index             // the index
	Feed              // the Atom feed of a section
)

// Rep is the form a document is served in.
type Rep uint8

const (
	GzipFile Rep = iota // .xml.gz: application/gzip, no Content-Encoding
	XML                 // .xml: negotiated, gzip-encoded or plain
	Text                // .txt: the page's locations, one a line, negotiated
	Atom                // .atom: a section's Atom feed, negotiated
	HTML                // .html: a part of the document's HTML view, negotiated
)

// Route is what a sitemap path names: a document (its kind, section and
// page number), the form it is served in and, for the index, which of its
// files.
type Route struct {
	Kind Kind
	Sec  int
	Page int64
	File int // the index file, from 1
	Rep  Rep
	Part int // the part of the HTML view, from 1
	// Root: sitemap.xml standing for the index, which the application's
	// own file of that name, if it has one, overrides.
	Root bool
}

// Names are a site's file names, as routing reads them. The site fills
// them in once; nothing changes them after.
type Names struct {
	Path      string         // the base URL's path: "/shop/"
	IndexName string         // the index's name (Config.IndexName): sitemap_index.xml by default
	IndexStem string         // IndexName less ".xml": its HTML view's name less ".html"
	HTML      bool           // serve the HTML view (Config.HTML)
	XSLName   string         // the stylesheet's file name (Config.Stylesheet); "" when off
	Files     []Files        // by section number
	Numbers   map[string]int // the section numbers by name, "" for the unnamed section
}

// Files are the names of a section's files.
type Files struct {
	Name   string // the section's name; "" if it is unnamed
	Prefix string // of its pages: "sitemap-NAME-" or "sitemap-"
	Feed   string // of its Atom feed: sitemap-NAME.atom or sitemap.atom; "" if it has none
}

// The names every site has: rootName, which crawlers and people try
// first, and the feed of an unnamed section.
const (
	rootName    = "sitemap.xml"
	unnamedFeed = "sitemap.atom"
)

// owns reports whether path is one of the sitemap's file names, valid or
// not: the index's (the index's name) and sitemap.xml, or sitemap-*.xml, sitemap-*.xml.gz, sitemap-*.txt,
// sitemap-*.atom and sitemap.atom under the base path, sitemap.xsl
// with Config.Stylesheet, and sitemap_index*.html and sitemap-*.html with
// Config.HTML. The middleware passes every other path on.
func (n *Names) Owns(path string) bool {
	prefix := n.Path
	// Most requests are not ours: reject them on one byte first.
	if len(path) <= len(prefix) || path[len(prefix)] != 's' && path[len(prefix)] != n.IndexName[0] {
		return false
	}
	rest, ok := strings.CutPrefix(path, prefix)
	if !ok {
		return false
	}
	if n.HTML && strings.HasSuffix(rest, ".html") && (strings.HasPrefix(rest, "sitemap-") || strings.HasPrefix(rest, "sitemap_index") || strings.HasPrefix(rest, n.IndexStem)) {
		return true
	}
	return rest == n.IndexName || rest == rootName || rest == unnamedFeed || n.XSLName != "" && rest == n.XSLName || strings.HasPrefix(rest, "sitemap_index-") && strings.HasSuffix(rest, ".xml") ||
		strings.HasPrefix(rest, "sitemap-") && (strings.HasSuffix(rest, ".xml") || strings.HasSuffix(rest, ".xml.gz") ||
			strings.HasSuffix(rest, ".txt") || strings.HasSuffix(rest, ".atom"))
}

// route parses a sitemap path. Only the one canonical name of each file is
// accepted: a page number is a decimal without sign or leading zero.
func (n *Names) Route(path string) (Route, bool) {
	rest, ok := strings.CutPrefix(path, n.Path)
	if !ok {
		return Route{}, false
	}
	if rest == n.IndexName {
		return Route{Kind: Index, File: 1, Rep: XML}, true
	}
	if rest == rootName {
		return Route{Kind: Index, File: 1, Rep: XML, Root: true}, true
	}
	if rest == unnamedFeed {
		i, ok := n.Numbers[""]
		return n.feedRoute(i, ok)
	}
	if n.HTML && strings.HasSuffix(rest, ".html") {
		return n.htmlRoute(strings.TrimSuffix(rest, ".html"))
	}
	if num, ok := strings.CutPrefix(rest, "sitemap_index-"); ok {
		// sitemap_index-2.xml and on; the first file has no number.
		if num, ok = strings.CutSuffix(num, ".xml"); !ok {
			return Route{}, false
		}
		if n, ok := ParsePage(num); ok && n >= 2 {
			return Route{Kind: Index, File: int(min(n, math.MaxInt32)), Rep: XML}, true
		}
		return Route{}, false
	}
	name, ok := strings.CutPrefix(rest, "sitemap-")
	if !ok {
		return Route{}, false
	}
	var rep Rep
	switch {
	case strings.HasSuffix(name, ".xml.gz"):
		name, rep = strings.TrimSuffix(name, ".xml.gz"), GzipFile
	case strings.HasSuffix(name, ".xml"):
		name, rep = strings.TrimSuffix(name, ".xml"), XML
	case strings.HasSuffix(name, ".txt"):
		name, rep = strings.TrimSuffix(name, ".txt"), Text
	case strings.HasSuffix(name, ".atom"):
		// sitemap-NAME.atom: a page number never ends a feed's name, so
		// sitemap-NAME-N.atom (or a named sitemap-.atom) is nobody's.
		if i, ok := n.Numbers[strings.TrimSuffix(name, ".atom")]; ok && n.Files[i].Name != "" {
			return n.feedRoute(i, true)
		}
		return Route{}, false
	default:
		return Route{}, false
	}
	secName, num := "", name
	if i := strings.LastIndexByte(name, '-'); i >= 0 {
		if i == 0 {
			return Route{}, false
		}
		secName, num = name[:i], name[i+1:]
	}
	sec, ok := n.Numbers[secName]
	if !ok {
		return Route{}, false
	}
	page, ok := ParsePage(num)
	if !ok {
		return Route{}, false
	}
	return Route{Kind: Page, Sec: sec, Page: page, Rep: rep}, true
}

// htmlRoute routes the name of a part of an HTML view, less ".html":
// sitemap_index or sitemap-NAME-N for the first part, and with ".partP"
// (P from 2, canonical) for the others (htmlview.PartName).
func (n *Names) htmlRoute(stem string) (Route, bool) {
	part := int64(1)
	if i := strings.LastIndex(stem, ".part"); i >= 0 {
		p, ok := ParsePage(stem[i+len(".part"):])
		if !ok || p < 2 {
			return Route{}, false
		}
		stem, part = stem[:i], min(p, math.MaxInt32)
	}
	rt, ok := Route{Kind: Index, File: 1}, stem == n.IndexStem
	if !ok {
		// The page's XML route decides: the same names, the same rules.
		rt, ok = n.Route(n.Path + stem + ".xml.gz")
	}
	rt.Rep, rt.Part = HTML, int(part)
	return rt, ok && rt.Kind != Feed
}

// feedRoute routes to the feed of section sec, if ok (there is such a
// section) and it has one.
func (n *Names) feedRoute(sec int, ok bool) (Route, bool) {
	if !ok || n.Files[sec].Feed == "" {
		return Route{}, false
	}
	return Route{Kind: Feed, Sec: sec, Rep: Atom}, true
}

// ParsePage accepts a canonical page number: 1 to math.MaxInt64 in
// decimal, with no sign and no leading zero.
func ParsePage(s string) (int64, bool) {
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

// MaxIndexName is the longest index name (Config.IndexName).
const MaxIndexName = 100

// CheckIndexName checks an index name (Config.IndexName): a file name ending in ".xml",
// of ASCII letters, digits, '_' and '-' before it (a '.' could make its
// HTML view's name a part's), and none of the names the sitemap has for its other files (sitemap-*,
// sitemap_index-*).
func CheckIndexName(name string) error {
	stem, ok := strings.CutSuffix(name, ".xml")
	if !ok || stem == "" || len(name) > MaxIndexName {
		return fmt.Errorf("IndexName %q: want a file name ending in \".xml\", at most %d bytes, such as \"sitemap.xml\"", name, MaxIndexName)
	}
	for i := 0; i < len(stem); i++ {
		c := stem[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return fmt.Errorf("IndexName %q: use ASCII letters, digits, '_' and '-' before \".xml\"", name)
		}
	}
	if strings.HasPrefix(name, "sitemap-") || strings.HasPrefix(name, "sitemap_index-") {
		return fmt.Errorf("IndexName %q is a name of the sitemap's other files (sitemap-*, sitemap_index-*)", name)
	}
	return nil
}

// ValidSectionName reports whether name is a section name: 1 to max
// lower-case ASCII letters, digits, '_' or '-', starting with a letter or
// digit (so no section takes a pseudo-section's name, which starts with
// '_').
func ValidSectionName(name string, max int) bool {
	if len(name) > max || name[0] == '-' || name[0] == '_' {
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

// Layout names the sections of an index, in order: the xxhash of their
// names, each followed by a zero byte, in hexadecimal.
func Layout(files []Files) string {
	h := xxhash.New()
	for _, f := range files {
		h.WriteString(f.Name)
		h.WriteString("\x00")
	}
	return strconv.FormatUint(h.Sum64(), 16)
}
