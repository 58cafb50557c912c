package robotstxt

import (
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/freshmap/sitemap/internal/pagecheck"
)

// googleAllowed answers whether agent (a product token) may fetch path
// under the robots.txt body as Google's parser does
// (github.com/google/robotstxt, robots.cc; written for this test from
// its documented behaviour): keys by their start ignoring case, with its
// typos; a missing colon between exactly two words; a group's agents
// apply until a rule line is followed by another user-agent line; a
// user-agent line names the product token it starts with, "*" (or "* …")
// every agent; the longest matching rule wins, Allow a tie; a group of
// the agent's own, even with no rule, shuts out the "*" rules; a rule
// before any user-agent line, and any other key, is ignored.
func googleAllowed(body, agent, path string) bool {
	var seenGlobal, seenSpecific, everSpecific, separator bool
	allow, disallow := [2]int{-1, -1}, [2]int{-1, -1} // [specific, global] priorities
	rest := strings.TrimPrefix(body, "\ufeff")
	for rest != "" {
		line := rest
		if i := strings.IndexAny(rest, "\r\n"); i < 0 {
			rest = ""
		} else {
			n := 1
			if rest[i] == '\r' && i+1 < len(rest) && rest[i+1] == '\n' {
				n = 2
			}
			line, rest = rest[:i], rest[i+n:]
		}
		field, value := splitLine(line)
		switch keyOf(field) {
		case keyUserAgent:
			if separator {
				seenGlobal, seenSpecific, separator = false, false, false
			}
			if value != "" && value[0] == '*' && (len(value) == 1 || unicode.IsSpace(rune(value[1]))) {
				seenGlobal = true
			} else if strings.EqualFold(agentOf(value), agent) {
				seenSpecific, everSpecific = true, true
			}
		case keyAllow, keyDisallow:
			if !seenGlobal && !seenSpecific {
				continue
			}
			separator = true
			p := -1
			if googleMatch(value, path) {
				p = len(value)
			}
			prio := &allow
			if keyOf(field) == keyDisallow {
				prio = &disallow
			}
			i := 1
			if seenSpecific {
				i = 0
			}
			prio[i] = max(prio[i], p)
		}
	}
	if allow[0] > 0 || disallow[0] > 0 {
		return disallow[0] <= allow[0]
	}
	if everSpecific {
		return true
	}
	if allow[1] > 0 || disallow[1] > 0 {
		return disallow[1] <= allow[1]
	}
	return true
}

// googleMatch reports whether pattern matches path from its start: '*'
// any run of bytes, a final '$' the end.
func googleMatch(pattern, path string) bool {
	if pattern == "" {
		return true
	}
	if pattern[0] == '$' && len(pattern) == 1 {
		return path == ""
	}
	if pattern[0] == '*' {
		for i := 0; i <= len(path); i++ {
			if googleMatch(pattern[1:], path[i:]) {
				return true
			}
		}
		return false
	}
	return path != "" && path[0] == pattern[0] && googleMatch(pattern[1:], path[1:])
}

func TestGoogleAllowed(t *testing.T) { // the oracle itself, on cases whose answers Google documents
	const body = "user-agent: FooBot\ndisallow: /\nallow: /x/\n\nUser-agent: *\nDisallow: /private\nAllow: /private/ok$\nuseragent: typo-bot\ndissallow: /\n\nUser-agent: barbot\nUser-agent: empty\n"
	for _, c := range []struct {
		agent, path string
		want        bool
	}{
		{"foobot", "/", false}, {"FooBot", "/x/y", true}, {"foobot", "/private", false},
		{"other", "/private/a", false}, {"other", "/private/ok", true}, {"other", "/private/ok2", false}, {"other", "/public", true},
		{"typo-bot", "/", false},                                  // "useragent" and "dissallow" are read
		{"barbot", "/private", true}, {"empty", "/private", true}, // a group with no rule allows all
	} {
		if got := googleAllowed(body, c.agent, c.path); got != c.want {
			t.Errorf("%s %s: %v, want %v", c.agent, c.path, got, c.want)
		}
	}
}

// robotsCases are robots.txt files in the spirit of google/robotstxt's
// tests (written for this one): key case and typos, a forgotten colon,
// line endings, a byte order mark, groups of several agents and an agent
// in several groups, rules before any group, a last group with no rule,
// wildcards and '$', a file with no final newline, AI crawlers named by
// the file already, a Content-Signal and Sitemap lines of its own.
// (internal/robotsoracle reads such files with an independent parser too,
// from a module of its own so that its dependency stays out of this one.)
var robotsCases = []struct {
	name, body string
}{
	{"empty", ""},
	{"allow all", "User-agent: *\nAllow: /\n"},
	{"disallow all", "User-agent: *\nDisallow: /\n"},
	{"star and own groups", "User-agent: *\nDisallow: /private/\n\nUser-agent: Googlebot\nDisallow: /nogoogle\nAllow: /private/google\n"},
	{"several agents in a group", "User-agent: FooBot\nUser-agent: BarBot\nDisallow: /shared\n\nUser-agent: *\nDisallow: /all\n"},
	{"an agent in two groups", "User-agent: FooBot\nDisallow: /a\n\nUser-agent: *\nDisallow: /b\n\nUser-agent: FooBot\nDisallow: /c\n"},
	{"key case", "USER-AGENT: FooBot\nDISALLOW: /a\nuser-agent: *\ndisallow: /b\n"},
	{"typos", "useragent: FooBot\ndissallow: /a\nuser agent: BarBot\ndisalow: /b\n"},
	{"no colon", "User-agent FooBot\nDisallow /a\n"},
	{"CRLF", "User-agent: *\r\nDisallow: /private\r\n\r\nUser-agent: FooBot\r\nAllow: /\r\n"},
	{"CR", "User-agent: *\rDisallow: /private\r"},
	{"byte order mark", "\ufeffUser-agent: *\nDisallow: /private\n"},
	{"no final newline", "User-agent: *\nDisallow: /private"},
	{"rules before any group", "Disallow: /orphan\nUser-agent: *\nDisallow: /b\n"},
	{"last group without rules", "User-agent: *\nDisallow: /private\n\nUser-agent: FooBot\n"},
	{"last group without rules, no newline", "User-agent: *\nDisallow: /private\nUser-agent: FooBot\nUser-agent: BarBot"},
	{"last group without rules after a comment", "User-agent: *\nDisallow: /x\nUser-agent: FooBot # later\n# nothing yet\nSitemap: https://example.com/other.xml\n"},
	{"only a group without rules", "User-agent: FooBot\n"},
	{"star without rules last", "User-agent: FooBot\nDisallow: /foo\nUser-agent: *\n"},
	{"wildcards", "User-agent: *\nDisallow: /*.pdf$\nDisallow: /search?*q=\nAllow: /search?q=ok\n"},
	{"empty disallow", "User-agent: FooBot\nDisallow:\n\nUser-agent: *\nDisallow: /\n"},
	{"comments", "# robots\nUser-agent: * # everyone\nDisallow: /private # keep out\n"},
	{"versioned agent", "User-agent: FooBot/2.1\nDisallow: /a\nUser-agent: *\nDisallow: /b\n"},
	{"star with a word", "User-agent: * FooBot\nDisallow: /a\n"},
	{"AI crawlers named", "User-agent: GPTBot\nAllow: /blog/\n\nUser-agent: oai-searchbot\nDisallow: /\n\nUser-agent: *\nDisallow: /admin\n"},
	{"AI crawler in a last group without rules", "User-agent: *\nDisallow: /admin\nUser-agent: ClaudeBot\n"},
	{"its own content signal", "User-agent: *\nContent-Signal: search=yes, ai-train=yes\nDisallow: /admin\n"},
	{"sitemap keys", "Site-map: https://example.com/sitemap_index.xml\nUser-agent: *\nDisallow:\n"},
	{"sitemaps key", "Sitemaps: https://example.com/sitemap_index.xml\n"},
	{"crawl-delay", "User-agent: FooBot\nCrawl-delay: 5\nUser-agent: *\nDisallow: /x\n"},
}

// testPurposes are the purposes of the merge test, with the agents the
// sitemap package names for each (crawlerfamilies.go): training
// disallowed, search and user-triggered allowed.
var testPurposes = []Purpose{
	{Name: "training", Agents: []string{"GPTBot", "ClaudeBot", "CCBot", "Bytespider", "Meta-ExternalAgent", "Amazonbot", "Google-Extended", "Applebot-Extended"}},
	{Name: "search", Agents: []string{"OAI-SearchBot", "Claude-SearchBot", "PerplexityBot"}, Allow: true},
	{Name: "user-triggered", Agents: []string{"ChatGPT-User", "Claude-User", "Perplexity-User", "Google-Agent", "Meta-ExternalFetcher"}, Allow: true},
}

// testSignal is the Content-Signal of the merge test.
const testSignal = "search=yes, ai-train=no"

const testRobotsLine = "Sitemap: https://example.com/sitemap_index.xml"

// testPolicy is the policy of the merge test: every rule, and a signal.
func testPolicy(t testing.TB) *Policy {
	t.Helper()
	p, err := NewPolicy(testPurposes, testSignal)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// robotsPaths are the paths the merge test asks about in every file,
// beside those its rules name.
var robotsPaths = []string{"/", "/a", "/b", "/c", "/x", "/x/y", "/private", "/private/", "/private/google", "/nogoogle", "/shared",
	"/all", "/orphan", "/foo", "/doc.pdf", "/doc.pdf?x", "/search?q=ok", "/search?a=1&q=2", "/blog/post", "/drafts/1", "/admin", "/public"}

// TestRobotsPolicyMerge: with the policy on, over every file of
// robotsCases, the merged robots.txt gives every agent the original
// names the same answer for every path, by Google's parser
// (googleAllowed) and by the self-audit's (internal/pagecheck); an agent it does
// not name that is no AI agent too; the policy's agents the original
// does not name get the policy; each line we add is there once; the
// Sitemap line is not added beside a Sitemaps: or Site-map: line naming
// our index; the result is within 500 KiB.
func TestRobotsPolicyMerge(t *testing.T) {
	rb := New([]string{testRobotsLine}, testPolicy(t))
	for _, c := range robotsCases {
		t.Run(c.name, func(t *testing.T) {
			out, _, ok := rb.Merge([]byte(c.body))
			merged := string(out)
			if !ok || len(merged) > MaxBytes {
				t.Fatalf("merge: ok %v, %d bytes", ok, len(merged))
			}
			sc := rb.scan([]byte(c.body))
			agents := []string{"unnamedbot", "Googlebot"} // an agent no file names, and a search engine's
			for a := range sc.agents {
				agents = append(agents, a)
			}
			paths := slices.Clone(robotsPaths)
			for line := range robotsLines(c.body) {
				if f, v := splitLine(line); keyOf(f) == keyAllow || keyOf(f) == keyDisallow {
					paths = append(paths, strings.Trim(v, "*$"))
				}
			}
			for _, a := range agents {
				if slices.ContainsFunc(allPolicyAgents(), func(x string) bool { return strings.EqualFold(x, a) }) && !sc.names(a) {
					continue // the policy's
				}
				la := strings.ToLower(a)
				pb, pa := pagecheck.ParseRobots([]byte(c.body), la), pagecheck.ParseRobots(out, la)
				for _, path := range paths {
					if g0, g1 := googleAllowed(c.body, a, path), googleAllowed(merged, a, path); g0 != g1 {
						t.Errorf("Google's parser: %s %s: %v before, %v after\n%s", a, path, g0, g1, merged)
					}
					if p0, _ := pb.Allowed(path); p0 != first2(pa.Allowed(path)) {
						t.Errorf("pagecheck: %s %s: %v before, changed after\n%s", a, path, p0, merged)
					}
				}
			}
			for _, pur := range testPurposes {
				for _, a := range pur.Agents {
					if sc.names(a) {
						continue // the file's word wins: held above
					}
					for _, path := range paths {
						want := pur.Allow
						if path == "" {
							continue
						}
						if got := googleAllowed(merged, a, path); got != want {
							t.Errorf("Google's parser: the policy's %s %s: %v, want %v\n%s", a, path, got, want, merged)
						}
					}
				}
			}
			if !strings.HasPrefix(merged, strings.TrimRight(c.body, "\r\n")) && !strings.HasPrefix(c.body, merged[:sc.insertAt]) {
				t.Errorf("the file's own lines moved")
			}
			added := map[string]int{}
			for line := range robotsLines(merged) {
				added[line]++
			}
			for line := range robotsLines(c.body) {
				added[line]--
			}
			for line, n := range added {
				if n > 1 && line != "" { // empty lines part the groups, for people

					t.Errorf("%q added %d times", line, n)
				}
			}
			sitemaps := 0
			for line := range robotsLines(merged) {
				if f, v := splitLine(line); keyOf(f) == keySitemap && v == strings.TrimPrefix(testRobotsLine, "Sitemap: ") {
					sitemaps++
				}
			}
			if sitemaps != 1 {
				t.Errorf("our index is named %d times", sitemaps)
			}
			if signals := strings.Count(strings.ToLower(merged), "content-signal:"); signals != 1 {
				t.Errorf("%d Content-Signal lines", signals)
			}
		})
	}
}

func first2(ok bool, _ string) bool { return ok }

// robotsLines yields the lines of s, ended by LF, CRLF or CR, without
// their endings.
func robotsLines(s string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for s != "" {
			i := strings.IndexAny(s, "\r\n")
			if i < 0 {
				yield(s)
				return
			}
			n := 1
			if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
				n = 2
			}
			if !yield(s[:i]) {
				return
			}
			s = s[i+n:]
		}
	}
}

// allPolicyAgents are every agent the test's policy names.
func allPolicyAgents() []string {
	var out []string
	for _, p := range testPurposes {
		out = append(out, p.Agents...)
	}
	return out
}

// TestRobotsPolicySize: the limit holds after the merge. A file the
// policy would take past 500 KiB gets our Sitemap line alone; one that
// line would take past it is served as it is (TestRobotsTooLarge).
func TestRobotsPolicySize(t *testing.T) {
	rb := New([]string{testRobotsLine}, testPolicy(t))
	line := "Disallow: /" + strings.Repeat("x", 88) + "\n"
	body := "User-agent: *\n" + strings.Repeat(line, (MaxBytes-200)/len(line))
	out, appended, ok := rb.Merge([]byte(body))
	if !ok || !appended || string(out) != body+testRobotsLine+"\n" {
		t.Errorf("near the limit: ok %v, appended %v, %d bytes; want the Sitemap line alone", ok, appended, len(out))
	}
	small := "User-agent: *\nDisallow: /x\n"
	if out, _, _ := rb.Merge([]byte(small)); !strings.Contains(string(out), "User-agent: GPTBot") || len(out) > MaxBytes {
		t.Errorf("a small file: the policy left out\n%s", out)
	}
}

// FuzzRobotsPolicyMerge: whatever the application's robots.txt, the
// merge keeps Google's answer for every agent the file names (and for one
// it does not), on the paths its rules name, gives the policy's agents it
// does not name the policy, and stays within 500 KiB.
func FuzzRobotsPolicyMerge(f *testing.F) {
	for _, c := range robotsCases {
		f.Add(c.body)
	}
	rb := New([]string{testRobotsLine}, testPolicy(f))
	f.Fuzz(func(t *testing.T, body string) {
		if len(body) > 4096 {
			return
		}
		out, _, ok := rb.Merge([]byte(body))
		if !ok || len(out) > MaxBytes {
			t.Fatalf("merge: ok %v, %d bytes", ok, len(out))
		}
		merged := string(out)
		sc := rb.scan([]byte(body))
		paths := []string{"/", "/a", "/x/y"}
		for line := range robotsLines(body) {
			if f, v := splitLine(line); keyOf(f) == keyAllow || keyOf(f) == keyDisallow {
				v = "/" + strings.TrimLeft(strings.Trim(v, "*$"), "/") // a path, as a crawler asks
				paths = append(paths, v, v+"x")
			}
		}
		agents := []string{"unnamedbot"}
		for a := range sc.agents {
			agents = append(agents, a)
		}
		for _, a := range agents {
			for _, path := range paths {
				if g0, g1 := googleAllowed(body, a, path), googleAllowed(merged, a, path); g0 != g1 {
					t.Fatalf("%s %s: %v before, %v after\n--- before\n%s\n--- after\n%s", a, path, g0, g1, body, merged)
				}
			}
		}
		for _, a := range []string{"GPTBot", "OAI-SearchBot", "ChatGPT-User"} {
			if sc.names(a) {
				continue
			}
			want := a != "GPTBot"
			for _, path := range paths {
				if got := googleAllowed(merged, a, path); got != want {
					t.Fatalf("the policy's %s %s: %v, want %v\n%s", a, path, got, want, merged)
				}
			}
		}
	})
}
