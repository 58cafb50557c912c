package crawllog

import "slices"

// The crawler families the crawl log tells apart, and what each is for.
// Since 2025 the AI vendors split their crawlers by purpose: training
// crawlers gather text for models, search crawlers index for an AI
// search engine, and user-triggered fetchers get a page because a
// person asked an assistant to (they may not read robots.txt at all).
// A family is one vendor's one purpose, named by its robots.txt product
// token, which is also how its User-Agent names it.

// crawler is a crawler family; crawlerOther is every other client.
type crawler uint8

const (
	crawlerGoogle crawler = iota
	crawlerBing
	crawlerYandex
	crawlerApple
	crawlerDuckDuck
	crawlerBaidu
	crawlerGPTBot
	crawlerClaudeBot
	crawlerCCBot
	crawlerBytespider
	crawlerMetaAgent
	crawlerAmazonbot
	crawlerOAISearch
	crawlerClaudeSearch
	crawlerPerplexity
	crawlerChatGPTUser
	crawlerClaudeUser
	crawlerPerplexityUser
	crawlerGoogleAgent
	crawlerMetaFetcher
	crawlerOther
	numCrawlers
)

// Purpose is what a family fetches for.
type Purpose uint8

// The purposes; a client of no family has purposeNone.
const (
	purposeNone   Purpose = iota // every other client
	Search                       // a search engine's index, an AI one's or not
	Training                     // training AI models
	UserTriggered                // a person asked an assistant for the page
	NumPurposes
)

// purposeNames are the purposes as Fetch.Purpose gives them.
var purposeNames = [NumPurposes]string{"", "search", "training", "user-triggered"}

// String returns the purpose as Fetch.Purpose gives it: "search",
// "training", "user-triggered"; "" for none.
func (p Purpose) String() string { return purposeNames[p] }

// family is what the crawl log and the robots.txt policy know of a
// crawler family.
type family struct {
	name    string   // its product token, as written in robots.txt and Options.Ranges
	tokens  []string // the lower-case User-Agent tokens that claim it (crawlerOf)
	purpose Purpose
	ai      bool // an AI vendor's: a robots.txt policy names it (AIAgents)
}

// families are the crawler families, by crawler. The ranges each vendor
// publishes (read with ReadCrawlerRanges; none is fetched here): Google
// googlebot.json and, for Google-Agent, its user-triggered fetchers'
// file; Bing bingbot.json; OpenAI gptbot.json, searchbot.json and
// chatgpt-user.json; Perplexity perplexitybot.json and
// perplexity-user.json; Apple and DuckDuckGo lists of their own.
// Anthropic, ByteDance and Meta publish none, so without ranges of the
// owner's their claims stay unverifiable.
var families = [crawlerOther]family{
	crawlerGoogle:   {name: "Googlebot", tokens: []string{"googlebot"}, purpose: Search},
	crawlerBing:     {name: "Bingbot", tokens: []string{"bingbot", "msnbot", "bingpreview"}, purpose: Search},
	crawlerYandex:   {name: "YandexBot", tokens: []string{"yandex"}, purpose: Search},
	crawlerApple:    {name: "Applebot", tokens: []string{"applebot"}, purpose: Search},
	crawlerDuckDuck: {name: "DuckDuckBot", tokens: []string{"duckduckbot", "duckassistbot"}, purpose: Search},
	crawlerBaidu:    {name: "Baiduspider", tokens: []string{"baiduspider"}, purpose: Search},

	crawlerGPTBot:     {name: "GPTBot", tokens: []string{"gptbot"}, purpose: Training, ai: true},
	crawlerClaudeBot:  {name: "ClaudeBot", tokens: []string{"claudebot"}, purpose: Training, ai: true},
	crawlerCCBot:      {name: "CCBot", tokens: []string{"ccbot"}, purpose: Training, ai: true},
	crawlerBytespider: {name: "Bytespider", tokens: []string{"bytespider"}, purpose: Training, ai: true},
	crawlerMetaAgent:  {name: "Meta-ExternalAgent", tokens: []string{"meta-externalagent"}, purpose: Training, ai: true},
	crawlerAmazonbot:  {name: "Amazonbot", tokens: []string{"amazonbot"}, purpose: Training, ai: true},

	crawlerOAISearch:    {name: "OAI-SearchBot", tokens: []string{"oai-searchbot"}, purpose: Search, ai: true},
	crawlerClaudeSearch: {name: "Claude-SearchBot", tokens: []string{"claude-searchbot"}, purpose: Search, ai: true},
	crawlerPerplexity:   {name: "PerplexityBot", tokens: []string{"perplexitybot"}, purpose: Search, ai: true},

	crawlerChatGPTUser:    {name: "ChatGPT-User", tokens: []string{"chatgpt-user"}, purpose: UserTriggered, ai: true},
	crawlerClaudeUser:     {name: "Claude-User", tokens: []string{"claude-user"}, purpose: UserTriggered, ai: true},
	crawlerPerplexityUser: {name: "Perplexity-User", tokens: []string{"perplexity-user"}, purpose: UserTriggered, ai: true},
	crawlerGoogleAgent:    {name: "Google-Agent", tokens: []string{"google-agent"}, purpose: UserTriggered, ai: true},
	crawlerMetaFetcher:    {name: "Meta-ExternalFetcher", tokens: []string{"meta-externalfetcher"}, purpose: UserTriggered, ai: true},
}

// crawlerNames are the families' names, as Options.Ranges keys them and
// Fetch.Crawler gives them, and "other".
var crawlerNames = func() (names [numCrawlers]string) {
	for f := range families {
		names[f] = families[f].name
	}
	names[crawlerOther] = "other"
	return names
}()

// Names returns the families' names, as Options.Ranges keys them and
// Fetch.Crawler gives them ("other" not among them).
func Names() []string { return slices.Clone(crawlerNames[:crawlerOther]) }

// trainingTokens are robots.txt tokens of no crawler: by them Google and
// Apple are told whether what their search crawlers fetch may train
// their models. A policy for training names them too (AIAgents).
var trainingTokens = []string{"Google-Extended", "Applebot-Extended"}

// AIAgents returns the robots.txt tokens of the AI families of purpose p,
// in the order of families (and, for training, trainingTokens): the
// agents a robots.txt policy for p names.
func AIAgents(p Purpose) []string {
	var out []string
	for _, f := range families {
		if f.ai && f.purpose == p {
			out = append(out, f.name)
		}
	}
	if p == Training {
		out = append(out, trainingTokens...)
	}
	return out
}
