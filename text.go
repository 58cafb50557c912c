package sitemap

import (
	"io"

	"github.com/freshmap/sitemap/internal/readback"
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
		gz, sum, err := compress(level, func(w io.Writer) error { return readback.Text(w, e.gz) })
		if err != nil {
			return nil, err
		}
		return newEntry(gz, sum, level, e.lastMod, e.built), nil
	}, attach)
}
