package check

import (
	"encoding/xml"
	"strings"
)

const (
	nsSitemap = "http://www.sitemaps.org/schemas/sitemap/0.9"
	nsImage   = "http://www.google.com/schemas/sitemap-image/1.1"
	nsVideo   = "http://www.google.com/schemas/sitemap-video/1.1"
	nsNews    = "http://www.google.com/schemas/sitemap-news/0.9"
)

// sequence is the order the schemas give the children of one element:
// each at most once unless repeatable; others tells that elements of other
// namespaces may follow them (a <url>'s extensions).
type sequence struct {
	ns         string
	names      []string
	repeatable map[string]bool
	others     bool
}

func (s *sequence) rank(local string) (int, bool) {
	for i, n := range s.names {
		if n == local {
			return i, true
		}
	}
	return 0, false
}

var sequences = map[xml.Name]*sequence{
	{Space: nsSitemap, Local: "url"}:     {ns: nsSitemap, names: []string{"loc", "lastmod", "changefreq", "priority"}, others: true},
	{Space: nsSitemap, Local: "sitemap"}: {ns: nsSitemap, names: []string{"loc", "lastmod"}},
	{Space: nsImage, Local: "image"}:     {ns: nsImage, names: []string{"loc", "caption", "geo_location", "title", "license"}},
	{Space: nsVideo, Local: "video"}: {ns: nsVideo, names: []string{"thumbnail_loc", "title", "description", "content_loc",
		"player_loc", "duration", "expiration_date", "rating", "content_segment_loc", "view_count", "publication_date", "tag",
		"category", "family_friendly", "restriction", "gallery_loc", "price", "requires_subscription", "uploader", "tvshow",
		"platform", "live", "id"},
		repeatable: map[string]bool{"content_segment_loc": true, "tag": true, "price": true, "id": true}},
	{Space: nsNews, Local: "news"}:        {ns: nsNews, names: []string{"publication", "access", "genres", "publication_date", "title", "keywords", "stock_tickers"}},
	{Space: nsNews, Local: "publication"}: {ns: nsNews, names: []string{"name", "language"}},
}

// frame is an open element while the order is checked.
type frame struct {
	name  xml.Name
	seq   *sequence // nil: its children are not ordered
	rank  int       // of the last child of seq's namespace seen
	other bool      // a child of another namespace was seen
}

// start is parse.Open's hook, called with each start tag as the parser
// reads it: it notes where each <url> and <sitemap> starts, and checks the
// order of the children of the elements the schemas make sequences, which
// the parser does not: a <url>'s loc, lastmod, changefreq and priority,
// then its extensions; a <sitemap>'s loc and lastmod; the children of
// <image:image>, <video:video>, <news:news> and <news:publication>. A tag
// at depth d closes every element open at depth d or more, so no end tag
// is needed. It ends where the parser ends: at the first error that ends
// the document.
func (f *file) start(name xml.Name, depth, line, col int) {
	if depth < 1 || depth > len(f.stack)+1 {
		return // the parser reports every start tag, so a tag is at most one deeper than the last
	}
	f.stack = f.stack[:depth-1]
	if depth == 2 && name.Space == nsSitemap && (name.Local == "url" || name.Local == "sitemap") {
		f.entryLine, f.entryCol = line, col
	}
	if depth > 1 && f.stack[depth-2].seq != nil {
		f.orderChild(&f.stack[depth-2], name, line, col)
	}
	f.stack = append(f.stack, frame{name: name, seq: sequences[name], rank: -1})
}

// orderChild judges child, a child element of p that starts at line:col.
func (f *file) orderChild(p *frame, child xml.Name, line, col int) {
	s := p.seq
	if child.Space != s.ns {
		p.other = true
		return
	}
	r, known := s.rank(child.Local)
	switch {
	case !known:
		return // an unknown element: the parser's rules skip it
	case p.other && s.others:
		f.add("element-order", line, col, "", "<%s> after an extension element: the sitemap elements of a <%s> come first", child.Local, p.name.Local)
	case r < p.rank || r == p.rank && !s.repeatable[child.Local]:
		f.add("element-order", line, col, "", "<%s> out of order or repeated in a <%s>: the order is %s", child.Local, p.name.Local, strings.Join(s.names, ", "))
	}
	p.rank = max(p.rank, r)
}
