package sitemap_test

import (
	"fmt"
	"log"
	"net/http"

	"github.com/freshmap/sitemap"
)

// AI crawlers asked by purpose in the application's robots.txt: training
// crawlers not to fetch, search crawlers and user-triggered fetchers
// welcome, and a Content-Signal. ClaudeBot, which the application's file
// names already, keeps the application's rules. The lines ask; they do
// not enforce.
func ExampleRobotsPolicy() {
	sm, err := sitemap.New(sitemap.Config{
		BaseURL: "https://example.com",
		Robots: sitemap.RobotsPolicy{
			Training:      sitemap.RobotsDisallow,
			Search:        sitemap.RobotsAllow,
			ContentSignal: "search=yes, ai-train=no",
		},
	}, sitemap.Section{Source: sitemap.FromSlice([]sitemap.URL{{Loc: "https://example.com/"}}, 0)})
	if err != nil {
		log.Fatal(err)
	}
	defer sm.Close()
	app := http.NewServeMux()
	app.HandleFunc("GET /robots.txt", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "User-agent: *\nDisallow: /admin/\n\nUser-agent: ClaudeBot\nDisallow: /drafts/\n")
	})
	fmt.Print(fetch(sm.Handler(app), "/robots.txt"))
	// Output:
	// User-agent: *
	// Disallow: /admin/
	//
	// User-agent: ClaudeBot
	// Disallow: /drafts/
	//
	// # AI training crawlers are asked to fetch nothing (a request, not enforced)
	// User-agent: GPTBot
	// User-agent: CCBot
	// User-agent: Bytespider
	// User-agent: Meta-ExternalAgent
	// User-agent: Amazonbot
	// User-agent: Google-Extended
	// User-agent: Applebot-Extended
	// Disallow: /
	//
	// # AI search crawlers may fetch everything (a request, not enforced)
	// User-agent: OAI-SearchBot
	// User-agent: Claude-SearchBot
	// User-agent: PerplexityBot
	// Allow: /
	//
	// User-agent: *
	// Content-Signal: search=yes, ai-train=no
	// Sitemap: https://example.com/sitemap_index.xml
}
