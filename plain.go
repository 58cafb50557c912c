package sitemap

import (
	"cmp"
	"errors"
	"io"
	"strconv"

	"github.com/freshmap/sitemap/internal/gzread"
	"github.com/freshmap/sitemap/internal/readback"
)

// plainCopy is a document's XML decompressed whole, kept with its cached
// entry once the document is asked for as plain XML often (plainHot):
// from then on, a plain 200 is one write of it, as a gzip one is, and
// costs no decompression. It is made from the entry's own bytes and
// checked against their trailer, goes with the entry (a new build, a
// revalidation, an Invalidate or an eviction drops it), is served under
// the entry's ETag and Last-Modified, and is counted in the cache's byte
// budget, where copies take a quarter at most (internal/lrucache, CopyShare).
type plainCopy struct {
	xml    []byte
	length []string // the Content-Length header value of xml
}

// plainHot is how many full plain GETs of a cached entry are served by
// decompressing before the next makes it a plain copy: a document asked
// for once, as most crawlers ask for a page, costs no copy.
const plainHot = 2

// errNoCopy means a plain copy is not to be made: the cache would not
// keep it.
var errNoCopy = errors.New("no room for a plain copy")

// plainCopyOf returns e's plain copy, or nil to stream the response. For
// a full GET (full: no precondition and no Range) past the first plainHot
// of e, it makes the copy, once, if admit says the cache keeps it; keep
// stores it in e and counts it, or declines (and then this request alone
// is served from it). A failure to decompress makes no copy: the
// streamed response then meets it and fails as internal/gzread says.
func plainCopyOf(e *entry, full bool, admit func() bool, keep func(*plainCopy)) *plainCopy {
	if p := e.plain.Load(); p != nil {
		return p
	}
	if !full || e.plainGets.Add(1) <= plainHot || !admit() {
		return nil
	}
	p, _ := madeOnce(&e.plain, &e.plainMu, func() (*plainCopy, error) {
		if !admit() { // checked again under plainMu: the waiters of a copy the cache declined make none
			return nil, errNoCopy
		}
		return inflate(e)
	}, keep)
	return p
}

// inflate decompresses e's XML whole, checking the gzip trailer.
func inflate(e *entry) (*plainCopy, error) {
	if e.size <= 0 {
		return nil, errNoCopy
	}
	b := gzread.Get(e.gz, e.size)
	defer gzread.Put(b)
	xml := make([]byte, e.size)
	if _, err := io.ReadFull(b, xml); err != nil || b.Err() != nil {
		return nil, cmp.Or(b.Err(), err)
	}
	return &plainCopy{xml: xml, length: []string{strconv.FormatInt(e.size, 10)}}, nil
}

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
