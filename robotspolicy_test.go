package sitemap

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/freshmap/sitemap/internal/crawllog"
	"github.com/freshmap/sitemap/internal/pagecheck"
)

// testPolicy is a policy with every rule, and a signal.
var testPolicy = RobotsPolicy{Training: RobotsDisallow, Search: RobotsAllow, UserTriggered: RobotsAllow, ContentSignal: "search=yes, ai-train=no"}

// TestRobotsPolicyServed: through the middleware, the application's
// robots.txt gets the policy, and without one the minimal file does;
// a policy that adds nothing changes nothing.
func TestRobotsPolicyServed(t *testing.T) {
	sm := newTestSitemap(t, Config{Robots: testPolicy}, Section{Source: FromSlice(numbered(3), 0)})
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" && r.Header.Get("X-Has") != "" {
			w.Write([]byte("User-agent: *\nDisallow: /admin\n\nUser-agent: GPTBot\nAllow: /\n"))
			return
		}
		http.NotFound(w, r)
	})
	h := sm.Handler(app)
	for _, has := range []string{"", "1"} {
		r := httptest.NewRequest(http.MethodGet, "/robots.txt", nil)
		r.Header.Set("X-Has", has)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		body := w.Body.String()
		if w.Code != 200 || !strings.Contains(body, "User-agent: ClaudeBot\n") || !strings.Contains(body, "Content-Signal: search=yes, ai-train=no\n") ||
			!strings.Contains(body, "Sitemap: https://example.com/sitemap_index.xml\n") {
			t.Errorf("application's file %q: %d\n%s", has, w.Code, body)
		}
		if has != "" && (strings.Count(body, "GPTBot") != 1 || !allowedTo(body, "GPTBot", "/admin")) {
			t.Errorf("GPTBot, named by the application, is given the policy too:\n%s", body)
		}
	}
}

func TestRobotsPolicyConfig(t *testing.T) {
	for name, p := range map[string]RobotsPolicy{
		"a rule out of range":  {Training: 7},
		"a signal not yes/no":  {ContentSignal: "search=maybe"},
		"a signal in capitals": {ContentSignal: "Search=yes"},
		"a signal twice":       {ContentSignal: "search=yes, search=no"},
		"a comment":            {ContentSignal: "search=yes # no"},
		"a line break":         {ContentSignal: "search=yes\nDisallow: /"},
		"an empty element":     {ContentSignal: "search=yes,"},
	} {
		if _, err := New(Config{BaseURL: "https://example.com", Robots: p}, Section{Source: FromSlice(numbered(1), 0)}); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v, want ErrConfig", name, err)
		}
	}
	for _, ok := range []string{"search=yes, ai-train=no", "ai-input=no", "search=yes,ai-input=yes,ai-train=no"} {
		if _, err := newRobotsPolicy(RobotsPolicy{ContentSignal: ok}); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	if p, err := newRobotsPolicy(RobotsPolicy{}); p != nil || err != nil {
		t.Errorf("the zero policy: %v, %v; want nil", p, err)
	}
}

// allowedTo reports whether robots.txt body lets agent fetch path, as the
// self-audit reads it (internal/pagecheck: Google's rules).
func allowedTo(body, agent, path string) bool {
	ok, _ := pagecheck.ParseRobots([]byte(body), strings.ToLower(agent)).Allowed(path)
	return ok
}

// TestRobotsPolicyAgents: each purpose's rule reaches every AI agent of
// that purpose (crawlerfamilies.go), and no other crawler: in the minimal
// robots.txt, which allows everyone, training crawlers are disallowed,
// search and user-triggered ones allowed, and the search engines' own
// crawlers are left alone; a purpose left unset names none of its agents.
// The merge into an application's file is tested in internal/robotstxt.
func TestRobotsPolicyAgents(t *testing.T) {
	p, err := newRobotsPolicy(testPolicy)
	if err != nil {
		t.Fatal(err)
	}
	body, _, _ := newPolicyRobots([]string{"Sitemap: https://example.com/sitemap_index.xml"}, p).Merger().Minimal()
	for pur, want := range map[crawllog.Purpose]bool{crawllog.Training: false, crawllog.Search: true, crawllog.UserTriggered: true} {
		agents := crawllog.AIAgents(pur)
		if len(agents) == 0 {
			t.Fatalf("no agents for %s", pur.String())
		}
		for _, a := range agents {
			if !strings.Contains(string(body), "User-agent: "+a+"\n") {
				t.Errorf("%s (%s) is not named:\n%s", a, pur.String(), body)
			}
			if got := allowedTo(string(body), a, "/page"); got != want {
				t.Errorf("%s (%s): allowed %v, want %v\n%s", a, pur.String(), got, want, body)
			}
		}
	}
	for _, a := range []string{"Googlebot", "Bingbot", "Applebot"} {
		if strings.Contains(string(body), "User-agent: "+a+"\n") || !allowedTo(string(body), a, "/page") {
			t.Errorf("a search engine's %s is named by the policy:\n%s", a, body)
		}
	}
	p, err = newRobotsPolicy(RobotsPolicy{Search: RobotsDisallow})
	if err != nil {
		t.Fatal(err)
	}
	body, _, _ = newPolicyRobots(nil, p).Merger().Minimal()
	if strings.Contains(string(body), "GPTBot") || strings.Contains(string(body), "ChatGPT-User") || !strings.Contains(string(body), "User-agent: OAI-SearchBot\n") {
		t.Errorf("search alone disallowed:\n%s", body)
	}
}
