package sitemap

import (
	"fmt"

	"github.com/freshmap/sitemap/internal/crawllog"
	"github.com/freshmap/sitemap/internal/robotstxt"
)

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
// merge (internal/robotstxt); nil if it adds nothing.
func newRobotsPolicy(p RobotsPolicy) (*robotstxt.Policy, error) {
	var purposes []robotstxt.Purpose
	for _, r := range []struct {
		what string
		p    crawllog.Purpose
		rule RobotsRule
	}{{"Training", crawllog.Training, p.Training}, {"Search", crawllog.Search, p.Search}, {"UserTriggered", crawllog.UserTriggered, p.UserTriggered}} {
		switch r.rule {
		case RobotsUnset:
		case RobotsAllow, RobotsDisallow:
			purposes = append(purposes, robotstxt.Purpose{Name: r.p.String(), Agents: crawllog.AIAgents(r.p), Allow: r.rule == RobotsAllow})
		default:
			return nil, fmt.Errorf("%s %d is not a RobotsRule", "Robots."+r.what, r.rule)
		}
	}
	out, err := robotstxt.NewPolicy(purposes, p.ContentSignal)
	if err != nil {
		return nil, fmt.Errorf("Robots.ContentSignal %q: %w", p.ContentSignal, err)
	}
	return out, nil
}
