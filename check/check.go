// Package check holds the rules of the sitemap protocol as a checker: feed
// it documents (a <urlset>, a <sitemapindex> or a plain-text sitemap,
// plain or gzip) with
// [Checker.Document], call [Checker.Finish] once every file is in, and read
// the findings and counts from [Checker.Report]. The sitemap command
// (cmd/sitemap) fetches the documents and adds the HTTP rules; the rules
// themselves live here so that tests and the command share them.
//
// Every finding names a stable rule (see [Rules]) with its severity. A
// Checker is safe for concurrent use: documents may be checked at once,
// and the rules across files (duplicate URLs, hreflang reciprocity) are
// judged in Finish.
package check

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/freshmap/sitemap/parse"
)

// Severity tells whether a finding breaks the protocol (Error) or only
// weakens the sitemap (Warning).
type Severity int

// The severities of a finding.
const (
	Error Severity = iota
	Warning
)

func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// MarshalText writes "error" or "warning".
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads "error" or "warning".
func (s *Severity) UnmarshalText(b []byte) error {
	switch string(b) {
	case "error":
		*s = Error
	case "warning":
		*s = Warning
	default:
		return fmt.Errorf("check: unknown severity %q", b)
	}
	return nil
}

// Finding is one broken rule, at a place in one file.
type Finding struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	File     string   `json:"file"`
	Line     int      `json:"line,omitempty"` // 1-based; 0 when the rule concerns the file or the tree
	Column   int      `json:"column,omitempty"`
	URL      string   `json:"url,omitempty"` // the entry's loc, when the finding concerns one entry
	Msg      string   `json:"message"`
}

// String formats f as "file:line:col: severity: rule: message" (or
// "file:line:" when only the line is known, as for the rules across files,
// which keep lines only). A finding
// about one entry has the position of the value the parser could not read,
// or else of the entry's start tag; without a position (a finding across
// files), the entry's URL, when the message does not name it, follows the
// rule.
func (f Finding) String() string {
	pos := f.File
	switch {
	case f.Line > 0 && f.Column > 0:
		pos = fmt.Sprintf("%s:%d:%d", f.File, f.Line, f.Column)
	case f.Line > 0:
		pos = fmt.Sprintf("%s:%d", f.File, f.Line)
	}
	msg := f.Msg
	if f.Line == 0 && f.URL != "" && !strings.Contains(msg, f.URL) {
		msg = f.URL + ": " + msg
	}
	return fmt.Sprintf("%s: %s: %s: %s", pos, f.Severity, f.Rule, msg)
}

// Kind is the kind of document Document found.
type Kind int

// The kinds of document.
const (
	Unknown Kind = iota // unreadable: not XML, or another root
	URLSet              // a <urlset>, or a plain-text sitemap (one URL a line)
	Index
	Feed // an Atom (1.0 or 0.3) feed or an RSS channel: counted, not judged by the sitemap rules
)

// Checker accumulates the findings and counts of the files it is given.
// Its zero value is not ready: use [New].
type Checker struct {
	now    func() time.Time
	limits parse.Limits
	robots func(origin string) []string

	mu       sync.Mutex
	findings []Finding
	files    int
	urls     int
	tree     tree
	parents  map[string]string // a file's loc → the index that listed it
}

// Options configure a Checker. The zero value checks by the protocol's
// limits with the real clock.
type Options struct {
	// Now is the clock that lastmods in the future are judged by. Nil means time.Now.
	Now func() time.Time
	// Limits are passed to the parser; the zero value is the protocol's
	// 50,000 entries and 50 MB per file.
	Limits parse.Limits
	// Robots returns the Sitemap: lines of the robots.txt of an origin
	// ("https://example.com", with a port when not the default), or none.
	// It allows cross-submission: a sitemap may list URLs of another host
	// when that host's robots.txt names the sitemap, or the index that
	// listed it. Document calls it at most once per file and origin, for
	// locations outside the file's own scope, from the goroutine that
	// called Document; it may fetch, and must be safe for concurrent use.
	// Nil means no location outside the scope is accepted.
	Robots func(origin string) []string
	// MaxMemory bounds the bytes held for the rules across files
	// (duplicates, hreflang reciprocity): 24 bytes a URL and 16 an
	// alternate link, in buffers that are sorted and written to temporary
	// files in TempDir each time they fill, and merged in Finish; the text
	// of each URL goes to such a file at once. Every URL is covered
	// whatever the bound. Zero means no bound: everything is held in memory.
	MaxMemory int64
	// TempDir is where the rules across files spill past MaxMemory. Empty
	// means os.TempDir(). Finish removes the files.
	TempDir string
}

// New returns a Checker with no files yet.
func New(opt Options) *Checker {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	return &Checker{now: opt.Now, limits: opt.Limits, robots: opt.Robots, tree: newTree(opt.MaxMemory, opt.TempDir), parents: map[string]string{}}
}

// Document checks one file. name is how findings name it (a URL or a path);
// loc is its absolute http(s) URL, which the locations it lists must lie
// under, or "" when unknown (a local file), which skips that rule. data is
// the document, plain or gzip. Document returns the kind of document and,
// for an index, the locations it lists.
func (c *Checker) Document(name, loc string, data []byte) (Kind, []string) {
	return c.Read(name, loc, bytes.NewReader(data))
}

// Read checks one file as Document does, reading r once, as it goes:
// the parser and the rules it does not apply (element order, where each
// entry starts) share one pass, and no more than the parser's buffers is
// held of the document.
func (c *Checker) Read(name, loc string, r io.Reader) (Kind, []string) {
	c.mu.Lock()
	parent := c.parents[loc]
	c.mu.Unlock()
	f := newFile(c, name, loc, parent)
	kind, children := f.check(r)
	c.mu.Lock()
	defer c.mu.Unlock()
	if kind == Index && loc != "" {
		for _, ch := range children {
			if _, ok := c.parents[ch]; !ok {
				c.parents[ch] = loc
			}
		}
	}
	c.files++
	c.urls += f.urls
	c.findings = append(c.findings, f.findings...)
	c.tree.merge(f)
	return kind, children
}

// Add records a finding that the caller found, such as an HTTP rule.
func (c *Checker) Add(f Finding) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.findings = append(c.findings, f)
}

// Finish judges the rules across files and removes the temporary files
// they spilled to. Call it once, after the last Document.
func (c *Checker) Finish() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.findings = append(c.findings, c.tree.findings()...)
}

// Counts returns the files and URLs checked so far, cheaply.
func (c *Checker) Counts() (files, urls int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.files, c.urls
}

// Report is what a Checker found.
type Report struct {
	Files    int            `json:"files"`
	URLs     int            `json:"urls"` // the <url> entries of the sitemaps; an index's entries are files, not URLs
	Errors   int            `json:"errors"`
	Warnings int            `json:"warnings"`
	ByRule   map[string]int `json:"by_rule"`
	Findings []Finding      `json:"findings"` // by file, line and column
	// Pages counts the pages a caller fetched beside the sitemaps (the
	// command's -deep), by status code ("200", "301") or "error"; the
	// Checker leaves it nil.
	Pages map[string]int `json:"pages,omitempty"`
}

// Report returns the findings so far, sorted, with their counts.
func (c *Checker) Report() Report {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := Report{Files: c.files, URLs: c.urls, ByRule: map[string]int{}, Findings: slices.Clone(c.findings)}
	slices.SortStableFunc(r.Findings, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
	for _, f := range r.Findings {
		if f.Severity == Error {
			r.Errors++
		} else {
			r.Warnings++
		}
		r.ByRule[f.Rule]++
	}
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
	return r
}

// JSON returns the report as one indented JSON object.
func (r Report) JSON() []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	_ = enc.Encode(r) // a Report always encodes
	return b.Bytes()
}
