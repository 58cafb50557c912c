package sitemap

import (
	"context"
	"io"
	"net/http"
	"time"

	"github.com/freshmap/sitemap/internal/robotstxt"
)

// /robots.txt: internal/robotstxt's Server merges our lines into the
// application's robots.txt (or serves a minimal one) and says how; the
// response with a body is ours (serveCached), and the lines are made
// here: every index file and feed, and the policy's groups.

// newRobots is the robots.txt server of lines, full robots.txt lines
// such as "Sitemap: https://example.com/sitemap_index.xml" (one or more).
func newRobots(lines []string) *robotstxt.Server { return newPolicyRobots(lines, nil) }

// newPolicyRobots is newRobots with the policy p's groups (nil for none),
// merged as into an application's file.
func newPolicyRobots(lines []string, p *robotstxt.Policy) *robotstxt.Server {
	return robotstxt.NewServer(lines, p, respondRobots)
}

// respondRobots answers with a robots.txt body by serveCached.
func respondRobots(w http.ResponseWriter, r *http.Request, modtime time.Time, lastMod []string, content io.ReadSeeker, size int64, length []string) {
	serveCached(w, r, conditional(r.Header), modtime, lastMod, content, size, length)
}

// robotsSet is the robots.txt merger for an index of n files.
type robotsSet struct {
	n  int
	rb *robotstxt.Server
}

// robotsNow returns the robots.txt merger that names every index file
// (sitemap_index.xml, and sitemap_index-2.xml and on once the index has
// more than 50,000 pages), then every Atom feed. The count comes from the cached index, fresh or
// not; with none cached, the index is built (one build, shared, bounded
// like any other), and if that fails, the first file alone is named.
func (s *Sitemap) robotsNow(ctx context.Context) *robotstxt.Server {
	n := 1
	if idx, err := s.docs.peekOrGet(ctx, indexKey); err == nil {
		n = idx.files()
	}
	if cur := s.robots.Load(); cur != nil && cur.n == n {
		return cur.rb
	}
	lines := make([]string, n, n+len(s.site.sections))
	for i := range lines {
		lines[i] = "Sitemap: " + s.site.base.url + s.site.indexFileName(i+1)
	}
	for _, sec := range s.site.sections { // the Atom feeds (feed.go), which engines read as sitemaps
		if sec.feed != nil {
			lines = append(lines, "Sitemap: "+sec.feed.loc)
		}
	}
	set := &robotsSet{n: n, rb: newPolicyRobots(lines, s.site.robots)}
	s.robots.Store(set)
	return set.rb
}
