// Package htmlview makes the HTML view of a sitemap file for people,
// given bytes and names: the rows of a <urlset> or of a <sitemapindex>,
// read back from the file's XML (rows.go), in parts under the 2 MB of an
// HTML file that Googlebot reads, each compressed once with its head
// apart, so that live notes are spliced in without compressing the part
// again (internal/gzsplice). The pages need no script: a table with
// column and row headers, a lang and a title. It knows nothing of the
// sitemap package: the caller names the files and keeps the parts.
package htmlview

import (
	"bytes"
	"encoding/binary"
	"strconv"

	"github.com/cespare/xxhash/v2"
	"github.com/freshmap/sitemap/internal/gzsplice"
	"github.com/freshmap/sitemap/internal/xmlenc"
)

const (
	MaxPart  = 2_000_000 // bytes of a part, at most: Googlebot reads 2 MB of an HTML file
	Reserve  = 64 << 10  // bytes of a part's head, foot and notes, at most
	PartRows = 5000      // rows of a part, at most, so that a browser shows it at once
	ListMax  = 10        // images, alternates or videos shown for a URL
	TextMax  = 300       // runes of a title or caption shown
	NotesMax = 16 << 10  // bytes of the notes spliced into a part (AppendNotes)
)

// NotesMarker marks, in every part, where the live notes go. A comment
// cannot come from a sitemap's content, whose '<' is escaped.
const NotesMarker = "<!--sitemap-notes-->"

// PartName is the file name of part n (from 1) of the view whose stem is
// stem: "sitemap-products-3.html", "sitemap-products-3.part2.html".
func PartName(stem string, n int) string {
	if n == 1 {
		return stem + ".html"
	}
	return stem + ".part" + strconv.Itoa(n) + ".html"
}

// Part is one part of a view: its gzip bytes without notes and their
// xxhash, and what a copy with notes is made of without compressing the
// part again: its bytes before the notes, and the rest compressed once.
type Part struct {
	Gz      []byte // the part without notes, gzip-compressed
	Sum     uint64 // the xxhash of the part's bytes
	head    []byte // the part's bytes before its notes
	tail    *gzsplice.Tail
	tailSum uint64 // the xxhash of the rest
}

// WithNotes returns the part with notes (their HTML, from AppendNotes)
// where NotesMarker was, gzip-compressed, and a hash that names it: of
// its head's hash and its rest's.
func (p *Part) WithNotes(notes []byte) (gz []byte, sum uint64) {
	head := append(append(make([]byte, 0, len(p.head)+len(notes)), p.head...), notes...)
	gz = p.tail.Append(make([]byte, 0, p.tail.Len(len(head))), head)
	var id [16]byte
	binary.LittleEndian.PutUint64(id[:8], xxhash.Sum64(head))
	binary.LittleEndian.PutUint64(id[8:], p.tailSum)
	return gz, xxhash.Sum64(id[:])
}

// AppendNotes appends the HTML of notes, as a part shows them under its
// heading: a list, each escaped, at most NotesMax bytes of them.
func AppendNotes(b []byte, notes []string) []byte {
	start := len(b)
	b = append(b, "<ul class=\"notes\">\n"...)
	for _, n := range notes {
		li := len(b)
		b = xmlenc.AppendEscaped(append(b, "<li>"...), n)
		b = append(b, "</li>\n"...)
		if len(b)-start > NotesMax {
			b = b[:li] // escaped, it would pass the bound
			break
		}
	}
	return append(b, "</ul>\n"...)
}

// Shell is what every part of a view shows around its rows.
type Shell struct {
	Stem  string   // the view's first part's name less ".html" (PartName)
	Title string   // what the view shows: "Sitemap file sitemap-products-3.xml.gz"
	Intro []byte   // HTML: the paragraph under the heading
	Noun  string   // what a row is, in the table's caption: "URLs", "Files"
	Cols  []string // the column headers
}

// Builder cuts a view's rows into parts: a part ends before the row that
// would take it past MaxPart (less Reserve for its head, foot and notes)
// or PartRows. Only the rows of the part being made are held,
// uncompressed; the parts before it are compressed.
type Builder struct {
	sh    *Shell
	level int    // gzip level
	rows  []byte // the rows of the part being made
	n     int    // how many
	first int    // the number of its first row, from 1
	parts []*Part
}

// NewBuilder starts the parts of a view shown in sh, compressed at the
// gzip level.
func NewBuilder(sh *Shell, level int) *Builder {
	return &Builder{sh: sh, level: level, first: 1}
}

// Add appends a row, first ending the part if the row does not fit. A
// row too large for any part (none is, with the limits rows are made
// under) is shown as such, so that no part passes MaxPart.
func (p *Builder) Add(row []byte) error {
	if len(row) > MaxPart-Reserve {
		row = []byte(`<tr><td colspan="` + strconv.Itoa(len(p.sh.Cols)) + `">(too large to show)</td></tr>` + "\n")
	}
	if p.n > 0 && (p.n == PartRows || len(p.rows)+len(row) > MaxPart-Reserve) {
		if err := p.flush(true); err != nil {
			return err
		}
	}
	p.rows = append(p.rows, row...)
	p.n++
	return nil
}

// Done ends the last part and returns the parts, in order; a view with
// no rows has one part, with an empty table.
func (p *Builder) Done() ([]*Part, error) {
	if p.n > 0 || len(p.parts) == 0 {
		if err := p.flush(false); err != nil {
			return nil, err
		}
	}
	return p.parts, nil
}

// flush compresses the part being made, which more parts follow if more:
// its head up to where the notes go as it is, the rest once.
func (p *Builder) flush(more bool) error {
	num := len(p.parts) + 1
	b := p.sh.appendHead(nil, num, more, p.first, p.first+p.n-1)
	head, rest, _ := bytes.Cut(b, []byte(NotesMarker))
	tw, err := gzsplice.NewTailWriter(p.level)
	if err != nil {
		return err
	}
	foot := p.sh.appendFoot(nil, num, more)
	ts := xxhash.New() // the rest's hash
	for _, piece := range [][]byte{rest, p.rows, foot} {
		tw.Write(piece)
		ts.Write(piece)
	}
	tail, err := tw.Close()
	if err != nil {
		return err
	}
	d := xxhash.New() // the part's: of its bytes
	for _, piece := range [][]byte{head, rest, p.rows, foot} {
		d.Write(piece)
	}
	p.parts = append(p.parts, &Part{
		Gz:   tail.Append(make([]byte, 0, tail.Len(len(head))), head),
		Sum:  d.Sum64(),
		head: head, tail: tail, tailSum: ts.Sum64(),
	})
	p.first += p.n
	p.rows, p.n = p.rows[:0], 0
	return nil
}

// style is the view's only styling: readable without it.
const style = `<style>
body{font:15px/1.45 system-ui,sans-serif;margin:1.5em;color:#1b1b1b}
table{border-collapse:collapse;width:100%}caption{text-align:left;font-weight:600;padding:.4em 0}
th,td{border-bottom:1px solid #ddd;padding:.35em .5em;text-align:left;vertical-align:top}
thead th{background:#f2f4f7}tbody th{font-weight:normal;word-break:break-all}
ul{margin:0;padding-left:1.1em}nav{margin:1em 0}a{color:#0645ad}.notes{background:#fff8e1;padding:.5em 1.5em}
</style>
`

// appendHead appends the start of part num, up to its first row: first
// and last are the numbers of its rows.
func (sh *Shell) appendHead(b []byte, num int, more bool, first, last int) []byte {
	b = append(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"+
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>"...)
	b = xmlenc.AppendEscaped(b, sh.Title)
	if num > 1 {
		b = append(b, ", part "...)
		b = strconv.AppendInt(b, int64(num), 10)
	}
	b = append(b, "</title>\n"...)
	b = sh.appendLinks(b, "<link", ">\n", num, more)
	b = append(b, style...)
	b = append(b, "</head>\n<body>\n<header>\n<h1>"...)
	b = xmlenc.AppendEscaped(b, sh.Title)
	b = append(b, "</h1>\n<p>"...)
	b = append(b, sh.Intro...)
	b = append(b, "</p>\n"+NotesMarker+"\n</header>\n<main>\n<table>\n<caption>"...)
	b = xmlenc.AppendEscaped(b, sh.Noun)
	if last >= first {
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(first), 10)
		b = append(b, " to "...)
		b = strconv.AppendInt(b, int64(last), 10)
	} else {
		b = append(b, ": none"...)
	}
	b = append(b, "</caption>\n<thead><tr>"...)
	for _, c := range sh.Cols {
		b = append(b, `<th scope="col">`...)
		b = xmlenc.AppendEscaped(b, c)
		b = append(b, "</th>"...)
	}
	return append(b, "</tr></thead>\n<tbody>\n"...)
}

// appendFoot appends the end of part num, after its last row.
func (sh *Shell) appendFoot(b []byte, num int, more bool) []byte {
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
func (sh *Shell) appendLinks(b []byte, open, end string, num int, more bool) []byte {
	link := func(b []byte, rel string, to int, text string) []byte {
		b = append(b, open...)
		b = append(b, ` rel="`+rel+`" href="`...)
		b = xmlenc.AppendAttr(b, PartName(sh.Stem, to))
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
