package sitemap

import (
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// aiClients are a User-Agent of each AI family, in the form its vendor
// documents (written for these tests), an address in the ranges of
// testdata/crawlers ("" for a vendor that publishes none), and an
// address outside every range there.
var aiClients = []struct {
	family, purpose string
	ua, addr        string
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
	{"Googlebot", "search", googlebotUA, "[2001:db8:4860::1]:443"},
}

// spoofAddr is in none of testdata/crawlers' ranges.
const spoofAddr = "203.0.113.200:443"

// testRangeFiles are testdata/crawlers' files, by family.
func testRangeFiles() map[string][]string {
	dir := filepath.Join("testdata", "crawlers")
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

func TestCrawlerOfAI(t *testing.T) {
	for _, c := range aiClients {
		if got := crawlerNames[crawlerOf(c.ua)]; got != c.family {
			t.Errorf("crawlerOf(%.50q) = %s, want %s", c.ua, got, c.family)
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

// TestCrawlFamilies: each family's example User-Agent from an address in
// its vendor's published ranges (testdata/crawlers, read with
// CrawlerRangeFiles), and the same User-Agent from an address outside
// them, over a whole Sitemap: verified, spoofed and unverifiable claims
// are logged apart, with the family's purpose, in CrawlLog, SectionStats
// and Stats; user-triggered fetches are counted apart from the crawlers'.
func TestCrawlFamilies(t *testing.T) {
	sm := crawlSitemap(t, Config{Crawlers: Crawlers{Ranges: CrawlerRangeFiles(testRangeFiles())}})
	want := map[string]CrawlFetch{} // by Crawler and check
	key := func(f CrawlFetch) string {
		return f.Crawler + "/" + map[bool]string{true: "verified"}[f.Verified] + map[bool]string{true: "spoofed"}[f.Spoofed]
	}
	var verified, spoofed, unverifiable int64
	var byPurpose = map[string]int64{}
	for _, c := range aiClients {
		if c.addr != "" {
			if w := fetch(sm, "/sitemap-p-1.xml.gz", c.ua, c.addr); w.Code != 200 {
				t.Fatalf("%s: %d", c.family, w.Code)
			}
			want[c.family+"/verified"] = CrawlFetch{Crawler: c.family, Purpose: c.purpose, Verified: true, Fetches: 1}
			verified++
			byPurpose[c.purpose]++
		}
		for range 2 {
			fetch(sm, "/sitemap-p-1.xml.gz", c.ua, spoofAddr)
		}
		if c.addr != "" { // the vendor publishes ranges: from elsewhere, a spoof
			want[c.family+"/spoofed"] = CrawlFetch{Crawler: c.family, Purpose: c.purpose, Spoofed: true, Fetches: 2}
			spoofed += 2
		} else { // none to check against
			want[c.family+"/"] = CrawlFetch{Crawler: c.family, Purpose: c.purpose, Fetches: 2}
			unverifiable += 2
			byPurpose[c.purpose] += 2
		}
	}
	fetch(sm, "/sitemap-p-1.xml.gz", chromeUA, "192.0.2.1:443") // a browser at GPTBot's address: other
	want["other/"] = CrawlFetch{Crawler: "other", Fetches: 1}

	got := crawlsOf(t, sm, "sitemap-p-1.xml.gz")
	if len(got) != len(want) {
		t.Errorf("%d columns, want %d", len(got), len(want))
	}
	for _, f := range got {
		w, ok := want[key(f)]
		if !ok {
			t.Errorf("a column not wanted: %+v", f)
			continue
		}
		if f.Crawler != w.Crawler || f.Purpose != w.Purpose || f.Verified != w.Verified || f.Spoofed != w.Spoofed || f.Fetches != w.Fetches || f.Status != 200 {
			t.Errorf("%s: %+v, want %+v", key(f), f, w)
		}
	}
	st := sm.Stats()
	if st.CrawlerFetches != verified || st.CrawlerSpoofed != spoofed || st.CrawlerUnverified != spoofed+unverifiable {
		t.Errorf("Stats: %d verified, %d spoofed, %d unverified; want %d, %d, %d",
			st.CrawlerFetches, st.CrawlerSpoofed, st.CrawlerUnverified, verified, spoofed, spoofed+unverifiable)
	}
	if st.CrawlerSearch != byPurpose["search"] || st.CrawlerTraining != byPurpose["training"] || st.CrawlerUserTriggered != byPurpose["user-triggered"] {
		t.Errorf("Stats by purpose: search %d, training %d, user-triggered %d; want %v",
			st.CrawlerSearch, st.CrawlerTraining, st.CrawlerUserTriggered, byPurpose)
	}
	// Counted apart: ChatGPT-User, Perplexity-User and Google-Agent
	// verified, Claude-User and Meta-ExternalFetcher unverifiable (twice
	// each); the spoofs of any of them not at all.
	if st.CrawlerUserTriggered != 3+2*2 {
		t.Errorf("user-triggered %d, want 7", st.CrawlerUserTriggered)
	}
	for _, ss := range sm.SectionStats() {
		if ss.Section != "p" {
			continue
		}
		n := map[string]int64{}
		for _, c := range ss.CrawlCounts {
			n[key(CrawlFetch{Crawler: c.Crawler, Verified: c.Verified, Spoofed: c.Spoofed})] += c.Fetches
			if c.Crawler != "other" && c.Purpose == "" {
				t.Errorf("a count without its purpose: %+v", c)
			}
		}
		for k, w := range want {
			if n[k] != w.Fetches {
				t.Errorf("SectionStats: %s: %d fetches, want %d", k, n[k], w.Fetches)
			}
		}
	}
}

func TestCrawlerRangeFiles(t *testing.T) {
	got, err := CrawlerRangeFiles(testRangeFiles())()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(got["ChatGPT-User"]); n != 2 {
		t.Errorf("ChatGPT-User: %d prefixes, want 2", n)
	}
	two := map[string][]string{"GPTBot": {filepath.Join("testdata", "crawlers", "gptbot.json"), filepath.Join("testdata", "crawlers", "searchbot.json")}}
	if got, err := CrawlerRangeFiles(two)(); err != nil || len(got["GPTBot"]) != 3 {
		t.Errorf("two files of a family: %v, %v", got, err)
	}
	missing := filepath.Join("testdata", "crawlers", "none.json")
	if _, err := CrawlerRangeFiles(map[string][]string{"GPTBot": {missing}})(); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("a missing file: %v", err)
	}
	bad := filepath.Join("testdata", "crawlers", "README.md")
	if _, err := CrawlerRangeFiles(map[string][]string{"GPTBot": {bad}})(); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("a file that is no list of ranges: %v", err)
	}
}

func TestAIAgents(t *testing.T) {
	for p, want := range map[purpose][]string{
		purposeTraining:      {"GPTBot", "ClaudeBot", "CCBot", "Bytespider", "Meta-ExternalAgent", "Amazonbot", "Google-Extended", "Applebot-Extended"},
		purposeSearch:        {"OAI-SearchBot", "Claude-SearchBot", "PerplexityBot"},
		purposeUserTriggered: {"ChatGPT-User", "Claude-User", "Perplexity-User", "Google-Agent", "Meta-ExternalFetcher"},
	} {
		if got := aiAgents(p); !slices.Equal(got, want) {
			t.Errorf("aiAgents(%s) = %v, want %v", purposeNames[p], got, want)
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

// TestCrawlNotesPurpose: the HTML view's crawl notes say each family's
// purpose and whether its claim was verified, spoofed or unverifiable.
func TestCrawlNotesPurpose(t *testing.T) {
	at := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	sm := crawlSitemap(t, Config{Now: func() time.Time { return at }, Crawlers: Crawlers{Ranges: CrawlerRangeFiles(testRangeFiles())}})
	for _, c := range []struct{ ua, addr string }{
		{aiClients[0].ua, aiClients[0].addr}, // GPTBot, verified
		{aiClients[9].ua, spoofAddr},         // ChatGPT-User, spoofed
		{aiClients[1].ua, spoofAddr},         // ClaudeBot: Anthropic publishes no ranges
		{googlebotUA, aiClients[14].addr},    // Googlebot, verified
		{chromeUA, spoofAddr},                // a person: not noted
	} {
		fetch(sm, "/sitemap-p-1.xml.gz", c.ua, c.addr)
	}
	notes := crawlNotes{log: sm.crawls, now: sm.docs.now}.htmlNotes(pageKey(0, 1))
	slices.Sort(notes)
	want := []string{
		"ChatGPT-User (user-triggered; spoofed: not from its vendor's addresses) fetched this file 0 s ago: 200",
		"ClaudeBot (training; claimed, not verified by address) fetched this file 0 s ago: 200",
		"GPTBot (training) fetched this file 0 s ago: 200",
		"Googlebot fetched this file 0 s ago: 200",
	}
	if !slices.Equal(notes, want) {
		t.Errorf("notes:\n%s\nwant:\n%s", strings.Join(notes, "\n"), strings.Join(want, "\n"))
	}
}
