package sitemap

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

// purpose is what a family fetches for.
type purpose uint8

const (
	purposeNone          purpose = iota // every other client
	purposeSearch                       // a search engine's index, an AI one's or not
	purposeTraining                     // training AI models
	purposeUserTriggered                // a person asked an assistant for the page
	numPurposes
)

// purposeNames are the purposes as CrawlFetch.Purpose gives them.
var purposeNames = [numPurposes]string{"", "search", "training", "user-triggered"}

// family is what the crawl log and the robots.txt policy know of a
// crawler family.
type family struct {
	name    string   // its product token, as written in robots.txt and Crawlers.Ranges
	tokens  []string // the lower-case User-Agent tokens that claim it (crawlerOf)
	purpose purpose
	ai      bool // an AI vendor's: RobotsPolicy names it
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
	crawlerGoogle:   {name: "Googlebot", tokens: []string{"googlebot"}, purpose: purposeSearch},
	crawlerBing:     {name: "Bingbot", tokens: []string{"bingbot", "msnbot", "bingpreview"}, purpose: purposeSearch},
	crawlerYandex:   {name: "YandexBot", tokens: []string{"yandex"}, purpose: purposeSearch},
	crawlerApple:    {name: "Applebot", tokens: []string{"applebot"}, purpose: purposeSearch},
	crawlerDuckDuck: {name: "DuckDuckBot", tokens: []string{"duckduckbot", "duckassistbot"}, purpose: purposeSearch},
	crawlerBaidu:    {name: "Baiduspider", tokens: []string{"baiduspider"}, purpose: purposeSearch},

	crawlerGPTBot:     {name: "GPTBot", tokens: []string{"gptbot"}, purpose: purposeTraining, ai: true},
	crawlerClaudeBot:  {name: "ClaudeBot", tokens: []string{"claudebot"}, purpose: purposeTraining, ai: true},
	crawlerCCBot:      {name: "CCBot", tokens: []string{"ccbot"}, purpose: purposeTraining, ai: true},
	crawlerBytespider: {name: "Bytespider", tokens: []string{"bytespider"}, purpose: purposeTraining, ai: true},
	crawlerMetaAgent:  {name: "Meta-ExternalAgent", tokens: []string{"meta-externalagent"}, purpose: purposeTraining, ai: true},
	crawlerAmazonbot:  {name: "Amazonbot", tokens: []string{"amazonbot"}, purpose: purposeTraining, ai: true},

	crawlerOAISearch:    {name: "OAI-SearchBot", tokens: []string{"oai-searchbot"}, purpose: purposeSearch, ai: true},
	crawlerClaudeSearch: {name: "Claude-SearchBot", tokens: []string{"claude-searchbot"}, purpose: purposeSearch, ai: true},
	crawlerPerplexity:   {name: "PerplexityBot", tokens: []string{"perplexitybot"}, purpose: purposeSearch, ai: true},

	crawlerChatGPTUser:    {name: "ChatGPT-User", tokens: []string{"chatgpt-user"}, purpose: purposeUserTriggered, ai: true},
	crawlerClaudeUser:     {name: "Claude-User", tokens: []string{"claude-user"}, purpose: purposeUserTriggered, ai: true},
	crawlerPerplexityUser: {name: "Perplexity-User", tokens: []string{"perplexity-user"}, purpose: purposeUserTriggered, ai: true},
	crawlerGoogleAgent:    {name: "Google-Agent", tokens: []string{"google-agent"}, purpose: purposeUserTriggered, ai: true},
	crawlerMetaFetcher:    {name: "Meta-ExternalFetcher", tokens: []string{"meta-externalfetcher"}, purpose: purposeUserTriggered, ai: true},
}

// crawlerNames are the families' names, as Crawlers.Ranges keys them and
// CrawlFetch.Crawler gives them, and "other".
var crawlerNames = func() (names [numCrawlers]string) {
	for f := range families {
		names[f] = families[f].name
	}
	names[crawlerOther] = "other"
	return names
}()

// trainingTokens are robots.txt tokens of no crawler: by them Google and
// Apple are told whether what their search crawlers fetch may train
// their models. RobotsPolicy.Training names them too.
var trainingTokens = []string{"Google-Extended", "Applebot-Extended"}

// aiAgents returns the robots.txt tokens of the AI families of purpose p,
// in the order of families (and, for training, trainingTokens).
func aiAgents(p purpose) []string {
	var out []string
	for _, f := range families {
		if f.ai && f.purpose == p {
			out = append(out, f.name)
		}
	}
	if p == purposeTraining {
		out = append(out, trainingTokens...)
	}
	return out
}
