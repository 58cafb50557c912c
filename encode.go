package sitemap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
	"time"
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
	indexRoot  = `<sitemapindex xmlns="` + nsSitemap + `">` + "\n"
	indexStart = xmlHeader + indexRoot
	indexEnd   = "</sitemapindex>\n"

	flushAt = 32 << 10 // bytes buffered before a write to the underlying writer
)

// errEmptyPage means a page had no URL to write: an empty <urlset> is not
// valid, so such a page does not exist (404), unless pageSpec.emptyOK.
var errEmptyPage = errors.New("page has no valid URL")

// pageSpec says how to write the pages of one section.
type pageSpec struct {
	base     string // location rule prefix for loc; "" for none
	maxURLs  int    // 0 means MaxURLs
	maxBytes int64  // 0 means MaxBytes
	ext      Extensions
	// strict fails the page on the first rule a URL breaks, or on a URL
	// that does not fit, instead of skipping the URL or the element.
	strict bool
	// report is told about every URL not written, with why. Nil drops the
	// report (the serving layer always sets one).
	report func(loc string, err error)
	// notice is told, once per URL written with notes, what was
	// corrected: each element dropped (an *InvalidURLError matching
	// ErrElementDropped) and ErrSelfLinkAdded. notes is only read during
	// the call. Nil drops them.
	notice func(loc string, notes []error)
	// now is the build time, against which news articles are dated; the
	// zero time checks no age.
	now time.Time
	// newsAnyAge turns off the two-day bound of news articles.
	newsAnyAge bool
	// visit, if set, is shown every <url> element written (changes.go).
	visit func(entry []byte, lastmod time.Time)
	// stylesheet is the <?xml-stylesheet?> line of the page (xsl.go); ""
	// for none.
	stylesheet string
	// emptyOK writes a page with no URL as an empty <urlset> instead of
	// failing it with errEmptyPage (Section.Latest, latest.go).
	emptyOK bool
	// omit, if set, is shown every <url> element about to be written, as
	// written (only read during the call; writtenLoc finds its location):
	// true leaves the URL out (Audit.LeaveOut, internal/audit).
	omit func(elem []byte) bool
	// changeFreq and priority are the section's defaults (Section.ChangeFreq
	// and Section.Priority), written for a URL that has none of its own.
	changeFreq ChangeFreq
	priority   *float64
	// cluster, if set, writes each URL once per language (Section.Hreflang,
	// cluster.go): maxURLs bounds the URLs read, and the file holds up to
	// maxURLs times its size.
	cluster *cluster
}

// pageStats describes a page that was written.
type pageStats struct {
	urls      int
	bytes     int64     // uncompressed
	rejected  int       // URLs not written
	corrected int       // URLs written with notes
	notes     int       // their notes: elements dropped, self links added
	newest    time.Time // newest lastmod written; zero if none
	// future counts the URL lastmods more than maxLastModSkew ahead of the
	// build, written as the build time; futureLoc is the first of them.
	future    int
	futureLoc string
	leftOut   int // URLs left out by pageSpec.omit
}

// maxLastModSkew is how far ahead of the build time a URL lastmod may be
// (a database clock a little ahead of the server's); one further ahead is
// written as the build time, and counted.
const maxLastModSkew = 5 * time.Minute

// ctxCheckEvery is how many URLs pass between checks of ctx.
const ctxCheckEvery = 256

var encoderPool = sync.Pool{New: func() any { return &encoder{buf: make([]byte, 0, 2*flushAt)} }}

// getEncoder returns a pooled encoder; putEncoder gives it back, unless its
// buffer grew large (a page of huge entries).
func getEncoder() *encoder { return encoderPool.Get().(*encoder) }

func putEncoder(e *encoder) {
	if cap(e.buf) <= 4*flushAt {
		e.w = nil
		encoderPool.Put(e)
	}
}

// encodePage streams page n of src through an encoder into w. Any error of
// the source or of w, a cancelled ctx, and a URL past the page size fail
// the whole page: the caller must then discard what w received.
//
// The page size bounds what the Source yields, valid URLs or not: the
// first URL past it ends the page there, with one error, unread beyond
// (TestPageOverSize). Such a Source pages wrongly: the URLs past the size
// would be in no file, and reporting each would cost a log line per URL.
// A URL that does not fit the byte limit is skipped and reported, as the
// page size bounds those too.
func encodePage(ctx context.Context, src Source, n int64, w io.Writer, spec *pageSpec) (pageStats, error) {
	e := getEncoder()
	defer putEncoder(e)
	maxRead, maxURLs := spec.maxURLs, spec.maxURLs
	if maxRead <= 0 || maxRead > MaxURLs {
		maxRead = MaxURLs
	}
	if c := spec.cluster; c != nil {
		maxURLs = maxRead * c.size() // New kept it within MaxURLs
	}
	e.reset(w, kindURLSet, spec.ext, spec.base, maxURLs, spec.maxBytes, spec.stylesheet)
	p := runOf(e, spec, n, maxRead)
	if s, ok := src.(sliceSource); ok {
		// A slice's URLs are read where they are: no iterator, and no copy
		// of each URL to pass it on.
		page := s.page(n)
		for i := range page {
			if err := p.add(ctx, &page[i]); err != nil {
				return p.st, err
			}
		}
	} else {
		for u, err := range src.URLs(ctx, n) {
			if err != nil {
				return p.st, fmt.Errorf("reading page %d: %w", n, err)
			}
			if err := p.add(ctx, &u); err != nil {
				return p.st, err
			}
		}
	}
	st := p.st
	if err := ctx.Err(); err != nil {
		return st, err
	}
	if e.count == 0 && !spec.emptyOK {
		return st, errEmptyPage
	}
	if err := e.close(); err != nil {
		return st, err
	}
	st.urls, st.bytes, st.newest = e.count, e.size(), e.newest
	return st, nil
}

// runOf sets e, reset for a <urlset>, to write page n by spec's rules,
// and returns the run that adds the page's URLs, of which the Source may
// yield maxRead (0: MaxURLs; with a cluster, each is written once per
// language). encodePage writes one page a document;
// a one-file sitemap (single.go) writes page 1 of each section into one.
func runOf(e *encoder, spec *pageSpec, n int64, maxRead int) pageRun {
	e.now, e.newsAnyAge, e.visit, e.omit = spec.now, spec.newsAnyAge, spec.visit, spec.omit
	e.changeFreq, e.priority = spec.changeFreq, spec.priority
	if maxRead <= 0 || maxRead > MaxURLs {
		maxRead = MaxURLs
	}
	p := pageRun{e: e, spec: spec, n: n, maxRead: maxRead}
	p.future = spec.now.Add(maxLastModSkew) // a lastmod after it is in the future
	p.futureSec = p.future.Unix()           // its second: a cheaper first test
	if spec.now.IsZero() {
		p.futureSec = math.MaxInt64 // no lastmod is in the future
	}
	return p
}

// pageRun is encodePage's state while it adds a page's URLs.
type pageRun struct {
	e         *encoder
	spec      *pageSpec
	n         int64
	i         int         // URLs read
	maxRead   int         // URLs the page may read: the section's page size
	alts      []Alternate // a cluster's links, reused from one URL to the next
	future    time.Time
	futureSec int64
	st        pageStats
}

// add writes the next URL of the page, which it only reads, and counts
// what became of it: once, or, in a section with Hreflang and for a URL
// with no Alternates of its own, once per language of the cluster. An
// error ends the page.
func (p *pageRun) add(ctx context.Context, u *URL) error {
	spec := p.spec
	if p.i++; p.i > p.maxRead {
		return fmt.Errorf("reading page %d: %w, %d", p.n, errOverPageSize, p.maxRead)
	}
	if p.i%ctxCheckEvery == 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	if u.LastMod.Unix() >= p.futureSec && u.LastMod.After(p.future) && validYear(u.LastMod) {
		if p.st.future++; p.st.future == 1 {
			p.st.futureLoc = u.Loc
		}
		c := *u // the Source's URL is not written
		c.LastMod = spec.now
		u = &c
	}
	if spec.cluster == nil || len(u.Alternates) > 0 {
		return p.write(u)
	}
	var err error
	if p.alts, err = spec.cluster.members(spec.base, u.Loc, p.alts); err != nil {
		return p.reject(u.Loc, &InvalidURLError{Loc: u.Loc, Field: "loc", Err: err})
	}
	for i := range spec.cluster.size() {
		m := *u // each language's version, with the cluster's links
		m.Loc, m.Alternates, m.Hreflang = p.alts[i].Href, p.alts, ""
		if err := p.write(&m); err != nil {
			return err
		}
	}
	return nil
}

// reject counts and reports the URL at loc, not written for err. In a
// strict section it ends the page.
func (p *pageRun) reject(loc string, err error) error {
	p.st.rejected++
	if p.spec.report != nil {
		p.spec.report(loc, err)
	}
	if p.spec.strict {
		return err
	}
	return nil
}

// write writes u, one <url> entry, and counts what became of it.
func (p *pageRun) write(u *URL) error {
	e, spec := p.e, p.spec
	st := &p.st
	if err := e.add(u); err == errLeftOut {
		st.leftOut++
	} else if err != nil {
		var bad *InvalidURLError
		if !errors.As(err, &bad) && !errors.Is(err, ErrPageFull) {
			return err // the writer failed
		}
		return p.reject(u.Loc, err)
	} else if len(e.notes) > 0 {
		st.corrected++
		st.notes += len(e.notes)
		if spec.notice != nil {
			spec.notice(u.Loc, e.notes)
		}
		if spec.strict {
			for _, err := range e.notes {
				if errors.Is(err, ErrElementDropped) {
					return err
				}
			}
		}
	}
	return nil
}

// docKind is the kind of document an encoder writes.
type docKind uint8

const (
	kindURLSet docKind = iota // a <urlset>: entries are added with add
	kindIndex                 // a <sitemapindex>: entries are added with addSitemap
)

// encoder writes one sitemap document, a <urlset> or a <sitemapindex>, to
// w, one entry at a time, guarding the protocol limits.
// Each entry is first built in buf and rolled back if it breaks a rule, so
// nothing invalid reaches w. The same input always yields the same bytes.
type encoder struct {
	w        io.Writer
	kind     docKind
	ext      Extensions
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

	now        time.Time // for the age of news articles; zero checks none
	newsAnyAge bool
	// changeFreq and priority are written for a URL that has no value of
	// its own (pageSpec); "" and nil write none.
	changeFreq ChangeFreq
	priority   *float64
	// notes are what add left out of, or added to, the entry it wrote
	// (appendURL); empty if nothing.
	notes []error
	// visit, if set, is shown every <url> element as it is written (the
	// bytes are only read during the call), with its URL's lastmod.
	visit func(entry []byte, lastmod time.Time)
	// omit, if set, leaves out the <url> elements it names
	// (pageSpec.omit): add then returns errLeftOut.
	omit func(elem []byte) bool
}

// errLeftOut is add's answer for a URL that pageSpec.omit left out:
// nothing of it is written, and it is no rejection.
var errLeftOut = errors.New("left out by the self-audit")

// reset prepares e for a new document on w, keeping its buffer. The
// document starts with the XML declaration, then stylesheet (a
// <?xml-stylesheet?> line, or ""), which counts toward maxBytes.
func (e *encoder) reset(w io.Writer, kind docKind, ext Extensions, base string, maxURLs int, maxBytes int64, stylesheet string) {
	clear(e.notes) // keep no error of an earlier document alive
	*e = encoder{w: w, kind: kind, ext: ext.normalize(), base: base, origin: originOf(base), maxURLs: maxURLs, maxBytes: maxBytes,
		newSec: unixYear1, buf: e.buf[:0], notes: e.notes[:0]}
	if e.maxURLs <= 0 || e.maxURLs > MaxURLs {
		e.maxURLs = MaxURLs
	}
	if e.maxBytes <= 0 || e.maxBytes > MaxBytes {
		e.maxBytes = MaxBytes
	}
	e.buf = append(append(e.buf, xmlHeader...), stylesheet...)
	switch kind {
	case kindURLSet:
		e.buf = append(e.buf, `<urlset xmlns="`+nsSitemap+`"`...)
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
		e.buf = append(e.buf, indexRoot...)
	}
}

func (e *encoder) trailer() string {
	if e.kind == kindIndex {
		return indexEnd
	}
	return urlsetEnd
}

// add writes u to a <urlset>. It returns an *InvalidURLError if u cannot
// be written (appendURL), ErrPageFull if the document has no room for it,
// or the write error of the underlying writer; in the first two cases
// nothing of u was written. When it returns nil, e.notes holds what the
// entry written lacks or gained. Once one entry has not fit, every later
// one gets ErrPageFull, so a page is always a prefix of what its source
// yields (less the invalid entries).
func (e *encoder) add(u *URL) error {
	if len(e.notes) > 0 { // most URLs have none
		clear(e.notes)
		e.notes = e.notes[:0]
	}
	if e.err != nil {
		return e.err
	}
	if e.full || e.count >= e.maxURLs {
		return ErrPageFull
	}
	mark := len(e.buf)
	var err error
	if e.buf, err = e.appendURL(e.buf, u); err != nil {
		e.buf = e.buf[:mark]
	} else if e.omit != nil && e.omit(e.buf[mark:]) {
		e.buf, err = e.buf[:mark], errLeftOut
	} else {
		mod, unix := lastmod(u)
		if e.visit != nil && e.fits() {
			e.visit(e.buf[mark:], mod)
		}
		if len(e.buf) < flushAt && e.fits() { // commit's common case, without its call
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

// writtenLoc returns the location of a <url> element appendURL wrote, as
// written (XML-escaped).
func writtenLoc(elem []byte) []byte {
	elem = elem[len("<url><loc>"):]
	if i := bytes.Index(elem, []byte("</loc>")); i >= 0 {
		return elem[:i]
	}
	return elem
}

// addSitemap writes one <sitemap> entry to a <sitemapindex>, with the same
// results as add.
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
	return e.commit(mark, lastmod, lastmod.Unix())
}

// commit accepts the entry built in buf[mark:], whose lastmod is lastmod
// (at unix, its Unix seconds), if the file stays within its byte limit,
// and flushes the buffer when it is large.
func (e *encoder) commit(mark int, lastmod time.Time, unix int64) error {
	if !e.fits() {
		e.buf = e.buf[:mark]
		e.full = true
		return ErrPageFull
	}
	e.count++
	e.noteLastmod(lastmod, unix)
	if len(e.buf) >= flushAt {
		e.flush()
	}
	return e.err
}

// noteLastmod keeps lastmod (at unix, its Unix seconds) as the newest
// lastmod written if it is.
func (e *encoder) noteLastmod(lastmod time.Time, unix int64) {
	// lastmod.After(e.newest), by the wall clock, in instructions that inline
	if unix > e.newSec || unix == e.newSec && lastmod.Nanosecond() > e.newest.Nanosecond() {
		e.newest, e.newSec = lastmod, unix
	}
}

// fits reports whether the document, with what buf holds, stays within its
// byte limit once closed.
func (e *encoder) fits() bool {
	return e.flushed+int64(len(e.buf))+int64(len(e.trailer())) <= e.maxBytes
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
