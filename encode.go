package sitemap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/freshmap/sitemap/internal/hreflang"
	"github.com/freshmap/sitemap/internal/segment"
	"github.com/freshmap/sitemap/internal/xmlenc"
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
	// stylesheet is the <?xml-stylesheet?> line of the page (Config.Stylesheet, internal/htmlview); ""
	// for none.
	stylesheet string
	// emptyOK writes a page with no URL as an empty <urlset> instead of
	// failing it with errEmptyPage (Section.Latest, latest.go).
	emptyOK bool
	// omit, if set, is shown every <url> element about to be written, as
	// written (only read during the call; xmlenc.WrittenLoc finds its location):
	// true leaves the URL out (Audit.LeaveOut, internal/audit).
	omit func(elem []byte) bool
	// changeFreq and priority are the section's defaults (Section.ChangeFreq
	// and Section.Priority), written for a URL that has none of its own.
	changeFreq ChangeFreq
	priority   *float64
	// cluster, if set, writes each URL once per language (Section.Hreflang,
	// internal/hreflang): maxURLs bounds the URLs read, and the file holds up to
	// maxURLs times its size.
	cluster *hreflang.Cluster
	// segs, if set, is told where the page's entries end, to cut it into
	// segments (build.go, internal/segment); splice, if set, is the plan of a page rebuilt
	// from some of its Source's segments, the others kept.
	segs   *segment.Writer
	splice *splicePlan
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

// encodePage streams page n of src through an encoder (internal/xmlenc)
// into w. Any error of the source or of w, a cancelled ctx, and a URL past
// the page size fail the whole page: the caller must then discard what w
// received.
//
// The page size bounds what the Source yields, valid URLs or not: the
// first URL past it ends the page there, with one error, unread beyond
// (TestPageOverSize). Such a Source pages wrongly: the URLs past the size
// would be in no file, and reporting each would cost a log line per URL.
// A URL that does not fit the byte limit is skipped and reported, as the
// page size bounds those too.
func encodePage(ctx context.Context, src Source, n int64, w io.Writer, spec *pageSpec) (pageStats, error) {
	e := xmlenc.Get()
	defer xmlenc.Put(e)
	maxRead, maxURLs := spec.maxURLs, spec.maxURLs
	if maxRead <= 0 || maxRead > MaxURLs {
		maxRead = MaxURLs
	}
	if c := spec.cluster; c != nil {
		maxURLs = maxRead * c.Size() // New kept it within MaxURLs
	}
	maxBytes := spec.maxBytes
	if pl := spec.splice; pl != nil { // what the kept segments leave of the limits
		maxURLs, maxBytes = pl.maxURLs, pl.maxBytes
	}
	e.Reset(w, xmlenc.URLSet, spec.ext, spec.base, maxURLs, maxBytes, spec.stylesheet)
	p := runOf(e, spec, n, maxRead)
	if pl := spec.splice; pl != nil {
		p.i = pl.keptRead
	}
	if spec.segs != nil {
		spec.segs.Start(e.Size())
	}
	if ss, ok := src.(SegmentSource); ok && spec.segs != nil {
		if err := p.segments(ctx, ss); err != nil {
			return p.st, err
		}
	} else if s, ok := src.(sliceSource); ok {
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
	if e.Count() == 0 && !spec.emptyOK {
		return st, errEmptyPage
	}
	if spec.segs != nil {
		spec.segs.EndBody()
	}
	if err := e.Close(); err != nil {
		return st, err
	}
	st.urls, st.bytes, st.newest = e.Count(), e.Size(), e.Newest()
	return st, nil
}

// runOf sets e, reset for a <urlset>, to write page n by spec's rules,
// and returns the run that adds the page's URLs, of which the Source may
// yield maxRead (0: MaxURLs; with a cluster, each is written once per
// language). encodePage writes one page a document;
// a one-file sitemap (index.go, buildSingle) writes page 1 of each section into one.
func runOf(e *xmlenc.Encoder, spec *pageSpec, n int64, maxRead int) pageRun {
	e.Now, e.NewsAnyAge, e.Visit, e.Omit = spec.now, spec.newsAnyAge, spec.visit, spec.omit
	if sg, visit := spec.segs, spec.visit; sg != nil && !sg.BySource() {
		// cut by content: pageRun.write tells it of each entry
	} else if sg != nil && visit == nil {
		e.Visit = sg.Entry
	} else if sg != nil {
		e.Visit = func(entry []byte, lastmod time.Time) {
			if visit != nil {
				visit(entry, lastmod)
			}
			sg.Entry(entry, lastmod)
		}
	}
	e.ChangeFreq, e.Priority = spec.changeFreq, spec.priority
	if maxRead <= 0 || maxRead > MaxURLs {
		maxRead = MaxURLs
	}
	p := pageRun{e: e, spec: spec, n: n, maxRead: maxRead}
	p.cut = spec.segs
	p.future = spec.now.Add(maxLastModSkew) // a lastmod after it is in the future
	p.futureSec = p.future.Unix()           // its second: a cheaper first test
	if spec.now.IsZero() {
		p.futureSec = math.MaxInt64 // no lastmod is in the future
	}
	return p
}

// pageRun is encodePage's state while it adds a page's URLs.
type pageRun struct {
	e         *xmlenc.Encoder
	spec      *pageSpec
	n         int64
	i         int             // URLs read
	maxRead   int             // URLs the page may read: the section's page size
	alts      []Alternate     // a cluster's links, reused from one URL to the next
	cut       *segment.Writer // told of each entry written, to cut the page, or a Source's segment's units, by content
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
	if u.LastMod.Unix() >= p.futureSec && u.LastMod.After(p.future) && xmlenc.ValidYear(u.LastMod) {
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
	if p.alts, err = spec.cluster.Members(spec.base, u.Loc, p.alts); err != nil {
		return p.reject(u.Loc, &InvalidURLError{Loc: u.Loc, Field: "loc", Err: err})
	}
	for i := range spec.cluster.Size() {
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
	e, st := p.e, &p.st
	err := e.Add(u)
	if err == nil {
		if p.cut != nil {
			p.cut.Ended(e.Size(), u.Loc)
		}
		if len(e.Notes()) > 0 {
			return p.noted(u)
		}
		return nil
	}
	if err == xmlenc.ErrLeftOut {
		st.leftOut++
		return nil
	}
	var bad *InvalidURLError
	if !errors.As(err, &bad) && !errors.Is(err, ErrPageFull) {
		return err // the writer failed
	}
	return p.reject(u.Loc, err)
}

// noted counts the notes of u, written with some, and tells them.
func (p *pageRun) noted(u *URL) error {
	e, spec, st := p.e, p.spec, &p.st
	st.corrected++
	st.notes += len(e.Notes())
	if spec.notice != nil {
		spec.notice(u.Loc, e.Notes())
	}
	if spec.strict {
		for _, err := range e.Notes() {
			if errors.Is(err, ErrElementDropped) {
				return err
			}
		}
	}
	return nil
}

// maxSegments bounds SegmentSource.Segments.
const maxSegments = segment.MaxSegments

// errSplice means a page could not be rebuilt from some of its segments
// (a URL did not fit within the limits with the kept ones, or the Source
// changed its cut): it is built whole.
var errSplice = errors.New("the page does not splice")

// splicePlan says which segments of a SegmentSource page a rebuild reads
// again (reread, by body segment), and what the others leave of the
// limits.
type splicePlan struct {
	old      *segment.Table
	reread   []bool
	keptURLs int
	keptRead int
	maxURLs  int
	maxBytes int64
	full     bool          // a URL did not fit: the page is built whole
	before   func(seg int) // called before segment seg is read
}

// segments reads the page from its Source's segments, one after another,
// and cuts it after each; with a plan, it keeps the segments the plan
// does not read again.
func (p *pageRun) segments(ctx context.Context, src SegmentSource) error {
	sg, pl := p.spec.segs, p.spec.splice
	n := src.Segments()
	switch {
	case n < 1 || n > maxSegments:
		return fmt.Errorf("reading page %d: SegmentSource.Segments() is %d, not 1 to %d", p.n, n, maxSegments)
	case pl != nil && n != len(pl.reread):
		return errSplice
	}
	for i := range n {
		if pl != nil && !pl.reread[i] {
			sg.Keep(pl.old.Body()[i])
			continue
		}
		if pl != nil && pl.before != nil {
			pl.before(i)
		}
		read, future := p.i, p.st.future
		for u, err := range src.SegmentURLs(ctx, p.n, i) {
			if err != nil {
				return fmt.Errorf("reading segment %d of page %d: %w", i, p.n, err)
			}
			if err := p.add(ctx, &u); err != nil {
				return err
			}
		}
		sg.Read(p.i - read)
		if p.st.future > future {
			sg.Volatile()
		}
		sg.Cut()
	}
	return nil
}
