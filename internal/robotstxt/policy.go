package robotstxt

import (
	"fmt"
	"strings"

	"github.com/freshmap/sitemap/internal/crawllog"
)

// Policy is what the merge writes for AI crawlers: a group per rule
// naming the agents asked to follow it, and a Content-Signal line. The
// merge names only the agents the application's file does not name
// already, writes the Content-Signal line only if the file has none, and
// each line once (merge.go). These lines ask; they enforce nothing.
type Policy struct {
	groups []group
	signal string // the Content-Signal line, "" for none
}

// group is a rule's group: its agents and its one rule line, after a
// comment that says what it asks.
type group struct {
	comment string
	agents  []string
	rule    string
}

// Purpose is one purpose's crawlers and the rule asked of them.
type Purpose struct {
	Name   string   // as a person reads it: "training", "search", "user-triggered"
	Agents []string // the product tokens a user-agent line names them by
	Allow  bool     // "Allow: /" if true, else "Disallow: /"
}

// NewPolicy makes the policy of purposes and of the Content-Signal value
// signal ("" writes none), or nil if it adds nothing. The purposes with
// one rule share one group, so that each line is written once: the
// disallowed first, then the allowed. signal must be a comma-separated
// list of name=yes or name=no, each name of lower-case letters and '-',
// once (CheckContentSignal).
func NewPolicy(purposes []Purpose, signal string) (*Policy, error) {
	out := &Policy{}
	var allow, disallow group
	var allowed, disallowed []string
	for _, p := range purposes {
		if p.Allow {
			allow.agents = append(allow.agents, p.Agents...)
			allowed = append(allowed, p.Name)
		} else {
			disallow.agents = append(disallow.agents, p.Agents...)
			disallowed = append(disallowed, p.Name)
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
	if signal != "" {
		if err := CheckContentSignal(signal); err != nil {
			return nil, err
		}
		out.signal = "Content-Signal: " + signal
	}
	if len(out.groups) == 0 && out.signal == "" {
		return nil, nil
	}
	return out, nil
}

// CheckContentSignal checks a Content-Signal value: name=yes or name=no,
// comma-separated, each name of lower-case letters and '-', once. Its
// error names the element at fault, not the value.
func CheckContentSignal(v string) error {
	seen := map[string]bool{}
	for s := range strings.SplitSeq(v, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(s), "=")
		if !ok || name == "" || strings.Trim(name, "abcdefghijklmnopqrstuvwxyz-") != "" || val != "yes" && val != "no" {
			return fmt.Errorf("%q is not name=yes or name=no", strings.TrimSpace(s))
		}
		if seen[name] {
			return fmt.Errorf("%s twice", name)
		}
		seen[name] = true
	}
	return nil
}

// The rules AIPolicy takes for a purpose, in the order of the sitemap's
// RobotsRule constants.
const (
	RuleUnset    = iota // nothing written: the application's rules apply
	RuleAllow           // a group "Allow: /"
	RuleDisallow        // a group "Disallow: /"
)

// AIPolicy makes the policy of a rule (RuleUnset, RuleAllow or
// RuleDisallow) for each purpose of AI crawlers, whose agents are
// internal/crawllog's, and of the Content-Signal value signal; nil if it
// adds nothing. Its errors name the fields of the sitemap's
// Config.Robots, and do not say "sitemap:".
func AIPolicy(training, search, userTriggered uint8, signal string) (*Policy, error) {
	var purposes []Purpose
	for _, r := range []struct {
		what string
		p    crawllog.Purpose
		rule uint8
	}{{"Training", crawllog.Training, training}, {"Search", crawllog.Search, search}, {"UserTriggered", crawllog.UserTriggered, userTriggered}} {
		switch r.rule {
		case RuleUnset:
		case RuleAllow, RuleDisallow:
			purposes = append(purposes, Purpose{Name: r.p.String(), Agents: crawllog.AIAgents(r.p), Allow: r.rule == RuleAllow})
		default:
			return nil, fmt.Errorf("%s %d is not a RobotsRule", "Robots."+r.what, r.rule)
		}
	}
	out, err := NewPolicy(purposes, signal)
	if err != nil {
		return nil, fmt.Errorf("Robots.ContentSignal %q: %w", signal, err)
	}
	return out, nil
}
