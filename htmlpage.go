package sitemap

import (
	"bytes"
	"cmp"
	"encoding/xml"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The rows of a page's HTML view (html.go): one per <url> of the page's
// cached XML (eachURL), read back by hand when it holds a location and
// the protocol's own elements only (plainURL), and with encoding/xml
// when it holds extensions.

// xmlURL is what the view shows of a <url>. A field's tag is its local
// name: an element is read alone, without its prefix's declaration.
type xmlURL struct {
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

var pageCols = []string{"#", "URL", "Last modified", "Images", "Alternates", "News and video"}

// pageHTML makes the HTML view of e, the cached copy of page k, which the
// index lists with the lastmod listed (zero if none): the view gives the
// file the index's date, not its Last-Modified, which after a restart
// may be later (clock.go, rule 3; TestHTMLDatesAgree).
func (st *site) pageHTML(k docKey, e *entry, listed time.Time) (*htmlView, error) {
	file := st.fileName(k)
	intro := []byte(`The URLs that <a href="`)
	intro = appendAttr(intro, file)
	intro = append(intro, `">`...)
	intro = appendEscaped(intro, file)
	intro = append(intro, `</a> lists, as search engines read them`...)
	if !listed.IsZero() {
		intro = appendHTMLTime(append(intro, ", listed in the index with lastmod "...), listed.UTC().Format(time.RFC3339))
	}
	if k.kind == docPage { // not a one-file sitemap (single.go), which is the index
		intro = append(intro, `. <a href="`...)
		intro = appendAttr(intro, htmlPartName(st.htmlStem(indexKey), 1))
		intro = append(intro, `">All sitemap files</a>`...)
	}
	intro = append(intro, '.')
	parts := newHTMLParts(&htmlShell{stem: st.htmlStem(k), title: "Sitemap file " + file, intro: intro, noun: "URLs", cols: pageCols},
		st.gzipLevel, e)
	var row []byte
	n := 0
	err := eachURL(e.gz, func(elem []byte) error {
		var u xmlURL
		if !plainURL(elem, &u) {
			if err := xml.Unmarshal(elem, &u); err != nil {
				return err
			}
		}
		n++
		row = appendURLRow(row[:0], n, &u)
		return parts.add(row)
	})
	if err != nil {
		return nil, err
	}
	return parts.done()
}

var (
	tagURLLoc  = []byte("<url><loc>")
	tagLocEnd  = []byte("</loc>")
	tagURLEnd  = []byte("</url>")
	tagLastmod = [2][]byte{[]byte("<lastmod>"), []byte("</lastmod>")}
	tagOthers  = [...][2][]byte{{[]byte("<changefreq>"), []byte("</changefreq>")}, {[]byte("<priority>"), []byte("</priority>")}}
)

// plainURL reads elem, a <url> this package wrote, into u if it holds a
// location and the protocol's own elements only, as most do, and reports
// whether it did; a <url> with anything else is left to encoding/xml.
func plainURL(elem []byte, u *xmlURL) bool {
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
	u.Loc, u.LastMod = string(appendUnescapedLoc(nil, loc)), string(lastmod)
	return true
}

// appendLastMod appends ", last modified DATE" if e has a Last-Modified.
func appendLastMod(b []byte, e *entry) []byte {
	if e.lastMod.IsZero() {
		return b
	}
	return appendHTMLTime(append(b, ", last modified "...), e.lastMod.UTC().Format("2006-01-02T15:04:05Z"))
}

// appendURLRow appends the row of u, URL number n of its page. At most
// htmlListMax images, alternates and videos are shown, and htmlTextMax
// runes of a text, so that a row stays far below a part's size.
func appendURLRow(b []byte, n int, u *xmlURL) []byte {
	b = append(b, "<tr><td>"...)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, `</td><th scope="row">`...)
	b = appendHTMLLink(b, u.Loc, u.Loc, "")
	b = append(b, "</th><td>"...)
	b = appendHTMLTime(b, u.LastMod)
	b = append(b, "</td><td>"...)
	b = appendHTMLList(b, len(u.Images), func(b []byte, i int) []byte {
		im := u.Images[i]
		return appendHTMLLink(b, im.Loc, cmp.Or(im.Title, im.Caption, im.Loc), "")
	})
	b = append(b, "</td><td>"...)
	b = appendHTMLList(b, len(u.Alternates), func(b []byte, i int) []byte {
		a := u.Alternates[i]
		return appendHTMLLink(b, a.Href, a.Hreflang, a.Hreflang)
	})
	b = append(b, "</td><td>"...)
	if nw := u.News; nw != nil {
		b = append(b, "<p>News: <cite>"...)
		b = appendHTMLShort(b, nw.Title)
		b = append(b, "</cite>, "...)
		b = appendHTMLShort(b, nw.Name)
		b = append(b, " ("...)
		b = appendHTMLShort(b, nw.Language)
		b = append(b, "), "...)
		b = appendHTMLTime(b, nw.Date)
		b = append(b, "</p>"...)
	}
	b = appendHTMLList(b, len(u.Videos), func(b []byte, i int) []byte {
		v := u.Videos[i]
		b = append(b, "Video: "...)
		b = appendHTMLLink(b, cmp.Or(v.Content, v.Player), v.Title, "")
		if v.Duration != "" {
			b = append(b, ", "...)
			b = appendHTMLShort(b, v.Duration)
			b = append(b, " s"...)
		}
		return b
	})
	return append(b, "</td></tr>\n"...)
}

// appendHTMLList appends n items (at most htmlListMax, then how many more)
// as a list, each appended by item; nothing if n is 0.
func appendHTMLList(b []byte, n int, item func(b []byte, i int) []byte) []byte {
	if n == 0 {
		return b
	}
	b = append(b, "<ul>"...)
	for i := range min(n, htmlListMax) {
		b = item(append(b, "<li>"...), i)
		b = append(b, "</li>"...)
	}
	if n > htmlListMax {
		b = append(b, "<li>and "...)
		b = strconv.AppendInt(b, int64(n-htmlListMax), 10)
		b = append(b, " more</li>"...)
	}
	return append(b, "</ul>"...)
}

// appendHTMLLink appends a link to href showing text (shortened), with the
// hreflang lang if any. Only an http or https URL is a link: anything
// else (a sitemap holds none) is shown as text.
func appendHTMLLink(b []byte, href, text, lang string) []byte {
	if !strings.HasPrefix(href, "https://") && !strings.HasPrefix(href, "http://") {
		return appendHTMLShort(b, text)
	}
	b = append(b, `<a href="`...)
	b = appendAttr(b, href)
	if lang != "" {
		b = append(b, `" hreflang="`...)
		b = appendAttr(b, lang)
	}
	b = append(b, `">`...)
	if text == href {
		b = appendEscaped(b, text) // a URL is shown whole: at most 2,048 bytes
	} else {
		b = appendHTMLShort(b, text)
	}
	return append(b, "</a>"...)
}

// appendHTMLTime appends a W3C datetime as a <time> element.
func appendHTMLTime(b []byte, t string) []byte {
	if t == "" {
		return b
	}
	b = append(b, `<time datetime="`...)
	b = appendAttr(b, t)
	b = append(b, `">`...)
	b = appendEscaped(b, t)
	return append(b, "</time>"...)
}

// appendHTMLShort appends s, escaped, cut after htmlTextMax runes.
func appendHTMLShort(b []byte, s string) []byte {
	if utf8.RuneCountInString(s) <= htmlTextMax {
		return appendEscaped(b, s)
	}
	i, n := 0, 0
	for i = range s {
		if n == htmlTextMax {
			break
		}
		n++
	}
	return append(appendEscaped(b, s[:i]), "…"...)
}
