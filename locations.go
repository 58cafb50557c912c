package sitemap

import (
	"bufio"
	"bytes"
	"io"

	"github.com/klauspost/compress/gzip"
)

// The locations of a <urlset> this package wrote, read back from its
// gzip bytes: for the text form (text.go) and for the URLs a rebuilt page
// lost (changes.go); and its <url> elements whole, for the HTML view
// (htmlpage.go).

// eachLoc calls f with the location, as written, of every <url> of gz, a
// <urlset> this package wrote (see xmlToText for why a line that starts
// with "<url><loc>" is one).
func eachLoc(gz []byte, f func(loc []byte)) error {
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

// appendUnescapedLoc appends loc with the two entities a location may hold
// turned back into their characters.
func appendUnescapedLoc(b, loc []byte) []byte {
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

// eachURL calls f with every <url> element of gz, a <urlset> this package
// wrote, as written; elem is valid during the call only. An element
// starts a line ("<url>") and ends one ("</url>"); it spans several lines
// only where a text holds a line break, and no line of a text starts or
// ends so, since a text's '<' is escaped.
func eachURL(gz []byte, f func(elem []byte) error) error {
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
