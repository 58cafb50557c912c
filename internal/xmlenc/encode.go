package xmlenc

import (
	"bytes"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/freshmap/sitemap/urlset"
)

// The namespaces of the protocol and of its extensions, and the fixed
// bytes of a document: an Encoder writes them, tests compare with them.
const (
	NSSitemap = `http://www.sitemaps.org/schemas/sitemap/0.9`
	NSImage   = `http://www.google.com/schemas/sitemap-image/1.1`
	NSVideo   = `http://www.google.com/schemas/sitemap-video/1.1`
	NSNews    = `http://www.google.com/schemas/sitemap-news/0.9`
	NSXHTML   = `http://www.w3.org/1999/xhtml`

	XMLHeader  = `<?xml version="1.0" encoding="UTF-8"?>` + "\n"
	URLSetEnd  = "</urlset>\n"
	IndexRoot  = `<sitemapindex xmlns="` + NSSitemap + `">` + "\n"
	IndexStart = XMLHeader + IndexRoot
	IndexEnd   = "</sitemapindex>\n"

	// FlushAt is how many bytes an Encoder buffers before a write to the
	// underlying writer.
	FlushAt = 32 << 10
)

var encoderPool = sync.Pool{New: func() any { return &Encoder{buf: make([]byte, 0, 2*FlushAt)} }}

// Get returns a pooled Encoder; Put gives it back, unless its
// buffer grew large (a page of huge entries).
func Get() *Encoder { return encoderPool.Get().(*Encoder) }

func Put(e *Encoder) {
	if cap(e.buf) <= 4*FlushAt {
		e.w = nil
		encoderPool.Put(e)
	}
}

// Kind is the kind of document an Encoder writes.
type Kind uint8

const (
	URLSet Kind = iota // a <urlset>: entries are added with add
	Index              // a <sitemapindex>: entries are added with addSitemap
)

// Encoder writes one sitemap document, a <urlset> or a <sitemapindex>, to
// w, one entry at a time, guarding the protocol limits.
// Each entry is first built in buf and rolled back if it breaks a rule, so
// nothing invalid reaches w. The same input always yields the same bytes.
type Encoder struct {
	w        io.Writer
	kind     Kind
	ext      urlset.Extensions
	base     string // every loc must start with it; "" accepts any absolute URL
	origin   string // originOf(base): other URIs that start with it are written faster
	maxURLs  int
	maxBytes int64

	buf     []byte
	flushed int64 // bytes already written to w
	count   int   // entries written
	full    bool  // an entry did not fit: every later one is refused too
	newest  time.Time
	newSec  int64    // newest.Unix()
	err     error    // sticky write error
	dates   w3cDates // the lastmods' dates
	tags    hreflangs

	// notes are what Add left out of, or added to, the entry it wrote
	// (appendURL); empty if nothing.
	notes []error

	// The rules of a <urlset>, which Reset clears: set them after it.

	// Now is the build time, against which news articles are dated; the
	// zero time checks no age.
	Now time.Time
	// NewsAnyAge turns off the two-day bound of news articles.
	NewsAnyAge bool
	// ChangeFreq and Priority are written for a URL that has no value of
	// its own (a section's defaults); "" and nil write none.
	ChangeFreq urlset.ChangeFreq
	Priority   *float64
	// Visit, if set, is shown every <url> element as it is written (the
	// bytes are only read during the call), with its URL's lastmod.
	Visit func(entry []byte, lastmod time.Time)
	// Omit, if set, is shown every <url> element about to be written, and
	// leaves out those it returns true for: Add then returns ErrLeftOut.
	Omit func(elem []byte) bool
}

// UseExtensions sets the extensions whose elements the next entries may
// hold, without changing the namespaces the document's root declared
// (Reset's): a one-file sitemap declares every section's and writes the
// URLs of each by its own.
func (e *Encoder) UseExtensions(x urlset.Extensions) { e.ext = x }

// Count is the number of entries written.
func (e *Encoder) Count() int { return e.count }

// Newest is the newest lastmod written; zero if none.
func (e *Encoder) Newest() time.Time { return e.newest }

// Notes are what the last Add left out of the entry it wrote, or added
// to it: each element dropped (an *InvalidURLError matching
// ErrElementDropped) and ErrSelfLinkAdded. They are valid until the next
// Add.
func (e *Encoder) Notes() []error { return e.notes }

// ErrLeftOut is Add's answer for a URL that Omit left out:
// nothing of it is written, and it is no rejection.
var ErrLeftOut = errors.New("left out by the self-audit")

// Reset prepares e for a new document on w, keeping its buffer. The
// document starts with the XML declaration, then stylesheet (a
// <?xml-stylesheet?> line, or ""), which counts toward maxBytes.
func (e *Encoder) Reset(w io.Writer, kind Kind, ext urlset.Extensions, base string, maxURLs int, maxBytes int64, stylesheet string) {
	clear(e.notes) // keep no error of an earlier document alive
	*e = Encoder{w: w, kind: kind, ext: ext.Declared(), base: base, origin: originOf(base), maxURLs: maxURLs, maxBytes: maxBytes,
		newSec: unixYear1, buf: e.buf[:0], notes: e.notes[:0]}
	if e.maxURLs <= 0 || e.maxURLs > urlset.MaxURLs {
		e.maxURLs = urlset.MaxURLs
	}
	if e.maxBytes <= 0 || e.maxBytes > urlset.MaxBytes {
		e.maxBytes = urlset.MaxBytes
	}
	e.buf = append(append(e.buf, XMLHeader...), stylesheet...)
	switch kind {
	case URLSet:
		e.buf = append(e.buf, `<urlset xmlns="`+NSSitemap+`"`...)
		if e.ext&urlset.ExtImage != 0 {
			e.buf = append(e.buf, ` xmlns:image="`+NSImage+`"`...)
		}
		if e.ext&urlset.ExtVideo != 0 {
			e.buf = append(e.buf, ` xmlns:video="`+NSVideo+`"`...)
		}
		if e.ext&urlset.ExtNews != 0 {
			e.buf = append(e.buf, ` xmlns:news="`+NSNews+`"`...)
		}
		if e.ext&urlset.ExtAlternates != 0 {
			e.buf = append(e.buf, ` xmlns:xhtml="`+NSXHTML+`"`...)
		}
		e.buf = append(e.buf, ">\n"...)
	case Index:
		e.buf = append(e.buf, IndexRoot...)
	}
}

func (e *Encoder) trailer() string {
	if e.kind == Index {
		return IndexEnd
	}
	return URLSetEnd
}

// Add writes u to a <urlset>. It returns an *InvalidURLError if u cannot
// be written (appendURL), ErrPageFull if the document has no room for it,
// or the write error of the underlying writer; in the first two cases
// nothing of u was written. When it returns nil, e.notes holds what the
// entry written lacks or gained. Once one entry has not fit, every later
// one gets ErrPageFull, so a page is always a prefix of what its source
// yields (less the invalid entries).
func (e *Encoder) Add(u *urlset.URL) error {
	if len(e.notes) > 0 { // most URLs have none
		clear(e.notes)
		e.notes = e.notes[:0]
	}
	if e.err != nil {
		return e.err
	}
	if e.full || e.count >= e.maxURLs {
		return urlset.ErrPageFull
	}
	mark := len(e.buf)
	var err error
	if e.buf, err = e.appendURL(e.buf, u); err != nil {
		e.buf = e.buf[:mark]
	} else if e.Omit != nil && e.Omit(e.buf[mark:]) {
		e.buf, err = e.buf[:mark], ErrLeftOut
	} else {
		mod, unix := lastmod(u)
		if e.Visit != nil && e.fits() {
			e.Visit(e.buf[mark:], mod)
		}
		if len(e.buf) < FlushAt && e.fits() { // commit's common case, without its call
			e.count++
			e.noteLastmod(mod, unix)
		} else {
			err = e.commit(mark, mod, unix) // rolls the entry back if it does not fit
		}
	}
	if err != nil { // nothing of u is written: nothing was left out of it
		clear(e.notes)
		e.notes = e.notes[:0]
	}
	return err
}

// WrittenLoc returns the location of a <url> element appendURL wrote, as
// written (XML-escaped).
func WrittenLoc(elem []byte) []byte {
	elem = elem[len("<url><loc>"):]
	if i := bytes.Index(elem, []byte("</loc>")); i >= 0 {
		return elem[:i]
	}
	return elem
}

// AddSitemap writes one <sitemap> entry to a <sitemapindex>, with the same
// results as add.
func (e *Encoder) AddSitemap(loc string, lastmod time.Time) error {
	if e.err != nil {
		return e.err
	}
	if e.full || e.count >= e.maxURLs {
		return urlset.ErrPageFull
	}
	mark := len(e.buf)
	b := append(e.buf, "<sitemap><loc>"...)
	b, err := e.appendLoc(b, "loc", loc, loc, true)
	if err != nil {
		e.buf = b[:mark]
		return err
	}
	b = append(b, "</loc>"...)
	if !lastmod.IsZero() {
		if !ValidYear(lastmod) {
			e.buf = b[:mark]
			return &urlset.InvalidURLError{Loc: loc, Field: "lastmod", Err: ErrYear}
		}
		b = append(b, "<lastmod>"...)
		b = AppendW3CTime(b, lastmod, false)
		b = append(b, "</lastmod>"...)
	}
	e.buf = append(b, "</sitemap>\n"...)
	return e.commit(mark, lastmod, lastmod.Unix())
}

// commit accepts the entry built in buf[mark:], whose lastmod is lastmod
// (at unix, its Unix seconds), if the file stays within its byte limit,
// and flushes the buffer when it is large.
func (e *Encoder) commit(mark int, lastmod time.Time, unix int64) error {
	if !e.fits() {
		e.buf = e.buf[:mark]
		e.full = true
		return urlset.ErrPageFull
	}
	e.count++
	e.noteLastmod(lastmod, unix)
	if len(e.buf) >= FlushAt {
		e.flush()
	}
	return e.err
}

// noteLastmod keeps lastmod (at unix, its Unix seconds) as the newest
// lastmod written if it is.
func (e *Encoder) noteLastmod(lastmod time.Time, unix int64) {
	// lastmod.After(e.newest), by the wall clock, in instructions that inline
	if unix > e.newSec || unix == e.newSec && lastmod.Nanosecond() > e.newest.Nanosecond() {
		e.newest, e.newSec = lastmod, unix
	}
}

// fits reports whether the document, with what buf holds, stays within its
// byte limit once closed.
func (e *Encoder) fits() bool {
	return e.flushed+int64(len(e.buf))+int64(len(e.trailer())) <= e.maxBytes
}

func (e *Encoder) flush() {
	if e.err != nil || len(e.buf) == 0 {
		return
	}
	n, err := e.w.Write(e.buf)
	e.flushed += int64(n)
	e.buf = e.buf[:0]
	e.err = err
}

// Close writes the end of the document and flushes it.
func (e *Encoder) Close() error {
	if e.err != nil {
		return e.err
	}
	e.buf = append(e.buf, e.trailer()...)
	e.flush()
	return e.err
}

// Size is the number of bytes of the document so far.
func (e *Encoder) Size() int64 { return e.flushed + int64(len(e.buf)) }
