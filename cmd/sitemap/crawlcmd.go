package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"text/tabwriter"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/check"
	"github.com/freshmap/sitemap/parse"
	"github.com/klauspost/compress/gzip"
)

// runCrawl is `sitemap crawl`: the tree walked as a crawler walks it,
// robots.txt → indexes → files, each file fetched once (no HEAD, no
// conditional request, no probe) and read for its entries, within the
// check's bounds; counts on stdout, progress on stderr. It returns the
// exit status: 1 if any error was found.
func runCrawl(args []string, stdout, stderr io.Writer, transport http.RoundTripper) int {
	fs := flag.NewFlagSet("crawl", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, usage); fs.PrintDefaults() }
	asJSON := fs.Bool("json", false, "print one JSON object: the counts and the errors")
	wf := addWalkFlags(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 || !wf.valid() || slices.ContainsFunc(fs.Args(), func(a string) bool { return !isURL(a) }) {
		fs.Usage()
		return 2
	}
	cr, cancel := wf.crawler(fs.Args(), transport)
	defer cancel()
	cr.count = &counter{}
	cr.chk = check.New(check.Options{}) // holds the errors; no document is given to it
	cr.prog = newProgress(stderr, cr.count.progress)
	cr.prog.verb = "crawled"
	for _, arg := range slices.Backward(fs.Args()) {
		cr.start(arg)
	}
	cr.wait()
	r := cr.chk.Report()
	n := cr.count.get()
	n.Errors = r.Errors
	if *asJSON {
		b, _ := json.MarshalIndent(struct {
			counts
			Findings []check.Finding `json:"findings"`
		}{n, r.Findings}, "", "  ")
		stdout.Write(append(b, '\n'))
	} else {
		for _, f := range r.Findings {
			fmt.Fprintln(stdout, clean(f.String()))
		}
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "\nrobots.txt\tindexes\tfiles\tURLs\twire bytes\tXML bytes\terrors\n%d\t%d\t%d\t%d\t%d\t%d\t%d\n",
			n.Robots, n.Indexes, n.Files, n.URLs, n.WireBytes, n.XMLBytes, n.Errors)
		tw.Flush()
	}
	if r.Errors > 0 {
		return 1
	}
	return 0
}

// counts are what a crawl found.
type counts struct {
	Robots    int   `json:"robots"`     // robots.txt files read
	Indexes   int   `json:"indexes"`    // sitemap indexes read
	Files     int   `json:"files"`      // sitemap files read (XML, plain text, feeds)
	URLs      int   `json:"urls"`       // entries of the files with a loc
	WireBytes int64 `json:"wire_bytes"` // bytes of the indexes and files as sent
	XMLBytes  int64 `json:"xml_bytes"`  // and uncompressed
	Errors    int   `json:"errors"`
}

// counter adds up a crawl's counts from its workers.
type counter struct {
	mu sync.Mutex
	n  counts
}

func (c *counter) add(f func(*counts)) {
	c.mu.Lock()
	f(&c.n)
	c.mu.Unlock()
}

func (c *counter) get() counts {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

func (c *counter) progress() (files, urls int) {
	n := c.get()
	return n.Indexes + n.Files, n.URLs
}

// countRemote fetches one index or file as a crawler does, a GET that
// must answer 200, reads it (plain or gzip; XML, plain text or a feed)
// and counts it; an index's locations are returned to be followed.
func (c *crawler) countRemote(loc string) (check.Kind, []string) {
	add := func(rule, format string, args ...any) {
		c.chk.Add(check.NewFinding(rule, loc, fmt.Sprintf(format, args...)))
	}
	resp, body, err := c.get(loc, nil)
	switch {
	case err != nil:
		add("fetch", "%v", err)
		return check.Unknown, nil
	case resp.StatusCode != http.StatusOK:
		add("http-status", "GET answered %s", resp.Status)
		return check.Unknown, nil
	case len(body) > sitemap.MaxBytes:
		add("file-size", "more than %d bytes on the wire", sitemap.MaxBytes)
		return check.Unknown, nil
	}
	var r io.Reader = bytes.NewReader(body)
	if bytes.HasPrefix(body, []byte{0x1f, 0x8b}) {
		gz, err := gzip.NewReader(r)
		if err != nil {
			add("xml", "gzip: %v", err)
			return check.Unknown, nil
		}
		r = gz
	}
	xr := &countingReader{r: io.LimitReader(r, sitemap.MaxBytes+1)}
	kind, children, urls, err := readTree(xr)
	if err != nil {
		add(parseRule(err), "%v", err)
	}
	c.count.add(func(n *counts) {
		n.WireBytes += int64(len(body))
		n.XMLBytes += xr.n
		n.URLs += urls
		switch kind {
		case check.Index:
			n.Indexes++
		case check.URLSet, check.Feed:
			n.Files++
		}
	})
	return kind, children
}

// readTree reads a document as a crawler does: the locations of an
// index, or the number of entries with a loc of a URL set or plain-text
// sitemap; a feed is a file with no entry counted. An entry with a bad
// value still counts when it has its loc; the error returned is the one
// that ended the document, or the root that is none of these.
func readTree(r io.Reader) (kind check.Kind, children []string, urls int, err error) {
	doc, err := parse.Open(r, parse.Limits{}, nil)
	if err != nil {
		return check.Unknown, nil, 0, err
	}
	root := doc.Root()
	switch {
	case !doc.Text() && (root.Local == "feed" || root.Local == "rss"):
		return check.Feed, nil, 0, nil
	case !doc.Text() && root.Local == "sitemapindex":
		for s, err := range doc.Index() {
			if errors.Is(err, parse.ErrRoot) {
				return check.Unknown, nil, 0, err
			}
			if err != nil && !errors.Is(err, parse.ErrInvalid) {
				return check.Index, children, 0, err
			}
			if s.Loc != "" {
				children = append(children, s.Loc)
			}
		}
		return check.Index, children, 0, nil
	}
	for u, err := range doc.URLs() {
		if errors.Is(err, parse.ErrRoot) {
			return check.Unknown, nil, 0, err
		}
		if err != nil && !errors.Is(err, parse.ErrInvalid) {
			return check.URLSet, nil, urls, err
		}
		if u.Loc != "" {
			urls++
		}
	}
	return check.URLSet, nil, urls, nil
}

// parseRule is the rule of an error that ended a document.
func parseRule(err error) string {
	switch {
	case errors.Is(err, parse.ErrRoot):
		return "root"
	case errors.Is(err, parse.ErrTooLarge):
		return "file-size"
	case errors.Is(err, parse.ErrTooMany):
		return "file-entries"
	case errors.Is(err, parse.ErrEncoding):
		return "encoding"
	}
	return "xml"
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
