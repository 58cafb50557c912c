package htmlview

import (
	"bytes"
	"cmp"
	"encoding/xml"
	"errors"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/klauspost/compress/gzip"

	"github.com/freshmap/sitemap/internal/xmlenc"
)

// The rows of a view: one per <url> of a <urlset> (URL), one per
// <sitemap> of an index (Sitemap), read back from the file's XML.

// URLCols are the columns of a <urlset>'s view.
var URLCols = []string{"#", "URL", "Last modified", "Images", "Alternates", "News and video"}

// IndexCols are the columns of an index's view.
var IndexCols = []string{"#", "File", "Section", "URLs", "Last modified", "XML"}

// URL is what a view shows of a <url>. A field's tag is its local name:
// an element is read alone, without its prefix's declaration.
type URL struct {
	Loc     string `xml:"loc"`
	LastMod string `xml:"lastmod"`
	Images  []struct {
		Loc     string `xml:"loc"`
		Title   string `xml:"title"`
		Caption string `xml:"caption"`
	} `xml:"image"`
	Alternates []struct {
		Hreflang string `xml:"hreflang,attr"`
		Href     string `xml:"href,attr"`
	} `xml:"link"`
	News *struct {
		Name     string `xml:"publication>name"`
		Language string `xml:"publication>language"`
		Date     string `xml:"publication_date"`
		Title    string `xml:"title"`
	} `xml:"news"`
	Videos []struct {
		Title    string `xml:"title"`
		Content  string `xml:"content_loc"`
		Player   string `xml:"player_loc"`
		Duration string `xml:"duration"`
	} `xml:"video"`
}

// ReadURL reads elem, a <url> element as the sitemap package writes it,
// into u: by hand when it holds a location and the protocol's own
// elements only (plainURL), as most do, else with encoding/xml.
func ReadURL(elem []byte, u *URL) error {
	if plainURL(elem, u) {
		return nil
	}
	return xml.Unmarshal(elem, u)
}

var (
	tagURLLoc  = []byte("<url><loc>")
	tagLocEnd  = []byte("</loc>")
	tagURLEnd  = []byte("</url>")
	tagLastmod = [2][]byte{[]byte("<lastmod>"), []byte("</lastmod>")}
	tagOthers  = [...][2][]byte{{[]byte("<changefreq>"), []byte("</changefreq>")}, {[]byte("<priority>"), []byte("</priority>")}}
)

// locRefs are the references a location the sitemap package wrote may
// hold (ampersand and apostrophe, the rest being percent-encoded); any other '&' is
// left as it is.
var locRefs = strings.NewReplacer("&amp;", "&", "&apos;", "'")

// plainURL reads elem into u if it holds a location and the protocol's
// own elements only, and reports whether it did; a <url> with anything
// else is left to encoding/xml.
func plainURL(elem []byte, u *URL) bool {
	rest, ok := bytes.CutPrefix(elem, tagURLLoc)
	if !ok {
		return false
	}
	loc, rest, ok := bytes.Cut(rest, tagLocEnd)
	if !ok {
		return false
	}
	var lastmod []byte
	if r, ok := bytes.CutPrefix(rest, tagLastmod[0]); ok {
		if lastmod, rest, ok = bytes.Cut(r, tagLastmod[1]); !ok {
			return false
		}
	}
	for _, tag := range tagOthers {
		if r, ok := bytes.CutPrefix(rest, tag[0]); ok {
			if _, rest, ok = bytes.Cut(r, tag[1]); !ok {
				return false
			}
		}
	}
	if !bytes.Equal(rest, tagURLEnd) {
		return false
	}
	u.Loc, u.LastMod = string(loc), string(lastmod)
	if bytes.IndexByte(loc, '&') >= 0 {
		u.Loc = locRefs.Replace(u.Loc)
	}
	return true
}

// AppendURLRow appends the row of u, URL number n of its file. At most
// ListMax images, alternates and videos are shown, and TextMax runes of
// a text, so that a row stays far below a part's size.
func AppendURLRow(b []byte, n int, u *URL) []byte {
	b = append(b, "<tr><td>"...)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, `</td><th scope="row">`...)
	b = appendLink(b, u.Loc, u.Loc, "")
	b = append(b, "</th><td>"...)
	b = AppendTime(b, u.LastMod)
	b = append(b, "</td><td>"...)
	b = appendList(b, len(u.Images), func(b []byte, i int) []byte {
		im := u.Images[i]
		return appendLink(b, im.Loc, cmp.Or(im.Title, im.Caption, im.Loc), "")
	})
	b = append(b, "</td><td>"...)
	b = appendList(b, len(u.Alternates), func(b []byte, i int) []byte {
		a := u.Alternates[i]
		return appendLink(b, a.Href, a.Hreflang, a.Hreflang)
	})
	b = append(b, "</td><td>"...)
	if nw := u.News; nw != nil {
		b = append(b, "<p>News: <cite>"...)
		b = appendShort(b, nw.Title)
		b = append(b, "</cite>, "...)
		b = appendShort(b, nw.Name)
		b = append(b, " ("...)
		b = appendShort(b, nw.Language)
		b = append(b, "), "...)
		b = AppendTime(b, nw.Date)
		b = append(b, "</p>"...)
	}
	b = appendList(b, len(u.Videos), func(b []byte, i int) []byte {
		v := u.Videos[i]
		b = append(b, "Video: "...)
		b = appendLink(b, cmp.Or(v.Content, v.Player), v.Title, "")
		if v.Duration != "" {
			b = append(b, ", "...)
			b = appendShort(b, v.Duration)
			b = append(b, " s"...)
		}
		return b
	})
	return append(b, "</td></tr>\n"...)
}

// Sitemap is a <sitemap> of an index.
type Sitemap struct {
	Loc     string `xml:"loc"`
	LastMod string `xml:"lastmod"`
}

// EachSitemap calls f with every <sitemap> of gz, an index file.
func EachSitemap(gz []byte, f func(*Sitemap) error) error {
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
			var sm Sitemap
			if err := dec.DecodeElement(&sm, &se); err != nil {
				return err
			}
			if err := f(&sm); err != nil {
				return err
			}
		}
	}
}

// FileRow is what an index's view shows of one file.
type FileRow struct {
	N       int    // its number in the index, from 1
	Name    string // its name under the base path, as the index lists it
	View    string // its view's first part's name; "" if it has none (not a file of ours)
	Section string // its section's name
	URLs    int    // its URL count; 0 if not known
	LastMod string // its lastmod in the index
	XML     string // the URL of its plain .xml, which a browser opens
}

// AppendFileRow appends the row of f.
func AppendFileRow(b []byte, f *FileRow) []byte {
	b = append(b, "<tr><td>"...)
	b = strconv.AppendInt(b, int64(f.N), 10)
	b = append(b, `</td><th scope="row">`...)
	if f.View != "" {
		b = append(b, `<a href="`...)
		b = xmlenc.AppendAttr(b, f.View)
		b = append(b, `">`...)
		b = xmlenc.AppendEscaped(b, f.Name)
		b = append(b, "</a>"...)
	} else {
		b = xmlenc.AppendEscaped(b, f.Name)
	}
	b = append(b, "</th><td>"...)
	b = xmlenc.AppendEscaped(b, f.Section)
	b = append(b, "</td><td>"...)
	if f.URLs > 0 {
		b = strconv.AppendInt(b, int64(f.URLs), 10)
	}
	b = append(b, "</td><td>"...)
	b = AppendTime(b, f.LastMod)
	b = append(b, "</td><td>"...)
	b = appendLink(b, f.XML, "XML", "")
	return append(b, "</td></tr>\n"...)
}

// appendList appends n items (at most ListMax, then how many more) as a
// list, each appended by item; nothing if n is 0.
func appendList(b []byte, n int, item func(b []byte, i int) []byte) []byte {
	if n == 0 {
		return b
	}
	b = append(b, "<ul>"...)
	for i := range min(n, ListMax) {
		b = item(append(b, "<li>"...), i)
		b = append(b, "</li>"...)
	}
	if n > ListMax {
		b = append(b, "<li>and "...)
		b = strconv.AppendInt(b, int64(n-ListMax), 10)
		b = append(b, " more</li>"...)
	}
	return append(b, "</ul>"...)
}

// appendLink appends a link to href showing text (shortened), with the
// hreflang lang if any. Only an http or https URL is a link: anything
// else (a sitemap holds none) is shown as text.
func appendLink(b []byte, href, text, lang string) []byte {
	if !strings.HasPrefix(href, "https://") && !strings.HasPrefix(href, "http://") {
		return appendShort(b, text)
	}
	b = append(b, `<a href="`...)
	b = xmlenc.AppendAttr(b, href)
	if lang != "" {
		b = append(b, `" hreflang="`...)
		b = xmlenc.AppendAttr(b, lang)
	}
	b = append(b, `">`...)
	if text == href {
		b = xmlenc.AppendEscaped(b, text) // a URL is shown whole: at most 2,048 bytes
	} else {
		b = appendShort(b, text)
	}
	return append(b, "</a>"...)
}

// AppendTime appends a W3C datetime as a <time> element.
func AppendTime(b []byte, t string) []byte {
	if t == "" {
		return b
	}
	b = append(b, `<time datetime="`...)
	b = xmlenc.AppendAttr(b, t)
	b = append(b, `">`...)
	b = xmlenc.AppendEscaped(b, t)
	return append(b, "</time>"...)
}

// appendShort appends s, escaped, cut after TextMax runes.
func appendShort(b []byte, s string) []byte {
	if utf8.RuneCountInString(s) <= TextMax {
		return xmlenc.AppendEscaped(b, s)
	}
	i, n := 0, 0
	for i = range s {
		if n == TextMax {
			break
		}
		n++
	}
	return append(xmlenc.AppendEscaped(b, s[:i]), "…"...)
}
