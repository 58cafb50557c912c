package sitemap

import (
	"errors"
	"io"
	"time"
	"unicode/utf8"
)

// Protocol limits of one sitemap or index file.
const (
	MaxURLs  = 50_000     // <url> entries in one sitemap, <sitemap> entries in one index
	MaxBytes = 52_428_800 // uncompressed bytes of one file
)

const (
	nsSitemap = `http://www.sitemaps.org/schemas/sitemap/0.9`
	nsImage   = `http://www.google.com/schemas/sitemap-image/1.1`
	nsVideo   = `http://www.google.com/schemas/sitemap-video/1.1`
	nsNews    = `http://www.google.com/schemas/sitemap-news/0.9`
	nsXHTML   = `http://www.w3.org/1999/xhtml`

	xmlHeader  = `<?xml version="1.0" encoding="UTF-8"?>` + "\n"
	urlsetEnd  = "</urlset>\n"
	indexStart = xmlHeader + `<sitemapindex xmlns="` + nsSitemap + `">` + "\n"
	indexEnd   = "</sitemapindex>\n"

	flushAt = 32 << 10 // bytes buffered before a write to the underlying writer
)

// Extensions is a set of sitemap extensions whose namespaces a section's
// <urlset> declares. A URL carrying data of an undeclared extension is
// rejected. The zero value declares image, video and xhtml (hreflang):
// news must be asked for, because a news sitemap has rules of its own
// (at most 1,000 URLs a file, only articles of the last two days).
type Extensions uint8

// The extensions. ExtNone declares none of them, only the sitemap namespace.
const (
	ExtImage      Extensions = 1 << iota // image:image
	ExtVideo                             // video:video
	ExtNews                              // news:news
	ExtAlternates                        // xhtml:link hreflang alternates
	ExtNone                              // no extension namespace at all

	extAll = ExtImage | ExtVideo | ExtNews | ExtAlternates
)

func (x Extensions) normalize() Extensions {
	switch {
	case x == 0:
		return ExtImage | ExtVideo | ExtAlternates
	case x&ExtNone != 0:
		return 0
	}
	return x & extAll
}

// ErrPageFull is reported for a URL that was not written because its page
// already held its section's page size in URLs, or because writing it would
// have taken the file past 52,428,800 bytes. The page keeps the URLs before
// it, and every URL after it is reported with ErrPageFull too. Lower the
// section's PageSize if this happens: pages heavy with images or hreflang
// alternates can reach the byte limit before the URL limit.
var ErrPageFull = errors.New("sitemap: page full")

// InvalidURLError reports a URL that breaks a protocol rule and was
// therefore not written.
type InvalidURLError struct {
	Loc   string // the URL's Loc as the source gave it
	Field string // the offending field, such as "loc", "lastmod" or "video.title"
	Err   error  // the rule it breaks
}

func (e *InvalidURLError) Error() string {
	return "sitemap: invalid URL " + quote(e.Loc) + ": " + e.Field + ": " + e.Err.Error()
}

func (e *InvalidURLError) Unwrap() error { return e.Err }

// quote shortens a loc for an error message, cutting it at a rune
// boundary.
func quote(s string) string {
	const max = 200
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return `"` + s + `"`
}

type docKind uint8

const (
	kindURLSet docKind = iota
	kindIndex
	kindText
)

// encoder writes one sitemap document (a <urlset>, a <sitemapindex> or a
// plain-text list) to w, one entry at a time, guarding the protocol limits.
// Each entry is first built in buf and rolled back if it breaks a rule, so
// nothing invalid reaches w. The same input always yields the same bytes.
type encoder struct {
	w        io.Writer
	kind     docKind
	ext      Extensions
	base     string // every loc must start with it; "" accepts any absolute URL
	maxURLs  int
	maxBytes int64

	buf     []byte
	flushed int64 // bytes already written to w
	count   int   // entries written
	full    bool  // an entry did not fit: every later one is refused too
	newest  time.Time
	err     error // sticky write error
}

// reset prepares e for a new document on w, keeping its buffer.
func (e *encoder) reset(w io.Writer, kind docKind, ext Extensions, base string, maxURLs int, maxBytes int64) {
	*e = encoder{w: w, kind: kind, ext: ext.normalize(), base: base, maxURLs: maxURLs, maxBytes: maxBytes, buf: e.buf[:0]}
	if e.maxURLs <= 0 || e.maxURLs > MaxURLs {
		e.maxURLs = MaxURLs
	}
	if e.maxBytes <= 0 || e.maxBytes > MaxBytes {
		e.maxBytes = MaxBytes
	}
	switch kind {
	case kindURLSet:
		e.buf = append(e.buf, xmlHeader+`<urlset xmlns="`+nsSitemap+`"`...)
		if e.ext&ExtImage != 0 {
			e.buf = append(e.buf, ` xmlns:image="`+nsImage+`"`...)
		}
		if e.ext&ExtVideo != 0 {
			e.buf = append(e.buf, ` xmlns:video="`+nsVideo+`"`...)
		}
		if e.ext&ExtNews != 0 {
			e.buf = append(e.buf, ` xmlns:news="`+nsNews+`"`...)
		}
		if e.ext&ExtAlternates != 0 {
			e.buf = append(e.buf, ` xmlns:xhtml="`+nsXHTML+`"`...)
		}
		e.buf = append(e.buf, ">\n"...)
	case kindIndex:
		e.buf = append(e.buf, indexStart...)
	}
}

func (e *encoder) trailer() string {
	switch e.kind {
	case kindURLSet:
		return urlsetEnd
	case kindIndex:
		return indexEnd
	}
	return ""
}

// add writes u. It returns an *InvalidURLError if u breaks a rule,
// ErrPageFull if the document has no room for it, or the write error of the
// underlying writer; in the first two cases nothing of u was written. Once
// one entry has not fit, every later one gets ErrPageFull, so a page is
// always a prefix of what its source yields (less the invalid entries).
//
// A plain-text document holds only locations: the other fields of u are
// neither written nor checked. In an index, u is one sitemap file: only its
// Loc and LastMod are used.
func (e *encoder) add(u *URL) error {
	if e.kind == kindIndex {
		return e.addSitemap(u.Loc, u.LastMod)
	}
	if e.err != nil {
		return e.err
	}
	if e.full || e.count >= e.maxURLs {
		return ErrPageFull
	}
	mark := len(e.buf)
	var err error
	if e.kind == kindText {
		e.buf, err = appendPageURI(e.buf, u.Loc, e.base, false)
		if err != nil {
			return &InvalidURLError{Loc: u.Loc, Field: "loc", Err: err}
		}
		e.buf = append(e.buf, '\n')
		if !validYear(u.LastMod) { // not written, so not checked, but no Last-Modified either
			return e.commit(mark, time.Time{})
		}
	} else {
		e.buf, err = e.appendURL(e.buf, u)
		if err != nil {
			e.buf = e.buf[:mark]
			return err
		}
	}
	return e.commit(mark, u.LastMod)
}

// addSitemap writes one <sitemap> entry of an index.
func (e *encoder) addSitemap(loc string, lastmod time.Time) error {
	if e.err != nil {
		return e.err
	}
	if e.full || e.count >= e.maxURLs {
		return ErrPageFull
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
		if !validYear(lastmod) {
			e.buf = b[:mark]
			return &InvalidURLError{Loc: loc, Field: "lastmod", Err: errYear}
		}
		b = append(b, "<lastmod>"...)
		b = appendW3CTime(b, lastmod, false)
		b = append(b, "</lastmod>"...)
	}
	e.buf = append(b, "</sitemap>\n"...)
	return e.commit(mark, lastmod)
}

// commit accepts the entry built in buf[mark:] if the file stays within
// its byte limit, and flushes the buffer when it is large.
func (e *encoder) commit(mark int, lastmod time.Time) error {
	if e.flushed+int64(len(e.buf))+int64(len(e.trailer())) > e.maxBytes {
		e.buf = e.buf[:mark]
		e.full = true
		return ErrPageFull
	}
	e.count++
	if lastmod.After(e.newest) {
		e.newest = lastmod
	}
	if len(e.buf) >= flushAt {
		e.flush()
	}
	return e.err
}

func (e *encoder) flush() {
	if e.err != nil || len(e.buf) == 0 {
		return
	}
	n, err := e.w.Write(e.buf)
	e.flushed += int64(n)
	e.buf = e.buf[:0]
	e.err = err
}

// close writes the end of the document and flushes it.
func (e *encoder) close() error {
	if e.err != nil {
		return e.err
	}
	e.buf = append(e.buf, e.trailer()...)
	e.flush()
	return e.err
}

// size is the number of bytes of the document so far.
func (e *encoder) size() int64 { return e.flushed + int64(len(e.buf)) }
