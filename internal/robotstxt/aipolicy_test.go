package robotstxt

import (
	"strings"
	"testing"
)

// AIPolicy: nothing asked is no policy; a rule that is none of the three
// and a malformed signal are errors naming the field; a disallowed and an
// allowed purpose each get a group of their agents.
func TestAIPolicy(t *testing.T) {
	if p, err := AIPolicy(RuleUnset, RuleUnset, RuleUnset, ""); p != nil || err != nil {
		t.Errorf("nothing asked: %v, %v", p, err)
	}
	if _, err := AIPolicy(RuleUnset, 3, RuleUnset, ""); err == nil || !strings.Contains(err.Error(), "Robots.Search 3 is not a RobotsRule") {
		t.Errorf("a rule of 3: %v", err)
	}
	if _, err := AIPolicy(RuleUnset, RuleUnset, RuleUnset, "ai-train=maybe"); err == nil || !strings.Contains(err.Error(), "Robots.ContentSignal") {
		t.Errorf("a malformed signal: %v", err)
	}
	p, err := AIPolicy(RuleDisallow, RuleAllow, RuleUnset, "search=yes")
	if err != nil {
		t.Fatal(err)
	}
	body, _, _ := New([]string{"Sitemap: https://example.com/sitemap_index.xml"}, p).Minimal()
	for _, want := range []string{"User-agent: GPTBot\n", "Disallow: /\n", "User-agent: OAI-SearchBot\n", "Allow: /\n", "Content-Signal: search=yes\n"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("robots.txt lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(string(body), "ChatGPT-User") {
		t.Errorf("an unset purpose's agents are named:\n%s", body)
	}
}
