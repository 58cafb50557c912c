package check

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/freshmap/sitemap/parse"
	"github.com/freshmap/sitemap/urlset"
)

// file is the check of one document: its own findings and what the rules
// across files need from it, merged into the Checker when it is done.
type file struct {
	now      time.Time
	limits   parse.Limits
	name     string
	scope    *scope   // nil when the file's URL is unknown
	self     *url.URL // the file's URL, parsed; nil when unknown
	cross    *cross   // origins whose robots.txt names this file or its index
	findings []Finding

	urls     int      // <url> entries; an index's <sitemap> entries are not URLs
	entries  int      // <url> or <sitemap> entries
	locs     []string // every entry's loc, for duplicates across files
	locLines []uint32 // the line of each loc's <url>, 0 when unknown
	links    []pair   // the alternate links to other URLs, as hashes (link)
	news     int      // entries with <news:news>
	lastmods lastmods

	// Where the <url> or <sitemap> being checked starts (start, order.go),
	// so that a finding about an entry the parser read without error still
	// names its line; inEntry tells that one is being checked.
	entryLine, entryCol int
	inEntry             bool
	stack               []frame // the open elements, for element-order
}

func newFile(c *Checker, name, loc, parent string) *file {
	f := &file{now: c.now(), limits: c.limits, name: name}
	if loc != "" {
		f.scope = newScope(loc)
		f.self, _ = httpURL(loc)
	}
	if f.scope != nil && c.robots != nil {
		f.cross = &cross{robots: c.robots, names: []string{loc, parent}, allowed: map[string]bool{}}
	}
	return f
}

// add records a finding of rule at a position (0 for the whole file).
func (f *file) add(rule string, line, col int, url, format string, args ...any) {
	fd := NewFinding(rule, f.name, fmt.Sprintf(format, args...))
	if line == 0 && f.inEntry {
		line, col = f.entryLine, f.entryCol
	}
	fd.Line, fd.Column, fd.URL = line, col, url
	f.findings = append(f.findings, fd)
}

// check reads r, plain or gzip, once: up to its root element, then as
// the <urlset> or <sitemapindex> that the root says, while start (order.go)
// checks the order of elements and notes where each entry starts.
func (f *file) check(r io.Reader) (Kind, []string) {
	doc, err := parse.Open(r, f.limits, f.start)
	if err != nil {
		f.parseError(err, "")
		if errors.Is(err, parse.ErrRoot) {
			return Unknown, nil
		}
		f.fileRules()
		return URLSet, nil
	}
	switch root := doc.Root(); {
	case doc.Text():
		return f.text(doc)
	case isFeed(root):
		return Feed, nil
	case root.Local == "sitemapindex":
		return f.index(doc)
	}
	first := true
	for u, err := range doc.URLs() {
		f.inEntry = true
		if first && errors.Is(err, parse.ErrRoot) {
			f.inEntry = false
			f.parseError(err, "") // the <urlset>'s error: no namespace, another, or another root
			return Unknown, nil
		}
		first = false
		if err != nil && !f.parseError(err, u.Loc) {
			break
		}
		f.url(&u, err)
	}
	f.inEntry = false
	f.fileRules()
	return URLSet, nil
}

// text checks a plain-text sitemap: one URL a line, each judged as a
// <url>'s loc, at its line.
func (f *file) text(doc *parse.Document) (Kind, []string) {
	for u, err := range doc.URLs() {
		if err != nil {
			f.parseError(err, "")
			break
		}
		f.inEntry = true
		f.entryLine, f.entryCol = doc.Pos()
		f.url(&u, nil)
		f.inEntry = false
	}
	f.fileRules()
	return URLSet, nil
}

// index checks a <sitemapindex> and returns the locations it lists.
func (f *file) index(doc *parse.Document) (Kind, []string) {
	var children []string
	for s, err := range doc.Index() {
		f.inEntry = true
		if err != nil && !f.parseError(err, s.Loc) {
			if errors.Is(err, parse.ErrRoot) {
				return Unknown, nil
			}
			break
		}
		f.entries++
		if s.Loc == "" {
			continue
		}
		line, col := position(err)
		if f.self != nil && sameFile(f.self, s.Loc) {
			f.add("index-self", line, col, s.Loc, "the index lists itself; it is not followed again")
			continue
		}
		if f.locRules("loc", s.Loc, s.Loc, line, col) {
			children = append(children, s.Loc)
		}
		f.lastmod(s.Loc, s.LastMod, line, col)
	}
	f.inEntry = false
	f.lastmods.judge(f)
	return Index, children
}

// parseError records err as a finding and reports whether reading goes on:
// a bad value concerns one entry, anything else ends the document.
func (f *file) parseError(err error, loc string) bool {
	var pe *parse.Error
	if !errors.As(err, &pe) {
		f.add("xml", 0, 0, "", "%v", err)
		return false
	}
	msg := strings.TrimPrefix(pe.Err.Error(), parse.ErrInvalid.Error()+": ")
	if pe.Path != "" {
		msg = pe.Path + ": " + msg
	}
	rule := "xml"
	switch {
	case errors.Is(err, parse.ErrPrefix):
		rule = "namespace"
	case errors.Is(err, parse.ErrInvalid):
		rule = invalidRule(pe.Path, msg)
	case errors.Is(err, parse.ErrTooLarge):
		rule = "file-size"
	case errors.Is(err, parse.ErrTooMany):
		rule = "file-entries"
	case errors.Is(err, parse.ErrRoot):
		rule = "root"
	case errors.Is(err, parse.ErrEncoding):
		rule = "encoding"
	}
	f.add(rule, pe.Line, pe.Column, loc, "%s", msg)
	return errors.Is(err, parse.ErrInvalid)
}

// invalidRule names the rule a bad value breaks, from its element's path.
func invalidRule(path, msg string) string {
	last := path[strings.LastIndexByte(path, '/')+1:]
	switch {
	case strings.Contains(msg, "no <loc>"), strings.Contains(msg, "no <image:loc>"),
		strings.Contains(msg, "empty <loc>"), strings.Contains(msg, "empty <image:loc>"):
		return "loc-missing"
	case last == "xhtml:link":
		return "ext-url"
	case last == "lastmod":
		return "lastmod-format"
	case last == "priority":
		return "priority-range"
	case last == "changefreq":
		return "changefreq-value"
	case strings.HasPrefix(last, "video:"):
		return "video-value"
	case strings.HasPrefix(last, "news:"):
		return "news-value"
	}
	return "value"
}

// position returns the line and column of a value error, or zeros.
func position(err error) (int, int) {
	var pe *parse.Error
	if errors.As(err, &pe) {
		return pe.Line, pe.Column
	}
	return 0, 0
}

// url applies the per-entry rules to one <url>.
func (f *file) url(u *urlset.URL, err error) {
	if u.Loc != "" {
		f.urls++ // an entry with no loc, or an empty one, is no URL
	}
	f.entries++
	line, col := position(err)
	if u.Loc != "" && f.locRules("loc", u.Loc, u.Loc, line, col) {
		f.locs = append(f.locs, u.Loc)
		f.locLines = append(f.locLines, uint32(f.lineOf(line)))
	}
	f.lastmod(u.Loc, u.LastMod, line, col)
	if u.Priority != nil && !(*u.Priority >= 0 && *u.Priority <= 1) {
		f.add("priority-range", line, col, u.Loc, "priority %g is not from 0.0 to 1.0", *u.Priority)
	}
	f.images(u, line, col)
	for i := range u.Videos {
		f.video(u, &u.Videos[i], line, col)
	}
	if u.News != nil {
		f.news++
		f.newsRules(u, line, col)
	}
	f.alternates(u, line, col)
}

// lineOf is the line where the current entry starts, or else line.
func (f *file) lineOf(line int) int {
	if f.inEntry {
		return f.entryLine
	}
	return line
}

// lastmod checks one entry's lastmod and counts it for the build-stamp rule.
func (f *file) lastmod(loc string, t time.Time, line, col int) {
	if t.IsZero() {
		return
	}
	if t.After(f.now.Add(maxSkew)) {
		f.add("lastmod-future", line, col, loc, "lastmod %s is in the future", t.Format(time.RFC3339))
	}
	f.lastmods.add(t)
}

// maxSkew is how far in the future a lastmod may lie, for clocks differ.
const maxSkew = 5 * time.Minute

// fileRules are the rules of a whole <urlset>.
func (f *file) fileRules() {
	if f.entries == 0 && len(f.findings) == 0 {
		f.add("urlset-empty", 0, 0, "", "the <urlset> lists no URL")
	}
	if f.news > maxNews {
		f.add("news-count", 0, 0, "", "%d news URLs; at most %d in one file", f.news, maxNews)
	}
	f.lastmods.judge(f)
}

const maxNews = 1000

// lastmods tells whether every entry of a file has the same lastmod.
type lastmods struct {
	n      int
	first  time.Time
	differ bool
}

func (l *lastmods) add(t time.Time) {
	if l.n == 0 {
		l.first = t
	} else if !t.Equal(l.first) {
		l.differ = true
	}
	l.n++
}

// judge records a warning when more than one entry has the same lastmod
// and none has another.
func (l *lastmods) judge(f *file) {
	if l.n > 1 && !l.differ && l.n == f.entries {
		f.add("lastmod-stamp", 0, 0, "", "all %d entries have the lastmod %s: a build time, not the pages'", l.n, l.first.Format(time.RFC3339))
	}
}
