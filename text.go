package sitemap

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/gzip"
)

// The plain-text form of a page (/sitemap-SECTION-N.txt), which the
// protocol allows: UTF-8, one URL a line, the same limits. It is made from
// the page's cached XML, not from the Source, on the first request for it:
// it holds exactly the URLs the XML holds (those that passed every rule),
// costs no Source read, and shares the page's content clock. It is kept
// with the page's entry and counted in the cache's budget.

// textOf returns the text form of e, the entry of page k, making it once.
func (s *Sitemap) textOf(k pageKey, e *entry) (*entry, error) {
	if t := e.text.Load(); t != nil {
		return t, nil
	}
	e.textMu.Lock()
	defer e.textMu.Unlock()
	if t := e.text.Load(); t != nil {
		return t, nil
	}
	gz, sum, err := compress(s.gzipLevel, func(w io.Writer) error { return xmlToText(w, e.gz) })
	if err != nil {
		return nil, fmt.Errorf("sitemap: the text form of %s: %w", s.describe(k), err)
	}
	t := newEntry(gz, sum, s.gzipLevel, e.lastMod, e.built)
	s.cache.attachText(k, e, t)
	return t, nil
}

// xmlToText writes the location of every <url> of gz, a <urlset> this
// package wrote, one a line. The encoder starts each entry on a line of
// its own with "<url><loc>" and writes the location, a URI, with only '&'
// and the apostrophe as entities; nothing else in a document can begin a
// line with those bytes, since text content has '<' escaped.
func xmlToText(w io.Writer, gz []byte) error {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return err
	}
	br := bufio.NewReaderSize(zr, 64<<10)
	var out []byte
	lineStart := true
	for {
		line, err := br.ReadSlice('\n')
		if lineStart && bytes.HasPrefix(line, []byte("<url><loc>")) {
			loc, _, ok := bytes.Cut(line[len("<url><loc>"):], []byte("</loc>"))
			if !ok {
				return errors.New("a <loc> longer than a buffer")
			}
			out = appendUnescapedLoc(out[:0], loc)
			out = append(out, '\n')
			if _, err := w.Write(out); err != nil {
				return err
			}
		}
		switch {
		case err == bufio.ErrBufferFull: // a long line: its rest is not a line start
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
