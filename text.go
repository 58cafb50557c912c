package sitemap

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
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
// package wrote, one a line (see eachLoc).
func xmlToText(w io.Writer, gz []byte) error {
	var line []byte
	var werr error
	err := eachLoc(gz, func(loc []byte) {
		if werr == nil {
			line = append(appendUnescapedLoc(line[:0], loc), '\n')
			_, werr = w.Write(line)
		}
	})
	return cmp.Or(werr, err)
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
