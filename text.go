package sitemap

import (
	"cmp"
	"io"
)

// The plain-text form of a page (/sitemap-SECTION-N.txt), which the
// protocol allows: UTF-8, one URL a line, the same limits. It is made from
// the page's cached XML, not from the Source, on the first request for it:
// it holds exactly the URLs the XML holds (those that passed every rule),
// costs no Source read, and shares the page's content clock. It is kept
// with the page's entry and counted in the cache's budget.

// textOf returns the text form of e, made once: the first call makes it
// and gives it to attach, which stores it in e.text.
func textOf(e *entry, level int, attach func(t *entry)) (*entry, error) {
	return madeOnce(&e.text, &e.textMu, func() (*entry, error) {
		gz, sum, err := compress(level, func(w io.Writer) error { return xmlToText(w, e.gz) })
		if err != nil {
			return nil, err
		}
		return newEntry(gz, sum, level, e.lastMod, e.built), nil
	}, attach)
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
