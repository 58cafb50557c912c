package sitemap

import (
	"bufio"
	"bytes"
	"io"

	"github.com/cespare/xxhash/v2"
	"github.com/klauspost/compress/gzip"
)

// The locations of a <urlset> this package wrote, read back from its
// gzip bytes: for the text form (text.go) and for the URLs a rebuilt page
// lost (changes.go); its <url> elements whole, for the HTML view
// (htmlpage.go); and their hashes, for the change tracking of a page whose
// previous copy came without them (sumsOf).

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

// sumsOf returns the hashes of the <url> elements of gz, a <urlset> this
// package wrote, as the tracker took them while the page was built, so
// that a page whose previous copy carries no hashes (one taken from the
// Store, which keeps the gzip bytes alone) is still compared URL by URL.
// An element starts a line with "<url><loc>" and ends one with "</url>",
// which text inside it cannot hold (its "<" is escaped); it may span
// lines, since a newline in text is written as it is. It costs a gunzip
// of the copy, on a rebuild with change tracking only.
func sumsOf(gz []byte) ([]urlSum, error) {
	const end = "</url>\n"
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(zr, 64<<10)
	var sums []urlSum
	var entry xxhash.Digest
	var loc uint64
	var tail []byte // the line's last bytes, up to len(end), across pieces of a long line
	inURL, lineStart := false, true
	for {
		line, err := br.ReadSlice('\n')
		if lineStart && !inURL && bytes.HasPrefix(line, []byte("<url><loc>")) {
			l, _, ok := bytes.Cut(line[len("<url><loc>"):], []byte("</loc>"))
			if !ok {
				return nil, io.ErrUnexpectedEOF
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
				return nil, io.ErrUnexpectedEOF
			}
			return sums, nil
		case err != nil:
			return nil, err
		}
		lineStart = true
		if inURL && string(tail) == end {
			sums = append(sums, urlSum{loc: loc, entry: entry.Sum64()})
			inURL = false
		}
		tail = tail[:0]
	}
}
