package robotsoracle

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/freshmap/sitemap"
	"github.com/temoto/robotstxt"
)

// policy is the policy the files are merged with: every rule, and a
// signal.
var policy = sitemap.RobotsPolicy{
	Training:      sitemap.RobotsDisallow,
	Search:        sitemap.RobotsAllow,
	UserTriggered: sitemap.RobotsAllow,
	ContentSignal: "search=yes, ai-train=no",
}

// policyAgents are the crawlers RobotsPolicy documents for each rule,
// with what policy tells them.
var policyAgents = map[string]bool{
	"GPTBot": false, "ClaudeBot": false, "CCBot": false, "Bytespider": false,
	"Meta-ExternalAgent": false, "Amazonbot": false, "Google-Extended": false, "Applebot-Extended": false,
	"OAI-SearchBot": true, "Claude-SearchBot": true, "PerplexityBot": true,
	"ChatGPT-User": true, "Claude-User": true, "Perplexity-User": true, "Google-Agent": true, "Meta-ExternalFetcher": true,
}

// files are applications' robots.txt written only with what temoto reads
// as Google's parser does (no typos, no BOM, no lone CR, no rules before a
// group): groups for one agent and several, an agent in two groups, an
// empty Disallow, wildcards and '$', comments, CRLF, no final newline, a
// last group without rules, and files that name the policy's crawlers.
var files = map[string]string{
	"none":                            "",
	"open":                            "User-agent: *\nDisallow:\n",
	"closed":                          "User-agent: *\nDisallow: /\n",
	"search engine apart":             "User-agent: *\nDisallow: /private/\n\nUser-agent: Googlebot\nDisallow: /nogoogle\nAllow: /private/google\n",
	"two agents, one group":           "User-agent: FooBot\nUser-agent: BarBot\nDisallow: /shared\n\nUser-agent: *\nDisallow: /all\n",
	"one agent, two groups":           "User-agent: FooBot\nDisallow: /a\n\nUser-agent: *\nDisallow: /b\n\nUser-agent: FooBot\nDisallow: /c\n",
	"wildcards":                       "User-agent: *\nDisallow: /*.pdf$\nDisallow: /search?*q=\nAllow: /search?q=ok\n",
	"comments and CRLF":               "# shop\r\nUser-agent: * # all\r\nDisallow: /cart # keep out\r\n\r\nUser-agent: FooBot\r\nAllow: /\r\n",
	"no final newline":                "User-agent: *\nDisallow: /private",
	"last group bare":                 "User-agent: *\nDisallow: /x\n\nUser-agent: FooBot\n",
	"AI crawlers named":               "User-agent: GPTBot\nAllow: /blog/\n\nUser-agent: OAI-SearchBot\nDisallow: /\n\nUser-agent: *\nDisallow: /admin\n",
	"AI crawler in a bare last group": "User-agent: *\nDisallow: /admin\nUser-agent: ClaudeBot\n",
}

// paths are asked of every file, beside the paths its rules name.
var paths = []string{"/", "/a", "/b", "/c", "/x", "/x/y", "/all", "/shared", "/private", "/private/", "/private/google",
	"/nogoogle", "/cart", "/doc.pdf", "/doc.pdf?x", "/search?q=ok", "/search?a=1&q=2", "/blog/post", "/admin", "/public"}

// TestRobotsMergeTemoto: the robots.txt the middleware serves for an
// application's file with the policy on gives, by temoto/robotstxt,
// every agent the file names (and one it does not) the answer the file
// gives for every path, and every policy crawler the file does not name
// the policy's answer.
func TestRobotsMergeTemoto(t *testing.T) {
	for name, body := range files {
		t.Run(name, func(t *testing.T) {
			merged := serve(t, body)
			before, err := robotstxt.FromString(body)
			if err != nil {
				t.Fatalf("the application's file: %v", err)
			}
			after, err := robotstxt.FromString(merged)
			if err != nil {
				t.Fatalf("the merged file: %v\n%s", err, merged)
			}
			named := map[string]bool{}
			ps := slices.Clone(paths)
			for line := range strings.Lines(body) {
				key, value, _ := strings.Cut(strings.TrimSpace(strings.SplitN(line, "#", 2)[0]), ":")
				value = strings.TrimSpace(value)
				switch strings.ToLower(strings.TrimSpace(key)) {
				case "user-agent":
					named[strings.ToLower(value)] = true
				case "allow", "disallow":
					if p := strings.Trim(value, "*$"); p != "" {
						ps = append(ps, p)
					}
				}
			}
			agents := []string{"unnamedbot", "Googlebot", "FooBot", "BarBot"}
			for a := range policyAgents {
				agents = append(agents, a)
			}
			for _, a := range agents {
				want, ok := policyAgents[a]
				ruled := ok && !named[strings.ToLower(a)] // the policy's, the file naming it not
				for _, p := range ps {
					got := after.TestAgent(p, a)
					if ruled && got != want {
						t.Errorf("%s %s: %v, want the policy's %v\n%s", a, p, got, want, merged)
					}
					if !ruled && got != before.TestAgent(p, a) {
						t.Errorf("%s %s: %v, the application's file says %v\n%s", a, p, got, !got, merged)
					}
				}
			}
		})
	}
}

// TestRobotsMergeOracle: temoto tells a file that closes a path from one
// that opens it, so the comparisons above can fail.
func TestRobotsMergeOracle(t *testing.T) {
	open, _ := robotstxt.FromString("User-agent: *\nDisallow:\n")
	closed, _ := robotstxt.FromString("User-agent: *\nDisallow: /cart\n")
	if !open.TestAgent("/cart", "FooBot") || closed.TestAgent("/cart", "FooBot") || !closed.TestAgent("/", "FooBot") {
		t.Fatal("temoto does not read Disallow as the tests above assume")
	}
}

// serve returns the robots.txt a Sitemap with the policy serves in front
// of an application whose own robots.txt is body ("" for none: a 404).
func serve(t *testing.T, body string) string {
	t.Helper()
	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://example.com", Robots: policy, Logger: slog.New(slog.DiscardHandler)},
		sitemap.Section{Source: sitemap.FromSlice([]sitemap.URL{{Loc: "https://example.com/"}}, 0)})
	if err != nil {
		t.Fatal(err)
	}
	defer sm.Close()
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/robots.txt" || body == "" {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, body)
	})
	w := httptest.NewRecorder()
	sm.Handler(app).ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/robots.txt", nil))
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "Sitemap: https://example.com/sitemap_index.xml") {
		t.Fatalf("robots.txt: %d\n%s", w.Code, w.Body)
	}
	return w.Body.String()
}
