package main

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/check"
)

// crawler follows robots.txt → indexes → sitemap files, fetching at most
// a fixed number at once, and gives each document to the Checker.
type crawler struct {
	chk       *check.Checker
	client    *http.Client
	transport http.RoundTripper // the client's, for the HEADs (head.go)
	timeout   time.Duration
	slots     chan struct{} // one per fetch in flight
	files     chan struct{} // one per sitemap file fetched and being checked
	prog      *progress

	remoteArgs bool        // some argument is a URL: foreign robots.txt may be fetched
	deep       *deep       // -deep: the listed pages checked too; nil when off
	robotsTxt  robotsCache // each origin's Sitemap: lines

	wg      sync.WaitGroup
	mu      sync.Mutex
	visited map[string]bool
}

// newCrawler returns a crawler; its chk and prog are set before start,
// since the Checker asks the crawler for robots.txt (sitemapsOf).
func newCrawler(transport http.RoundTripper, concurrency int, timeout time.Duration) *crawler {
	return &crawler{
		client:    &http.Client{Transport: transport},
		transport: transport,
		timeout:   timeout,
		slots:     make(chan struct{}, concurrency),
		files:     make(chan struct{}, concurrency),
		visited:   map[string]bool{},
	}
}

// isURL tells an http(s) URL argument from a file name.
func isURL(arg string) bool {
	u, err := url.Parse(arg)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// start checks one argument: a site, a robots.txt, a sitemap URL, or a file.
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

// spawn runs fn on its own goroutine, once per name.
func (c *crawler) spawn(name string, fn func()) {
	c.mu.Lock()
	seen := c.visited[name]
	c.visited[name] = true
	c.mu.Unlock()
	if seen {
		return
	}
	c.prog.queued()
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer c.prog.done(name)
		fn()
	}()
}

// wait returns once every file found has been checked.
func (c *crawler) wait() {
	c.wg.Wait()
	c.prog.end()
}

// robots follows the Sitemap: lines of a robots.txt.
func (c *crawler) robots(loc string) {
	resp, body, err := c.get(loc, nil)
	if err != nil {
		c.chk.Add(check.NewFinding("fetch", loc, err.Error()))
		return
	}
	if resp.StatusCode != http.StatusOK {
		c.chk.Add(check.NewFinding("http-status", loc, "GET answered "+resp.Status))
		return
	}
	abs, bad := sitemapLines(body)
	if u, err := url.Parse(loc); err == nil {
		c.robotsTxt.lines(origin(u), func() []string { return abs })
	}
	for _, val := range bad {
		c.chk.Add(check.NewFinding("robots", loc, fmt.Sprintf("Sitemap: %q is not an absolute URL", val)))
	}
	for _, val := range abs {
		c.spawn(val, func() { c.remote(val, false) })
	}
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
		resp, body, err := c.get(origin+"/robots.txt", nil)
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
	kind, children := c.checkRemote(loc)
	if kind != check.Index {
		return
	}
	if child {
		c.chk.Add(check.NewFinding("index-nested", loc, "an index listed this index; its files are not followed"))
		return
	}
	for _, l := range children {
		c.spawn(l, func() { c.remote(l, true) })
	}
	c.probe(loc, children)
}

// checkRemote fetches and checks one file, holding one of the files
// slots from the fetch to the end of the check, so that at most
// -concurrency files are held and parsed at once, however many an index
// lists.
func (c *crawler) checkRemote(loc string) (check.Kind, []string) {
	c.files <- struct{}{}
	defer func() { <-c.files }()
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
	c.files <- struct{}{}
	f, err := os.Open(name)
	if err != nil {
		<-c.files
		c.chk.Add(check.NewFinding("fetch", name, err.Error()))
		return
	}
	kind, children := c.chk.Read(name, loc, io.LimitReader(f, sitemap.MaxBytes+1)) // read once, as it goes
	f.Close()
	<-c.files
	if kind != check.Index {
		return
	}
	if child {
		c.chk.Add(check.NewFinding("index-nested", name, "an index listed this index; its files are not followed"))
		return
	}
	for _, l := range children {
		u, err := url.Parse(l)
		if err != nil {
			continue
		}
		p := filepath.Join(filepath.Dir(name), path.Base(u.Path))
		if _, err := os.Stat(p); err == nil {
			c.spawn(p, func() { c.local(p, l, true) })
		}
	}
}
