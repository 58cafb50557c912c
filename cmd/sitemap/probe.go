package main

import (
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/freshmap/sitemap/check"
)

// probe asks for sitemap paths that name no file, beside an index: the
// first file it lists with its page number made one past any real one, and
// a made-up name in the index's directory. A crawler that guesses a page
// past the last, or follows an old index, must get a 404 (or another 4xx),
// not a server error: a 5xx tells it the site is failing, and it slows down.
func (c *crawler) probe(index string, children []string) {
	for _, p := range probePaths(index, children) {
		resp, _, err := c.get(p, nil)
		switch {
		case err != nil:
			c.chk.Add(check.NewFinding("http-unknown", p, fmt.Sprintf("GET of a sitemap path that names no file failed: %v", err)))
		case resp.StatusCode >= 500:
			c.chk.Add(check.NewFinding("http-unknown", p, fmt.Sprintf("GET of a sitemap path that names no file answered %s; want 404 Not Found", resp.Status)))
		}
	}
}

// probePaths returns the URLs probe asks for.
func probePaths(index string, children []string) []string {
	u, err := url.Parse(index)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" {
		return nil
	}
	dir := u.ResolveReference(&url.URL{Path: "./"})
	out := []string{dir.ResolveReference(&url.URL{Path: "sitemap-no-such-section-1.xml.gz"}).String()}
	if len(children) > 0 {
		if c, err := url.Parse(children[0]); err == nil && c.Host == u.Host {
			name := path.Base(c.Path)
			if i := strings.LastIndexAny(name, "0123456789"); i >= 0 {
				j := i
				for j > 0 && name[j-1] >= '0' && name[j-1] <= '9' {
					j--
				}
				c.Path = path.Join(path.Dir(c.Path), name[:j]+"999999999"+name[i+1:])
				c.RawPath, c.RawQuery, c.Fragment = "", "", ""
				out = append(out, c.String())
			}
		}
	}
	return out
}
