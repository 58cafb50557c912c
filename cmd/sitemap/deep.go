package main

import (
	"bytes"
	"context"
	"io"
	"maps"
	"net/http"
	"net/url"
	"strconv"
	"sync"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/check"
	"github.com/freshmap/sitemap/internal/pagecheck"
	"github.com/freshmap/sitemap/parse"
)

// deepUserAgent is the User-Agent of -deep's page requests.
const deepUserAgent = "Mozilla/5.0 (compatible; freshmap-sitemap-check/1; +https://github.com/freshmap/sitemap)"

// deep is -deep: the pages a sitemap file lists, sampled and fetched
// (redirects not followed, the first 256 KiB of each body read) and
// checked with the self-audit's rules (package pagecheck): a 200, no
// redirect, no noindex, the canonical link, robots.txt.
type deep struct {
	perFile int          // URLs sampled of each file
	client  *http.Client // the crawler's transport, redirects not followed

	mu     sync.Mutex
	left   int                         // URLs still allowed in the whole run
	robots map[string]*pagecheck.Rules // by origin: Googlebot's rules
	pages  map[string]int              // pages fetched, by status ("200"), "error" or "refused"
}

// fetched returns the pages fetched, by status code, or "error" (a
// request that failed) or "refused" (an internal address, not asked).
func (d *deep) fetched() map[string]int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return maps.Clone(d.pages)
}

func (d *deep) counted(key string) {
	d.mu.Lock()
	d.pages[key]++
	d.mu.Unlock()
}

func newDeep(transport http.RoundTripper, perFile, total int) *deep {
	return &deep{perFile: perFile, left: total, robots: map[string]*pagecheck.Rules{}, pages: map[string]int{},
		client: &http.Client{Transport: transport, CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		}}}
}

// pages checks a sample of the pages listed in the sitemap file at file
// (data, plain or gzip).
func (c *crawler) pages(file string, data []byte) {
	var locs []string
	for u, err := range parse.URLs(bytes.NewReader(data), parse.Limits{}) {
		if err == nil {
			locs = append(locs, u.Loc)
		}
	}
	for _, loc := range c.deep.sample(locs) {
		for _, f := range c.page(loc) {
			fd := check.NewFinding("page-"+f.Kind, file, f.Detail)
			fd.URL = loc
			c.chk.Add(fd)
		}
	}
}

// sample picks perFile of locs at random, in their order, within what is
// left of the run's bound.
func (d *deep) sample(locs []string) []string {
	d.mu.Lock()
	n := min(len(locs), d.perFile, d.left)
	d.left -= n
	d.mu.Unlock()
	return pagecheck.Sample(locs, n)
}

// page fetches loc and returns what is wrong with it.
func (c *crawler) page(loc string) []pagecheck.Finding {
	u, err := url.Parse(loc)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return []pagecheck.Finding{{Kind: pagecheck.Error, Detail: "not an http(s) URL"}}
	}
	var out []pagecheck.Finding
	if ok, by := c.rulesOf(origin(u)).Allowed(u.RequestURI()); !ok {
		out = append(out, pagecheck.Finding{Kind: pagecheck.Robots, Detail: by})
	}
	resp, body, err := c.deepGet(loc, pagecheck.HeadBytes)
	if err != nil {
		key := "error"
		if refused(err) {
			key = "refused" // an internal address: no request was sent
		}
		c.deep.counted(key)
		return append(out, pagecheck.Finding{Kind: pagecheck.Error, Detail: err.Error()})
	}
	c.deep.counted(strconv.Itoa(resp.StatusCode))
	fs := pagecheck.Check(loc, resp.StatusCode, resp.Header, body)
	for i, f := range fs {
		if f.Kind == pagecheck.Redirect && c.guard.hides(u, resp.Header.Get("Location")) {
			fs[i].Detail = strconv.Itoa(resp.StatusCode) + " to an internal address (not shown)"
		}
	}
	return append(out, fs...)
}

// rulesOf returns Googlebot's rules in an origin's robots.txt, fetched
// once; one that does not answer 200 allows everything.
func (c *crawler) rulesOf(origin string) *pagecheck.Rules {
	d := c.deep
	d.mu.Lock()
	rs, ok := d.robots[origin]
	d.mu.Unlock()
	if ok {
		return rs
	}
	rs = &pagecheck.Rules{}
	if resp, body, err := c.deepGet(origin+"/robots.txt", pagecheck.MaxRobotsBytes); err == nil && resp.StatusCode == http.StatusOK {
		rs = pagecheck.ParseRobots(body, "googlebot")
	}
	d.mu.Lock()
	d.robots[origin] = rs
	d.mu.Unlock()
	return rs
}

// deepGet GETs loc within the timeout, holding a fetch slot, without
// following a redirect, and reads at most limit bytes of the body (the
// transport undoes a gzip Content-Encoding).
func (c *crawler) deepGet(loc string, limit int) (*http.Response, []byte, error) {
	c.slots <- struct{}{}
	defer func() { <-c.slots }()
	ctx, cancel := context.WithTimeout(c.ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, loc, nil)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("User-Agent", deepUserAgent)
	req.Header.Set(sitemap.AuditHeader, "1")
	req.Header.Set("Accept", "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8")
	resp, err := c.deep.client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(limit)))
	return resp, body, err
}
