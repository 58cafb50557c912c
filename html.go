package sitemap

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/freshmap/sitemap/internal/audit"
	"github.com/freshmap/sitemap/internal/crawllog"
	"github.com/freshmap/sitemap/internal/htmlview"
)

// The HTML view (Config.HTML): the index and every page as HTML for
// people, at sitemap_index.html and sitemap-NAME-N.html, and their parts
// (htmlPartName). Like the text form (text.go), a view is made from the
// document's cached XML on its first request, never from the Source
// (internal/htmlview reads it back and makes the parts; documents keep
// them, htmlPart below); it shares the document's content clock (Last-Modified),
// each part has its own ETag from its own bytes, and it is kept with its
// entry and counted in the cache's budget. A part holds at most
// htmlview.MaxPart bytes, under the 2 MB of an HTML file that Googlebot
// reads, and the parts link to each other with rel="prev" and rel="next".

var (
	hdrHTMLCT = []string{"text/html; charset=utf-8"}
	// hdrHTMLCSP lets a view run no script and load nothing, whatever a
	// sitemap holds: it needs only its own inline style.
	hdrHTMLCSP = []string{"default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"}
)

// htmlView is the HTML view of a document: its parts, in order.
type htmlView struct {
	parts []*htmlPart
	// counts: an index's view, showing URL counts; counted is the count
	// of page builds (documents.counted) when it was made: its URL counts
	// are those known then.
	counts  bool
	counted int64
	made    time.Time // when it was made (Config.Now)
	notes   atomic.Pointer[viewNotes]
}

// viewNotes are a view's notes (their HTML) as asked in one second.
type viewNotes struct {
	sec  int64 // Unix seconds
	html []byte
}

// notesOf returns the view's notes: those asked of ask in second sec, or
// ask's answer now. So the notes, which the crawl log and the audit make
// with a few allocations, are asked once a second, not per request; they
// say "2 h ago" to the second anyway.
func (v *htmlView) notesOf(sec int64, ask func() []byte) []byte {
	if n := v.notes.Load(); n != nil && n.sec == sec {
		return n.html
	}
	html := ask()
	v.notes.Store(&viewNotes{sec: sec, html: html})
	return html
}

// part returns part n (from 1), or nil.
func (v *htmlView) part(n int) *htmlPart {
	if n < 1 || n > len(v.parts) {
		return nil
	}
	return v.parts[n-1]
}

// htmlPart is one part of a view: its copy without notes, an entry served
// as the document's other forms are, and what a copy with notes is made
// of (htmlview.Part). The copy with the last notes asked for is kept, so
// that a part is made once per change of its document or of its notes
// (TestHTMLNotesKept).
type htmlPart struct {
	bare  *entry
	view  *htmlview.Part
	noted atomic.Pointer[notedPart]
}

// notedPart is a part's copy with notes: an entry with no Last-Modified
// (the notes change without the file) and ETags over the part and notes.
type notedPart struct {
	notes uint64 // the xxhash of the notes' HTML
	e     *entry
}

// withNotes returns the part's copy with notes (their HTML, from
// htmlview.AppendNotes), made if the copy kept has other notes; keep
// stores a new copy in place of the one kept, if it may.
func (p *htmlPart) withNotes(notes []byte, level int, built time.Time, keep func(c *notedPart)) *entry {
	sum := xxhash.Sum64(notes)
	old := p.noted.Load()
	if old != nil && old.notes == sum {
		return old.e
	}
	gz, id := p.view.WithNotes(notes)
	c := &notedPart{notes: sum, e: newEntry(gz, id, level, time.Time{}, built)}
	keep(c)
	return c.e
}

// newHTMLView is the view of doc made of parts, each kept as an entry
// with doc's content clock.
func newHTMLView(parts []*htmlview.Part, level int, doc *entry) *htmlView {
	v := &htmlView{parts: make([]*htmlPart, len(parts))}
	for i, p := range parts {
		v.parts[i] = &htmlPart{bare: newEntry(p.Gz, p.Sum, level, doc.lastMod, doc.built), view: p}
	}
	return v
}

// indexHTML makes the HTML view of e, the cached index. count gives the
// URL count of a page, or 0 if it is not known here; a page built later
// makes the view again (documents.htmlStale), so that its count shows.
func (st *site) indexHTML(e *entry, count func(docKey) int) (*htmlView, error) {
	files := make([][]byte, e.files())
	for f := range files {
		files[f] = e.file(f + 1).gz
	}
	prefix := strings.TrimSuffix(st.indexLoc, st.IndexName)
	sh := &htmlview.Shell{Stem: st.htmlStem(indexKey), Title: "Sitemap index", Intro: htmlview.IndexIntro(st.IndexName, e.lastMod), Noun: "Files", Cols: htmlview.IndexCols}
	ps, err := htmlview.IndexView(sh, st.gzipLevel, files, func(n int, sm *htmlview.Sitemap) *htmlview.FileRow { return st.fileRow(n, sm, prefix, count) })
	if err != nil {
		return nil, err
	}
	return newHTMLView(ps, st.gzipLevel, e), nil
}

// fileRow is what the index's view shows of sm, file number n of the
// index; a file's locations all start with prefix, the base URL.
func (st *site) fileRow(n int, sm *htmlview.Sitemap, prefix string, count func(docKey) int) *htmlview.FileRow {
	f := &htmlview.FileRow{N: n, Name: strings.TrimPrefix(sm.Loc, prefix), LastMod: sm.LastMod,
		// The .xml, which a browser opens; the .xml.gz the index lists would
		// download (TestHTMLIndexLinksXML).
		XML: strings.TrimSuffix(sm.Loc, ".gz")}
	if rt, ok := st.route(st.base.path + f.Name); ok && rt.key.kind == docPage {
		f.View = htmlPartName(st.htmlStem(rt.key), 1)
		f.Section = st.sections[rt.key.sec].name
		f.URLs = count(rt.key)
	}
	return f
}

// pageHTML makes the HTML view of e, the cached copy of page k, which the
// index lists with the lastmod listed (zero if none): the view gives the
// file the index's date, not its Last-Modified, which after a restart
// may be later (clock.go, rule 3; TestHTMLDatesAgree).
func (st *site) pageHTML(k docKey, e *entry, listed time.Time) (*htmlView, error) {
	file, index := st.fileName(k), ""
	if k.kind == docPage { // not a one-file sitemap (single.go), which is the index
		index = htmlPartName(st.htmlStem(indexKey), 1)
	}
	sh := &htmlview.Shell{Stem: st.htmlStem(k), Title: "Sitemap file " + file, Intro: htmlview.PageIntro(file, listed, index), Noun: "URLs", Cols: htmlview.URLCols}
	ps, err := htmlview.PageView(sh, st.gzipLevel, e.gz)
	if err != nil {
		return nil, err
	}
	return newHTMLView(ps, st.gzipLevel, e), nil
}

// htmlNoter gives what the HTML view shows, live, about document k under
// its heading: one line each, as plain text (escaped here), such as the
// crawl log's "Googlebot fetched this file 2 h ago: 304" or the
// self-audit's findings. None is a nil or empty slice.
type htmlNoter interface {
	htmlNotes(k docKey) []string
}

// htmlNoteList is every htmlNoter of a Sitemap, in order; nil has none,
// and the view is then served as it is cached.
type htmlNoteList []htmlNoter

// of returns the notes of every noter about k.
func (l htmlNoteList) of(k docKey) []string {
	var notes []string
	for _, n := range l {
		notes = append(notes, n.htmlNotes(k)...)
	}
	return notes
}

// crawlNotes are the crawl log's lines about a file, one per crawler
// family that fetched it, latest first (htmlview.CrawlNote).
type crawlNotes struct {
	log      *crawllog.Log
	sections int // the site's (docKey.crawlFile)
	now      func() time.Time
}

func (n crawlNotes) htmlNotes(k docKey) []string {
	var notes []string
	for _, f := range n.log.Fetches(k.crawlFile(n.sections)) {
		if f.Crawler != "other" {
			notes = append(notes, htmlview.CrawlNote(f.Crawler, f.Purpose, f.Verified, f.Spoofed, n.now().Sub(f.Time), f.Status))
		}
	}
	return notes
}

// auditNotes are the self-audit's lines about a page: what its last audit
// checked and found, with the first examples (htmlview.AuditNotes).
type auditNotes struct {
	audit *audit.Auditor[docKey]
	site  *site
}

func (n auditNotes) htmlNotes(k docKey) []string {
	if k.kind != docPage {
		return nil
	}
	f, ok := n.audit.FileAudit(n.site.fileName(k))
	if !ok {
		return nil
	}
	examples := make([]htmlview.Finding, len(f.Examples))
	for i, e := range f.Examples {
		examples[i] = htmlview.Finding{Kind: e.Kind, Loc: e.Loc, Detail: e.Detail}
	}
	return htmlview.AuditNotes(f.Checked, f.Findings, f.LeftOut, examples)
}

// The views kept by documents: made once per cached copy, an index's
// again when a page built since shows another URL count, and a part's
// copy with notes once per change of its notes; all counted with the copy
// in the cache's budget.

// htmlPart returns part n of the HTML view of e, the copy of k, with its
// notes (their HTML, appendNotes; none if empty), or errNotFound. notes
// is asked at most once a second per view (htmlView.notesOf). The
// view is made once per copy and counted in the cache's budget, an
// index's made again when a page built since shows another URL count
// (htmlStale); a part's copy with notes once per change of its notes
// (htmlPart.withNotes). Making a view takes a build slot (MaxBuilds),
// as a request's, ahead of the background loads (slots),
// waited for while ctx lasts: it costs several times the XML's build
// (BENCHMARKS.md).
func (d *documents) htmlPart(ctx context.Context, k docKey, e *entry, n int, notesOf func() []byte) (*entry, error) {
	v := e.html.Load()
	if v == nil || d.htmlStale(v) {
		var err error
		if v, err = d.makeHTML(ctx, k, e); err != nil {
			return nil, fmt.Errorf("the HTML view of %s: %w", d.site.fileName(k), err)
		}
	}
	p := v.part(n)
	if p == nil {
		return nil, errNotFound
	}
	notes := v.notesOf(d.now().Unix(), notesOf)
	if len(notes) == 0 {
		return p.bare, nil
	}
	return p.withNotes(notes, d.site.gzipLevel, e.built, func(c *notedPart) {
		d.cache.SwapForm(k, e, func() (bool, int64, int64) {
			if e.html.Load() != v {
				return false, 0, 0 // the view was made again meanwhile
			}
			old := p.noted.Swap(c)
			if old == nil {
				return true, int64(len(c.e.gz)), 0
			}
			cp := old.e.ownCopy() // the plain copy of the old notes goes with them
			return true, int64(len(c.e.gz)-len(old.e.gz)) - cp, -cp
		})
	}), nil
}

// htmlStale reports whether v, an index's view, shows URL counts that a
// page built since changed: then it is made again, at once if it has one
// part (a few thousand rows), else at most once a second.
func (d *documents) htmlStale(v *htmlView) bool {
	return v.counts && v.counted != d.counted.Load() && (len(v.parts) == 1 || d.now().Sub(v.made) >= time.Second)
}

// makeHTML makes the HTML view of e, the copy of k, once at a time, and
// keeps it with e in place of the view it had, if any.
func (d *documents) makeHTML(ctx context.Context, k docKey, e *entry) (*htmlView, error) {
	e.htmlMu.Lock()
	defer e.htmlMu.Unlock()
	old := e.html.Load()
	if old != nil && !d.htmlStale(old) {
		return old, nil // made meanwhile
	}
	if err := d.slots.acquire(ctx, k, true); err != nil { // a request's: before background loads
		return nil, err
	}
	defer d.slots.release()
	counted, made := d.counted.Load(), d.now()
	var v *htmlView
	var err error
	switch {
	case k.kind == docIndex && !htmlview.IsURLSet(e.gz):
		v, err = d.site.indexHTML(e, d.urls)
		if v != nil {
			v.counts = true
		}
	case k.kind == docIndex: // a one-file sitemap (single.go)
		v, err = d.site.pageHTML(k, e, time.Time{})
	default:
		v, err = d.site.pageHTML(k, e, d.clocks.listedAt(k))
	}
	if err != nil {
		return nil, err
	}
	v.counted, v.made = counted, made
	d.cache.SwapForm(k, e, func() (bool, int64, int64) {
		old := e.html.Swap(v) // counted under the cache's lock: the parts' copies with notes change under it too
		if old == nil {
			return true, htmlCost(v), 0
		}
		return true, htmlCost(v) - htmlCost(old), -htmlCopies(old)
	})
	return v, nil
}

// urls is the URL count of page k if a copy built here is cached, or 0.
func (d *documents) urls(k docKey) int {
	if sl, ok := d.cache.Peek(k); ok {
		return sl.e.urls
	}
	return 0
}
