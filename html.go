package sitemap

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/freshmap/sitemap/internal/gzsplice"
)

// The HTML view (Config.HTML): the index and every page as HTML for
// people, at sitemap_index.html and sitemap-NAME-N.html, and their parts
// (htmlPartName). Like the text form (text.go), a view is made from the
// document's cached XML on its first request, never from the Source
// (htmlpage.go, htmlindex.go); it shares the document's content clock
// (Last-Modified), each part has its own ETag from its own bytes, and it
// is kept with its entry and counted in the cache's budget. A part holds
// at most htmlMaxPart bytes, under the 2 MB of an HTML file that
// Googlebot reads, and the parts link to each other with rel="prev" and
// rel="next". The pages need no script: a table with column and row
// headers, a lang and a title.

const (
	htmlMaxPart  = 2_000_000 // bytes of a part, at most: Googlebot reads 2 MB of an HTML file
	htmlReserve  = 64 << 10  // bytes of a part's head, foot and notes, at most
	htmlPartRows = 5000      // rows of a part, at most, so that a browser shows it at once
	htmlListMax  = 10        // images, alternates or videos shown for a URL
	htmlTextMax  = 300       // runes of a title or caption shown
	htmlNotesMax = 16 << 10  // bytes of the notes spliced into a part (htmlNoteList)
)

// htmlNotesMarker marks, in every part, where the live notes go. A
// comment cannot come from a sitemap's content, whose '<' is escaped.
const htmlNotesMarker = "<!--sitemap-notes-->"

var (
	hdrHTMLCT = []string{"text/html; charset=utf-8"}
	// hdrHTMLCSP lets a view run no script and load nothing, whatever a
	// sitemap holds: it needs only its own inline style.
	hdrHTMLCSP = []string{"default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"}
)

// htmlView is the HTML view of a document: its parts, in order.
type htmlView struct {
	parts []*htmlPart
	// counts: an index's view, showing URL counts; counted is the count
	// of page builds (documents.counted) when it was made: its URL counts
	// are those known then.
	counts  bool
	counted int64
	made    time.Time // when it was made (Config.Now)
	notes   atomic.Pointer[viewNotes]
}

// viewNotes are a view's notes (their HTML) as asked in one second.
type viewNotes struct {
	sec  int64 // Unix seconds
	html []byte
}

// notesOf returns the view's notes: those asked of ask in second sec, or
// ask's answer now. So the notes, which the crawl log and the audit make
// with a few allocations, are asked once a second, not per request; they
// say "2 h ago" to the second anyway.
func (v *htmlView) notesOf(sec int64, ask func() []byte) []byte {
	if n := v.notes.Load(); n != nil && n.sec == sec {
		return n.html
	}
	html := ask()
	v.notes.Store(&viewNotes{sec: sec, html: html})
	return html
}

// part returns part n (from 1), or nil.
func (v *htmlView) part(n int) *htmlPart {
	if n < 1 || n > len(v.parts) {
		return nil
	}
	return v.parts[n-1]
}

// htmlPart is one part of a view: its copy without notes, an entry served
// as the document's other forms are, and what a copy with notes is made
// of, without compressing the part again: its bytes before the notes,
// and the rest compressed once (internal/gzsplice). The copy with the
// last notes asked for is kept, so that a part is made once per change of
// its document or of its notes (TestHTMLNotesKept).
type htmlPart struct {
	bare    *entry
	head    []byte         // the part's bytes before its notes
	tail    *gzsplice.Tail // the rest
	tailSum uint64         // the xxhash of the rest
	noted   atomic.Pointer[notedPart]
}

// notedPart is a part's copy with notes: an entry with no Last-Modified
// (the notes change without the file) and ETags over the part and notes.
type notedPart struct {
	notes uint64 // the xxhash of the notes' HTML
	e     *entry
}

// withNotes returns the part's copy with notes (their HTML, from
// appendNotes), made if the copy kept has other notes; keep stores a new
// copy in place of the one kept, if it may.
func (p *htmlPart) withNotes(notes []byte, level int, built time.Time, keep func(c *notedPart)) *entry {
	sum := xxhash.Sum64(notes)
	old := p.noted.Load()
	if old != nil && old.notes == sum {
		return old.e
	}
	head := append(append(make([]byte, 0, len(p.head)+len(notes)), p.head...), notes...)
	gz := p.tail.Append(make([]byte, 0, p.tail.Len(len(head))), head)
	var id [16]byte // the part with notes: its head's hash and its rest's
	binary.LittleEndian.PutUint64(id[:8], xxhash.Sum64(head))
	binary.LittleEndian.PutUint64(id[8:], p.tailSum)
	c := &notedPart{notes: sum, e: newEntry(gz, xxhash.Sum64(id[:]), level, time.Time{}, built)}
	keep(c)
	return c.e
}

// appendNotes appends the HTML of notes, as a part shows them under its
// heading: a list, each escaped, at most htmlNotesMax bytes of them.
func appendNotes(b []byte, notes []string) []byte {
	start := len(b)
	b = append(b, "<ul class=\"notes\">\n"...)
	for _, n := range notes {
		li := len(b)
		b = appendEscaped(append(b, "<li>"...), n)
		b = append(b, "</li>\n"...)
		if len(b)-start > htmlNotesMax {
			b = b[:li] // escaped, it would pass the bound
			break
		}
	}
	return append(b, "</ul>\n"...)
}

// htmlShell is what every part of a view shows around its rows.
type htmlShell struct {
	stem  string   // the view's first part's name less ".html" (htmlStem)
	title string   // what the view shows: "Sitemap file sitemap-products-3.xml.gz"
	intro []byte   // HTML: the paragraph under the heading
	noun  string   // what a row is, in the table's caption: "URLs", "Files"
	cols  []string // the column headers
}

// htmlParts cuts a view's rows into parts: a part ends before the row
// that would take it past htmlMaxPart (less htmlReserve for its head,
// foot and notes) or htmlPartRows. Only the rows of the part being made
// are held, uncompressed; the parts before it are compressed.
type htmlParts struct {
	sh             *htmlShell
	level          int
	lastMod, built time.Time // the document's
	rows           []byte    // the rows of the part being made
	n              int       // how many
	first          int       // the number of its first row, from 1
	parts          []*htmlPart
}

func newHTMLParts(sh *htmlShell, level int, doc *entry) *htmlParts {
	return &htmlParts{sh: sh, level: level, lastMod: doc.lastMod, built: doc.built, first: 1}
}

// add appends a row, first ending the part if the row does not fit. A
// row too large for any part (none is, with the limits rows are made
// under) is shown as such, so that no part passes htmlMaxPart.
func (p *htmlParts) add(row []byte) error {
	if len(row) > htmlMaxPart-htmlReserve {
		row = []byte(`<tr><td colspan="` + strconv.Itoa(len(p.sh.cols)) + `">(too large to show)</td></tr>` + "\n")
	}
	if p.n > 0 && (p.n == htmlPartRows || len(p.rows)+len(row) > htmlMaxPart-htmlReserve) {
		if err := p.flush(true); err != nil {
			return err
		}
	}
	p.rows = append(p.rows, row...)
	p.n++
	return nil
}

// done ends the last part and returns the view; a view with no rows has
// one part, with an empty table.
func (p *htmlParts) done() (*htmlView, error) {
	if p.n > 0 || len(p.parts) == 0 {
		if err := p.flush(false); err != nil {
			return nil, err
		}
	}
	return &htmlView{parts: p.parts}, nil
}

// flush compresses the part being made, which more parts follow if more:
// its head up to where the notes go as it is, the rest once.
func (p *htmlParts) flush(more bool) error {
	num := len(p.parts) + 1
	b := p.sh.appendHead(nil, num, more, p.first, p.first+p.n-1)
	head, rest, _ := bytes.Cut(b, []byte(htmlNotesMarker))
	tw, err := gzsplice.NewTailWriter(p.level)
	if err != nil {
		return err
	}
	ts := xxhash.New() // the rest's hash
	for _, piece := range [][]byte{rest, p.rows, p.sh.appendFoot(nil, num, more)} {
		tw.Write(piece)
		ts.Write(piece)
	}
	tail, err := tw.Close()
	if err != nil {
		return err
	}
	d := xxhash.New() // the part's: of its bytes, as newEntry's ETags name them
	d.Write(head)
	d.Write(rest)
	d.Write(p.rows)
	d.Write(p.sh.appendFoot(nil, num, more))
	hp := &htmlPart{head: head, tail: tail, tailSum: ts.Sum64()}
	hp.bare = newEntry(tail.Append(make([]byte, 0, tail.Len(len(head))), head), d.Sum64(), p.level, p.lastMod, p.built)
	p.parts = append(p.parts, hp)
	p.first += p.n
	p.rows, p.n = p.rows[:0], 0
	return nil
}

// htmlStyle is the view's only styling: readable without it.
const htmlStyle = `<style>
body{font:15px/1.45 system-ui,sans-serif;margin:1.5em;color:#1b1b1b}
table{border-collapse:collapse;width:100%}caption{text-align:left;font-weight:600;padding:.4em 0}
th,td{border-bottom:1px solid #ddd;padding:.35em .5em;text-align:left;vertical-align:top}
thead th{background:#f2f4f7}tbody th{font-weight:normal;word-break:break-all}
ul{margin:0;padding-left:1.1em}nav{margin:1em 0}a{color:#0645ad}.notes{background:#fff8e1;padding:.5em 1.5em}
</style>
`

// appendHead appends the start of part num, up to its first row: first
// and last are the numbers of its rows.
func (sh *htmlShell) appendHead(b []byte, num int, more bool, first, last int) []byte {
	b = append(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"+
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>"...)
	b = appendEscaped(b, sh.title)
	if num > 1 {
		b = append(b, ", part "...)
		b = strconv.AppendInt(b, int64(num), 10)
	}
	b = append(b, "</title>\n"...)
	b = sh.appendLinks(b, "<link", ">\n", num, more)
	b = append(b, htmlStyle...)
	b = append(b, "</head>\n<body>\n<header>\n<h1>"...)
	b = appendEscaped(b, sh.title)
	b = append(b, "</h1>\n<p>"...)
	b = append(b, sh.intro...)
	b = append(b, "</p>\n"+htmlNotesMarker+"\n</header>\n<main>\n<table>\n<caption>"...)
	b = appendEscaped(b, sh.noun)
	if last >= first {
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(first), 10)
		b = append(b, " to "...)
		b = strconv.AppendInt(b, int64(last), 10)
	} else {
		b = append(b, ": none"...)
	}
	b = append(b, "</caption>\n<thead><tr>"...)
	for _, c := range sh.cols {
		b = append(b, `<th scope="col">`...)
		b = appendEscaped(b, c)
		b = append(b, "</th>"...)
	}
	return append(b, "</tr></thead>\n<tbody>\n"...)
}

// appendFoot appends the end of part num, after its last row.
func (sh *htmlShell) appendFoot(b []byte, num int, more bool) []byte {
	b = append(b, "</tbody>\n</table>\n</main>\n"...)
	if num > 1 || more {
		b = append(b, "<nav aria-label=\"Parts\">\n"...)
		b = sh.appendLinks(b, "<a", "</a>\n", num, more)
		b = append(b, "<p>Part "...)
		b = strconv.AppendInt(b, int64(num), 10)
		b = append(b, "</p>\n</nav>\n"...)
	}
	return append(b, "</body>\n</html>\n"...)
}

// appendLinks appends the links to the parts before and after part num,
// as elements that start with open and end with end: <link> in the head,
// <a> in the foot (which then names them).
func (sh *htmlShell) appendLinks(b []byte, open, end string, num int, more bool) []byte {
	link := func(b []byte, rel string, to int, text string) []byte {
		b = append(b, open...)
		b = append(b, ` rel="`+rel+`" href="`...)
		b = appendAttr(b, htmlPartName(sh.stem, to))
		b = append(b, `">`...)
		if open == "<a" {
			b = append(b, text...)
		} else {
			b = b[:len(b)-1]
		}
		return append(b, end...)
	}
	if num > 1 {
		b = link(b, "prev", num-1, "Previous part")
	}
	if more {
		b = link(b, "next", num+1, "Next part")
	}
	return b
}

// htmlNoter gives what the HTML view shows, live, about document k under
// its heading: one line each, as plain text (escaped here), such as the
// crawl log's "Googlebot fetched this file 2 h ago: 304" or the
// self-audit's findings. None is a nil or empty slice.
type htmlNoter interface {
	htmlNotes(k docKey) []string
}

// htmlNoteList is every htmlNoter of a Sitemap, in order; nil has none,
// and the view is then served as it is cached.
type htmlNoteList []htmlNoter

// of returns the notes of every noter about k.
func (l htmlNoteList) of(k docKey) []string {
	var notes []string
	for _, n := range l {
		notes = append(notes, n.htmlNotes(k)...)
	}
	return notes
}
