// Package readback reads back the sitemap files this module wrote
// (internal/xmlenc), from their gzip bytes, without an XML parser: each
// <url> element starts a line with "<url>" (its location right after, as
// "<url><loc>") and ends one with "</url>", which no text inside it can
// do, since a text's '<' is escaped. It gives the locations, for the
// text form of a page and for the URLs a rebuilt page lost; the <url>
// elements whole, for the HTML view and the self-audit; and their
// hashes, for the change tracking of a page whose previous copy came
// without them. A document written by anything else is not read here
// (package parse reads any sitemap).
package readback

import (
	"bufio"
	"bytes"
	"cmp"
	"io"

	"github.com/cespare/xxhash/v2"
	"github.com/klauspost/compress/gzip"
)

// EachLoc calls f with the location, as written (XML-escaped), of every
// <url> of gz, a <urlset> this module wrote; loc is valid during the call
// only.
func EachLoc(gz []byte, f func(loc []byte)) error {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return err
	}
	br := bufio.NewReaderSize(zr, 64<<10)
	lineStart := true
	for {
		line, err := br.ReadSlice('\n')
		if lineStart && bytes.HasPrefix(line, []byte("<url><loc>")) {
			loc, _, ok := bytes.Cut(line[len("<url><loc>"):], []byte("</loc>"))
			if !ok {
				return io.ErrUnexpectedEOF
			}
			f(loc)
		}
		switch {
		case err == bufio.ErrBufferFull:
			lineStart = false
		case err == io.EOF:
			return nil
		case err != nil:
			return err
		default:
			lineStart = true
		}
	}
}

// AppendUnescapedLoc appends loc with the two entities a location may hold
// turned back into their characters.
func AppendUnescapedLoc(b, loc []byte) []byte {
	for len(loc) > 0 {
		i := bytes.IndexByte(loc, '&')
		if i < 0 {
			return append(b, loc...)
		}
		b = append(b, loc[:i]...)
		switch rest := loc[i:]; {
		case bytes.HasPrefix(rest, []byte("&amp;")):
			b, loc = append(b, '&'), rest[len("&amp;"):]
		case bytes.HasPrefix(rest, []byte("&apos;")):
			b, loc = append(b, '\''), rest[len("&apos;"):]
		default:
			b, loc = append(b, '&'), rest[1:]
		}
	}
	return b
}

// EachURL calls f with every <url> element of gz, a <urlset> this module
// wrote, as written; elem is valid during the call only. An element
// starts a line ("<url>") and ends one ("</url>"); it spans several lines
// only where a text holds a line break, and no line of a text starts or
// ends so, since a text's '<' is escaped.
func EachURL(gz []byte, f func(elem []byte) error) error {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return err
	}
	br := bufio.NewReaderSize(zr, 64<<10)
	var elem []byte // the element read so far, when it spans reads or lines
	lineStart, in := true, false
	for {
		chunk, err := br.ReadSlice('\n')
		if err != nil && err != bufio.ErrBufferFull && err != io.EOF {
			return err
		}
		ends := err != bufio.ErrBufferFull // chunk ends a line, or the stream
		if lineStart && !in && bytes.HasPrefix(chunk, []byte("<url>")) {
			in = true
		}
		if in {
			switch body := bytes.TrimSuffix(chunk, []byte("\n")); {
			case ends && len(elem) == 0 && bytes.HasSuffix(body, []byte("</url>")):
				in = false
				if err := f(body); err != nil {
					return err
				}
			case ends && bytes.HasSuffix(append(elem, body...), []byte("</url>")):
				elem, in = append(elem, body...), false
				if err := f(elem); err != nil {
					return err
				}
				elem = elem[:0]
			default:
				elem = append(elem, chunk...)
			}
		}
		if err == io.EOF {
			if in {
				return io.ErrUnexpectedEOF
			}
			return nil
		}
		lineStart = ends
	}
}

// Sums calls f with the hashes (xxhash) of the location, as written, and
// of the whole <url> element, with its line break, of every <url> of gz,
// a <urlset> this module wrote, in order: the hashes a change tracker
// takes while the page is built, so that a page whose previous copy
// carries none (one taken from a store, which keeps the gzip bytes alone)
// is still compared URL by URL. An element may span lines, since a
// newline in text is written as it is. It costs a gunzip of the copy.
func Sums(gz []byte, f func(loc, entry uint64)) error {
	const end = "</url>\n"
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return err
	}
	br := bufio.NewReaderSize(zr, 64<<10)
	var entry xxhash.Digest
	var loc uint64
	var tail []byte // the line's last bytes, up to len(end), across pieces of a long line
	inURL, lineStart := false, true
	for {
		line, err := br.ReadSlice('\n')
		if lineStart && !inURL && bytes.HasPrefix(line, []byte("<url><loc>")) {
			l, _, ok := bytes.Cut(line[len("<url><loc>"):], []byte("</loc>"))
			if !ok {
				return io.ErrUnexpectedEOF
			}
			loc, inURL = xxhash.Sum64(l), true
			entry.Reset()
		}
		if inURL {
			entry.Write(line)
			tail = append(tail, line[max(0, len(line)-len(end)):]...)
			tail = tail[max(0, len(tail)-len(end)):]
		}
		switch {
		case err == bufio.ErrBufferFull:
			lineStart = false
			continue
		case err == io.EOF:
			if inURL {
				return io.ErrUnexpectedEOF
			}
			return nil
		case err != nil:
			return err
		}
		lineStart = true
		if inURL && string(tail) == end {
			f(loc, entry.Sum64())
			inURL = false
		}
		tail = tail[:0]
	}
}

// Text writes the location of every <url> of gz, a <urlset> this module
// wrote, unescaped, one a line: the plain-text form of the page.
func Text(w io.Writer, gz []byte) error {
	var line []byte
	var werr error
	err := EachLoc(gz, func(loc []byte) {
		if werr == nil {
			line = append(AppendUnescapedLoc(line[:0], loc), '\n')
			_, werr = w.Write(line)
		}
	})
	return cmp.Or(werr, err)
}
