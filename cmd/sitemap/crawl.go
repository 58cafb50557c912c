package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/check"
	"github.com/freshmap/sitemap/internal/pagecheck"
)

// crawler follows robots.txt → indexes → sitemap files and gives each
// document to the Checker (or, for sitemap crawl, to the counter). Its
// goroutines are bounded whatever a robots.txt or index lists: a fixed
// pool of -concurrency workers runs the jobs of a queue (queue.go), each
// job one robots.txt or one file, so no more than that many files are held
// and parsed at once; the names seen are kept as 8-byte hashes, and at
// most maxFiles are followed.
type crawler struct {
	chk       *check.Checker
	client    *http.Client
	transport http.RoundTripper // the client's, for the HEADs (head.go)
	timeout   time.Duration
	slots     chan struct{} // one per fetch in flight
	prog      *progress
	ctx       context.Context // ends at the run's deadline (-deadline)
	deadline  time.Duration   // for the message; 0 when none
	guard     *guard          // the addresses the transport connects to

	remoteArgs bool         // some argument is a URL: foreign robots.txt may be fetched
	deep       *deep        // -deep: the listed pages checked too; nil when off
	count      *counter     // sitemap crawl: counted, not checked; nil for check
	robotsTxt  robotsCache  // each origin's Sitemap: lines
	foreign    atomic.Int64 // hosts whose robots.txt cross-submission asked for

	queue *queue
}

// newCrawler returns a crawler whose requests end with ctx; its chk and
// prog are set before start, since the Checker asks the crawler for
// robots.txt (sitemapsOf).
func newCrawler(ctx context.Context, transport http.RoundTripper, concurrency, maxFiles int, timeout time.Duration) *crawler {
	return &crawler{
		client:    &http.Client{Transport: transport},
		transport: transport,
		timeout:   timeout,
		ctx:       ctx,
		slots:     make(chan struct{}, concurrency),
		queue:     newQueue(concurrency, maxFiles),
	}
}

// isURL tells an http(s) URL argument from a file name.
func isURL(arg string) bool {
	u, err := url.Parse(arg)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// start queues one argument: a site, a robots.txt, a sitemap URL, or a file.
func (c *crawler) start(arg string) {
	if !isURL(arg) {
		c.spawn(arg, func() { c.local(arg, "", false) })
		return
	}
	u, _ := url.Parse(arg)
	switch {
	case u.Path == "" || u.Path == "/":
		robots := u.ResolveReference(&url.URL{Path: "/robots.txt"}).String()
		c.spawn(robots, func() { c.robots(robots) })
	case strings.HasSuffix(u.Path, "/robots.txt"):
		c.spawn(arg, func() { c.robots(arg) })
	default:
		c.spawn(arg, func() { c.remote(arg, false) })
	}
}

// spawn queues fn, once per name.
func (c *crawler) spawn(name string, fn func()) {
	c.spawnAll([]string{name}, func(string) { fn() })
}

// spawnAll queues fn for each name not seen before, to run in their order
// before what was queued earlier (the files of an index before the next
// Sitemap: line), so that the queue holds the lists of at most a few
// indexes at once.
func (c *crawler) spawnAll(names []string, fn func(name string)) {
	n := c.queue.push(names, func(name string) {
		defer c.prog.done(name)
		fn(name)
	})
	for range n {
		c.prog.queued()
	}
}

// wait runs the queue on its workers and returns once every file found
// has been checked, or the deadline has passed; then a deadline finding
// says what was left.
func (c *crawler) wait() {
	c.queue.run(c.ctx)
	c.prog.end()
	left, over := c.queue.left()
	if c.ctx.Err() != nil {
		c.chk.Add(check.NewFinding("deadline", "", fmt.Sprintf("the run reached its deadline (-deadline %v): %d files found were not fetched, and those being read were cut short", c.deadline, left)))
	}
	if n := c.foreign.Load() - maxForeign; n > 0 {
		c.chk.Add(check.NewFinding("deadline", "", fmt.Sprintf("cross-submission: the robots.txt of %d more hosts that sitemaps name were not asked (at most %d a run), so the loc-scope errors of their URLs may be wrong", n, maxForeign)))
	}
	if over > 0 {
		c.chk.Add(check.NewFinding("deadline", "", fmt.Sprintf("%d more files were listed past -max-files %d, and not fetched", over, c.queue.maxFiles)))
	}
}

// robots follows the Sitemap: lines of a robots.txt.
func (c *crawler) robots(loc string) {
	resp, body, err := c.getLimit(loc, nil, pagecheck.MaxRobotsBytes+1)
	if err != nil {
		c.chk.Add(check.NewFinding("fetch", loc, err.Error()))
		return
	}
	if resp.StatusCode != http.StatusOK {
		c.chk.Add(check.NewFinding("http-status", loc, "GET answered "+resp.Status))
		return
	}
	if len(body) > pagecheck.MaxRobotsBytes {
		c.chk.Add(check.NewFinding("robots", loc, fmt.Sprintf("robots.txt is over %d KiB; crawlers read only the first %d KiB, and so does this check", pagecheck.MaxRobotsBytes>>10, pagecheck.MaxRobotsBytes>>10)))
		body = body[:bytes.LastIndexByte(body[:pagecheck.MaxRobotsBytes], '\n')+1] // no line cut short
	}
	abs, bad := sitemapLines(body)
	if u, err := url.Parse(loc); err == nil {
		c.robotsTxt.lines(origin(u), func() []string { return abs })
	}
	for i, val := range bad {
		if i == maxBadLines {
			c.chk.Add(check.NewFinding("robots", loc, fmt.Sprintf("and %d more Sitemap: lines that are not absolute URLs", len(bad)-i)))
			break
		}
		c.chk.Add(check.NewFinding("robots", loc, fmt.Sprintf("Sitemap: %q is not an absolute URL", val)))
	}
	if c.count != nil {
		c.count.add(func(n *counts) { n.Robots++ })
	}
	c.spawnAll(abs, func(val string) { c.remote(val, false) })
	if len(abs) == 0 {
		c.chk.Add(check.NewFinding("robots", loc, "no Sitemap: line"))
	}
}

// sitemapsOf returns the Sitemap: lines of an origin's robots.txt, fetched
// once (check.Options.Robots), or none when the crawl has no URL argument.
func (c *crawler) sitemapsOf(origin string) []string {
	if !c.remoteArgs {
		return nil // local files: no request to a host they name
	}
	return c.robotsTxt.lines(origin, func() []string {
		if c.foreign.Add(1) > maxForeign {
			return nil // counted, and reported in wait
		}
		resp, body, err := c.getLimit(origin+"/robots.txt", nil, pagecheck.MaxRobotsBytes)
		if err != nil || resp.StatusCode != http.StatusOK {
			return nil
		}
		abs, _ := sitemapLines(body)
		return abs
	})
}

// remote checks a sitemap or index at loc, and follows an index. child
// tells that an index listed it, so that it may not be an index itself.
func (c *crawler) remote(loc string, child bool) {
	var kind check.Kind
	var children []string
	if c.count != nil {
		kind, children = c.countRemote(loc)
	} else {
		kind, children = c.checkRemote(loc)
	}
	if kind != check.Index {
		return
	}
	if child {
		c.chk.Add(check.NewFinding("index-nested", loc, "an index listed this index; its files are not followed"))
		return
	}
	c.spawnAll(children, func(l string) { c.remote(l, true) })
	if c.count == nil {
		c.probe(loc, children)
	}
}

// checkRemote fetches and checks one file, on one of the queue's
// workers, so that at most -concurrency files are held and parsed at
// once, however many an index lists.
func (c *crawler) checkRemote(loc string) (check.Kind, []string) {
	data, ok := c.fetch(loc)
	if !ok {
		return check.Unknown, nil
	}
	kind, children := c.chk.Document(loc, loc, data)
	if kind == check.URLSet && c.deep != nil {
		c.pages(loc, data)
	}
	return kind, children
}

// local checks a file on disk, reading it once without holding it. loc is
// its URL when an index listed it; the files an index lists are checked
// when one of the same name lies beside it.
func (c *crawler) local(name, loc string, child bool) {
	f, err := os.Open(name)
	if err != nil {
		c.chk.Add(check.NewFinding("fetch", name, err.Error()))
		return
	}
	kind, children := c.chk.Read(name, loc, io.LimitReader(f, sitemap.MaxBytes+1)) // read once, as it goes
	f.Close()
	if kind != check.Index {
		return
	}
	if child {
		c.chk.Add(check.NewFinding("index-nested", name, "an index listed this index; its files are not followed"))
		return
	}
	locs := map[string]string{} // the file beside the index → its URL
	var files []string
	for _, l := range children {
		u, err := url.Parse(l)
		if err != nil {
			continue
		}
		p := filepath.Join(filepath.Dir(name), path.Base(u.Path))
		if _, err := os.Stat(p); err == nil {
			if _, dup := locs[p]; !dup {
				locs[p] = l
				files = append(files, p)
			}
		}
	}
	c.spawnAll(files, func(p string) { c.local(p, locs[p], true) })
}

// maxForeign is how many hosts' robots.txt are asked at most in a run
// for cross-submission: each is a request a sitemap can make the check
// send, one after another while its file waits.
const maxForeign = 64

// maxBadLines is how many Sitemap: lines that are not absolute URLs are
// reported one by one.
const maxBadLines = 20
