package crawllog

import (
	"slices"
	"strings"
	"testing"

	"github.com/freshmap/sitemap/internal/testkit"
)

func TestCrawlerOfAI(t *testing.T) {
	for _, c := range testkit.AIClients {
		if got := crawlerNames[crawlerOf(c.UA)]; got != c.Family {
			t.Errorf("crawlerOf(%.50q) = %s, want %s", c.UA, got, c.Family)
		}
	}
	for ua, want := range map[string]string{
		"Meta-ExternalAgent/1.1":                "Meta-ExternalAgent",
		"ChatGPT-User":                          "ChatGPT-User",
		"chatgpt-user/1.0":                      "other", // not as OpenAI spells it
		"Mozilla/5.0 (compatible; Claude-User)": "Claude-User",
		"Google-Agent":                          "Google-Agent",
		"Google-Extended":                       "other", // a robots.txt token, no crawler
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0":           "other",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1": "other",
		"Mozilla/5.0 (compatible; GPTBot-Like/1.0)": "GPTBot", // a word that starts with the token, as for Googlebot-Image
		"ccbotnet":         "CCBot",
		"XCCBot":           "other",
		"Claude-SearchBot": "Claude-SearchBot",
		"ClaudeBot":        "ClaudeBot",
		"Perplexity-User":  "Perplexity-User",
		"PerplexityBot":    "PerplexityBot",
	} {
		if got := crawlerNames[crawlerOf(ua)]; got != want {
			t.Errorf("crawlerOf(%.50q) = %s, want %s", ua, got, want)
		}
	}
}

func TestAIAgents(t *testing.T) {
	for p, want := range map[Purpose][]string{
		Training:      {"GPTBot", "ClaudeBot", "CCBot", "Bytespider", "Meta-ExternalAgent", "Amazonbot", "Google-Extended", "Applebot-Extended"},
		Search:        {"OAI-SearchBot", "Claude-SearchBot", "PerplexityBot"},
		UserTriggered: {"ChatGPT-User", "Claude-User", "Perplexity-User", "Google-Agent", "Meta-ExternalFetcher"},
	} {
		if got := AIAgents(p); !slices.Equal(got, want) {
			t.Errorf("AIAgents(%s) = %v, want %v", p, got, want)
		}
	}
	for f, fam := range families {
		for _, tok := range fam.tokens {
			if tok != strings.ToLower(tok) || crawlerOf(fam.name) != crawler(f) {
				t.Errorf("%s: token %q, or its name claims another family", fam.name, tok)
			}
		}
	}
}
