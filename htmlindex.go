package sitemap

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzip"
)

// The rows of the index's HTML view (html.go): one per <sitemap> of the
// index's cached files, in order, with the file's URL count when this
// replica built the file (count).

// xmlSitemap is a <sitemap> of the index.
type xmlSitemap struct {
	Loc     string `xml:"loc"`
	LastMod string `xml:"lastmod"`
}

var indexCols = []string{"#", "File", "Section", "URLs", "Last modified", "XML"}

// indexHTML makes the HTML view of e, the cached index. count gives the
// URL count of a page, or 0 if it is not known here; a page built later
// makes the view again (documents.htmlStale), so that its count shows.
func (st *site) indexHTML(e *entry, count func(docKey) int) (*htmlView, error) {
	intro := []byte(`The files that <a href="` + st.indexName + `">` + st.indexName + `</a> lists, as search engines read them`)
	intro = appendLastMod(intro, e)
	intro = append(intro, `. A URL count shows once this server has built the file.`...)
	parts := newHTMLParts(&htmlShell{stem: st.htmlStem(indexKey), title: "Sitemap index", intro: intro, noun: "Files", cols: indexCols},
		st.gzipLevel, e)
	prefix := strings.TrimSuffix(st.indexLoc, st.indexName)
	var row []byte
	n := 1
	for f := 1; f <= e.files(); f++ {
		err := eachSitemap(e.file(f).gz, func(sm *xmlSitemap) error {
			row = st.appendFileRow(row[:0], n, sm, prefix, count)
			n++
			return parts.add(row)
		})
		if err != nil {
			return nil, err
		}
	}
	return parts.done()
}

// eachSitemap calls f with every <sitemap> of gz, an index file.
func eachSitemap(gz []byte, f func(*xmlSitemap) error) error {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return err
	}
	dec := xml.NewDecoder(zr)
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "sitemap" {
			var sm xmlSitemap
			if err := dec.DecodeElement(&sm, &se); err != nil {
				return err
			}
			if err := f(&sm); err != nil {
				return err
			}
		}
	}
}

// appendFileRow appends the row of sm, file number n of the index; a
// file's locations all start with prefix, the base URL.
func (st *site) appendFileRow(b []byte, n int, sm *xmlSitemap, prefix string, count func(docKey) int) []byte {
	name := strings.TrimPrefix(sm.Loc, prefix)
	rt, ok := st.route(st.base.path + name)
	ok = ok && rt.key.kind == docPage
	b = append(b, "<tr><td>"...)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, `</td><th scope="row">`...)
	if ok {
		b = append(b, `<a href="`...)
		b = appendAttr(b, htmlPartName(st.htmlStem(rt.key), 1))
		b = append(b, `">`...)
		b = appendEscaped(b, name)
		b = append(b, "</a>"...)
	} else {
		b = appendEscaped(b, name)
	}
	b = append(b, "</th><td>"...)
	if ok {
		b = appendEscaped(b, st.sections[rt.key.sec].name)
		b = append(b, "</td><td>"...)
		if c := count(rt.key); c > 0 {
			b = strconv.AppendInt(b, int64(c), 10)
		}
	} else {
		b = append(b, "</td><td>"...)
	}
	b = append(b, "</td><td>"...)
	b = appendHTMLTime(b, sm.LastMod)
	b = append(b, "</td><td>"...)
	// The .xml, which a browser opens; the .xml.gz the index lists would
	// download (TestHTMLIndexLinksXML).
	b = appendHTMLLink(b, strings.TrimSuffix(sm.Loc, ".gz"), "XML", "")
	return append(b, "</td></tr>\n"...)
}
