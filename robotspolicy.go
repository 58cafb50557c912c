package sitemap

import (
	"fmt"
	"strings"
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

// robotsPolicy is a RobotsPolicy checked, as the merge writes it.
type robotsPolicy struct {
	groups []policyGroup
	signal string // the Content-Signal line, "" for none
}

// policyGroup is a purpose's group: its agents and its one rule line.
type policyGroup struct {
	comment string
	agents  []string
	rule    string
}

// newRobotsPolicy checks p; nil if it adds nothing.
func newRobotsPolicy(p RobotsPolicy) (*robotsPolicy, error) {
	out := &robotsPolicy{}
	var allow, disallow policyGroup // one group for each rule, so that each line is written once
	var allowed, disallowed []string
	for _, r := range []struct {
		what string
		p    purpose
		rule RobotsRule
	}{{"Training", purposeTraining, p.Training}, {"Search", purposeSearch, p.Search}, {"UserTriggered", purposeUserTriggered, p.UserTriggered}} {
		switch r.rule {
		case RobotsUnset:
		case RobotsAllow:
			allow.agents = append(allow.agents, aiAgents(r.p)...)
			allowed = append(allowed, r.p.String())
		case RobotsDisallow:
			disallow.agents = append(disallow.agents, aiAgents(r.p)...)
			disallowed = append(disallowed, r.p.String())
		default:
			return nil, fmt.Errorf("%s %d is not a RobotsRule", "Robots."+r.what, r.rule)
		}
	}
	if disallow.agents != nil {
		disallow.rule = "Disallow: /"
		disallow.comment = "# AI " + strings.Join(disallowed, " and ") + " crawlers are asked to fetch nothing (a request, not enforced)"
		out.groups = append(out.groups, disallow)
	}
	if allow.agents != nil {
		allow.rule = "Allow: /"
		allow.comment = "# AI " + strings.Join(allowed, " and ") + " crawlers may fetch everything (a request, not enforced)"
		out.groups = append(out.groups, allow)
	}
	if p.ContentSignal != "" {
		if err := checkContentSignal(p.ContentSignal); err != nil {
			return nil, err
		}
		out.signal = "Content-Signal: " + p.ContentSignal
	}
	if len(out.groups) == 0 && out.signal == "" {
		return nil, nil
	}
	return out, nil
}

// checkContentSignal checks a Content-Signal value: name=yes or name=no,
// comma-separated, each name of lower-case letters and '-', once.
func checkContentSignal(v string) error {
	seen := map[string]bool{}
	for s := range strings.SplitSeq(v, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(s), "=")
		if !ok || name == "" || strings.Trim(name, "abcdefghijklmnopqrstuvwxyz-") != "" || val != "yes" && val != "no" {
			return fmt.Errorf("Robots.ContentSignal %q: %q is not name=yes or name=no", v, strings.TrimSpace(s))
		}
		if seen[name] {
			return fmt.Errorf("Robots.ContentSignal %q: %s twice", v, name)
		}
		seen[name] = true
	}
	return nil
}
