package testkit

import "path/filepath"

// The crawlers' User-Agents and addresses that the crawl log's tests
// (internal/crawllog and the root package's) share.

// User-Agents as Google, Bing and Chrome send them.
const (
	GooglebotUA = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
	BingbotUA   = "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)"
	ChromeUA    = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
)

// AIClients are a User-Agent of each AI family, in the form its vendor
// documents (written for these tests), an address in the ranges of
// testdata/crawlers ("" for a vendor that publishes none), and an
// address outside every range there.
var AIClients = []struct {
	Family, Purpose string
	UA, Addr        string
}{
	{"GPTBot", "training", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)", "192.0.2.1:443"},
	{"ClaudeBot", "training", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)", ""},
	{"CCBot", "training", "CCBot/2.0 (https://commoncrawl.org/faq/)", ""},
	{"Bytespider", "training", "Mozilla/5.0 (Linux; Android 5.0) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; Bytespider; spider-feedback@bytedance.com)", ""},
	{"Meta-ExternalAgent", "training", "meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)", ""},
	{"Amazonbot", "training", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Amazonbot/0.1; +https://developer.amazon.com/support/amazonbot) Chrome/119.0.6045.214 Safari/537.36", ""},
	{"OAI-SearchBot", "search", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot)", "192.0.2.17:443"},
	{"Claude-SearchBot", "search", "Mozilla/5.0 (compatible; Claude-SearchBot/1.0; +https://www.anthropic.com)", ""},
	{"PerplexityBot", "search", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)", "203.0.113.2:443"},
	{"ChatGPT-User", "user-triggered", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot", "[2001:db8:a::7]:443"},
	{"Claude-User", "user-triggered", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)", ""},
	{"Perplexity-User", "user-triggered", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)", "203.0.113.20:443"},
	{"Google-Agent", "user-triggered", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Google-Agent; +https://developers.google.com/crawling/docs/crawlers-fetchers/google-agent) Chrome/140.0.0.0 Safari/537.36", "198.51.100.3:443"},
	{"Meta-ExternalFetcher", "user-triggered", "meta-externalfetcher/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)", ""},
	{"Googlebot", "search", GooglebotUA, "[2001:db8:4860::1]:443"},
}

// SpoofAddr is in none of the ranges of the crawler files (CrawlerFiles).
const SpoofAddr = "203.0.113.200:443"

// CrawlerFiles are the crawler range files in dir (the root package's
// testdata/crawlers), by family.
func CrawlerFiles(dir string) map[string][]string {
	return map[string][]string{
		"Googlebot":       {filepath.Join(dir, "googlebot.json")},
		"Google-Agent":    {filepath.Join(dir, "user-triggered-agents.json")},
		"GPTBot":          {filepath.Join(dir, "gptbot.json")},
		"OAI-SearchBot":   {filepath.Join(dir, "searchbot.json")},
		"ChatGPT-User":    {filepath.Join(dir, "chatgpt-user.json")},
		"PerplexityBot":   {filepath.Join(dir, "perplexitybot.json")},
		"Perplexity-User": {filepath.Join(dir, "perplexity-user.json")},
	}
}
