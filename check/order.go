package check

import (
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"io"

	"github.com/freshmap/sitemap"
)

const nsSitemap = "http://www.sitemaps.org/schemas/sitemap/0.9"

// orderRules records where each <url> and <sitemap> of data (plain or
// gzip) starts, and checks the order of their sitemap elements, which the
// parser does not: the
// schema's sequence is loc, lastmod, changefreq, priority (a <sitemap>:
// loc, lastmod), each at most once, then the extension elements, of other
// namespaces. It reads the document a second time, token by token, up to
// the file size limit; a document the parser found malformed was already
// reported, so a read error here ends the pass quietly.
func (f *file) orderRules(data []byte) {
	var r io.Reader = bytes.NewReader(data)
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return
		}
		r = zr
	}
	d := xml.NewDecoder(io.LimitReader(r, sitemap.MaxBytes+1))
	d.Strict = true
	depth := 0
	var entry string // "url" or "sitemap" while inside one, at depth 2
	rank, other := -1, false
	for {
		line, col := d.InputPos()
		tok, err := d.Token()
		if err != nil {
			return
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			switch {
			case depth == 2:
				entry, rank, other = "", -1, false
				if t.Name.Space == nsSitemap && (t.Name.Local == "url" || t.Name.Local == "sitemap") {
					entry = t.Name.Local
					f.entryLines, f.entryCols = append(f.entryLines, line), append(f.entryCols, col)
				}
			case depth == 3 && entry != "":
				f.orderChild(entry, t, &rank, &other, line, col)
			}
		case xml.EndElement:
			depth--
		}
	}
}

// orderChild judges one child element of an entry, at line:col.
func (f *file) orderChild(entry string, t xml.StartElement, rank *int, other *bool, line, col int) {
	if t.Name.Space != nsSitemap {
		*other = true
		return
	}
	order := map[string]int{"loc": 0, "lastmod": 1, "changefreq": 2, "priority": 3}
	if entry == "sitemap" {
		order = map[string]int{"loc": 0, "lastmod": 1}
	}
	r, known := order[t.Name.Local]
	switch {
	case !known:
		return // an unknown sitemap element: the parser's rules skip it
	case *other:
		f.add("element-order", line, col, "", "<%s> after an extension element: the sitemap elements of a <%s> come first", t.Name.Local, entry)
	case r <= *rank:
		f.add("element-order", line, col, "", "<%s> out of order or repeated in a <%s>: the order is %s", t.Name.Local, entry, orderText(entry))
	}
	*rank = max(*rank, r)
}

func orderText(entry string) string {
	if entry == "sitemap" {
		return "loc, lastmod"
	}
	return "loc, lastmod, changefreq, priority, then extensions"
}
