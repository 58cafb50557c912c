package sitemap

import (
	"context"
	"io"
	"net/http"
	"time"

	"github.com/freshmap/sitemap/internal/respond"
	"github.com/freshmap/sitemap/internal/robotstxt"
)

// /robots.txt: internal/robotstxt's Server merges our lines into the
// application's robots.txt (or serves a minimal one) and says how; the
// response with a body is ours (serveCached), and the lines are made
// here: every index file and feed, and the policy's groups.

// RobotsPolicy is what robots.txt asks of AI crawlers, by purpose
// (Config.Robots). Its lines are merged into the application's
// robots.txt (or the minimal one served when it has none) so that the
// answers for every agent the application's file names stay as they
// are: a purpose's group names only the agents the file does not name
// already, the Content-Signal line is written only if the file has none,
// and each line is written once. These lines ask; they enforce nothing:
// a crawler that ignores robots.txt (user-triggered fetchers may, by
// their vendors' own account) fetches all the same. To refuse, answer
// with a 403 (Crawlers.VerifiedOnly does that for the sitemap files).
// The zero value adds nothing.
type RobotsPolicy struct {
	// Training is the rule for AI training crawlers: GPTBot, ClaudeBot,
	// CCBot, Bytespider, Meta-ExternalAgent, Amazonbot, and the tokens
	// Google-Extended and Applebot-Extended (no crawlers: they tell Google
	// and Apple whether what their search crawlers fetch may train their
	// models).
	Training RobotsRule
	// Search is the rule for AI search crawlers: OAI-SearchBot,
	// Claude-SearchBot, PerplexityBot. The search engines' own crawlers
	// (Googlebot, Bingbot, …) are never named.
	Search RobotsRule
	// UserTriggered is the rule for the fetchers that get a page because
	// a person asked an assistant: ChatGPT-User, Claude-User,
	// Perplexity-User, Google-Agent, Meta-ExternalFetcher.
	UserTriggered RobotsRule
	// ContentSignal is the value of a Content-Signal line written in a
	// group of "User-agent: *", such as "search=yes, ai-train=no": a
	// comma-separated list of name=yes or name=no, the names being
	// lower-case letters and '-' (the signals defined are search,
	// ai-input and ai-train). "" writes none.
	ContentSignal string
}

// RobotsRule is a RobotsPolicy's rule for one purpose.
type RobotsRule uint8

const (
	// RobotsUnset writes nothing: the purpose's crawlers follow the
	// application's rules (its "User-agent: *" group, if any).
	RobotsUnset RobotsRule = iota
	// RobotsAllow writes a group "Allow: /" for the purpose's crawlers:
	// they may fetch everything, whatever the "*" group says.
	RobotsAllow
	// RobotsDisallow writes a group "Disallow: /": they are asked to
	// fetch nothing.
	RobotsDisallow
)

// newRobotsPolicy checks p and names each purpose's agents, for the
// merge; nil if it adds nothing (internal/robotstxt, whose rules are
// RobotsRule's values).
func newRobotsPolicy(p RobotsPolicy) (*robotstxt.Policy, error) {
	return robotstxt.AIPolicy(uint8(p.Training), uint8(p.Search), uint8(p.UserTriggered), p.ContentSignal)
}

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
	respond.Cached(w, r, respond.Conditional(r.Header), modtime, lastMod, content, size, length)
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
