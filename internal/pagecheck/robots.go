package pagecheck

import (
	"bufio"
	"bytes"
	"strings"
)

// Rules are the Allow and Disallow rules of a robots.txt for one crawler,
// matched as Google does (RFC 9309): the group of the crawler's own
// user agent if there is one, else the group of "*"; the longest
// matching rule wins, and Allow wins a tie. Patterns may hold '*' (any
// run of characters) and end with '$' (the end of the path).
type Rules struct {
	rules []rule
}

type rule struct {
	allow   bool
	pattern string
}

// MaxRobotsBytes is how much of a robots.txt is read: Google reads 500 KiB.
const MaxRobotsBytes = 500 << 10

// ParseRobots reads the rules for agent (lower-case, such as "googlebot")
// from a robots.txt body; only its first MaxRobotsBytes are read.
func ParseRobots(body []byte, agent string) *Rules {
	body = body[:min(len(body), MaxRobotsBytes)]
	var own, star []rule
	var hasOwn bool
	var agents []string // the user agents of the group being read
	inRules := false
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 0, 4096), MaxRobotsBytes+1)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		field, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		field, value = strings.ToLower(strings.TrimSpace(field)), strings.TrimSpace(value)
		switch field {
		case "user-agent":
			if inRules {
				agents, inRules = agents[:0], false
			}
			agents = append(agents, strings.ToLower(value))
		case "allow", "disallow":
			inRules = true
			r := rule{allow: field == "allow", pattern: value}
			for _, a := range agents {
				switch {
				case a != agent && a != "*":
				case a == agent:
					hasOwn = true // its group counts even if it allows everything
					if value != "" {
						own = append(own, r)
					}
				case value != "": // an empty Disallow allows everything: no rule
					star = append(star, r)
				}
			}
		}
	}
	if hasOwn {
		return &Rules{rules: own}
	}
	return &Rules{rules: star}
}

// Allowed tells whether the crawler may fetch path (with its query, as in
// a request URI). A nil Rules allows everything.
func (rs *Rules) Allowed(path string) (ok bool, by string) {
	if rs == nil || path == "/robots.txt" {
		return true, ""
	}
	best, allow := -1, true
	for _, r := range rs.rules {
		if !match(r.pattern, path) {
			continue
		}
		if n := len(r.pattern); n > best || n == best && r.allow {
			best, allow, by = n, r.allow, r.pattern
		}
	}
	if allow {
		return true, ""
	}
	return false, "Disallow: " + by
}

// match tells whether pattern matches the start of path ('*' any run,
// a final '$' the end).
func match(pattern, path string) bool {
	anchored := strings.HasSuffix(pattern, "$")
	if anchored {
		pattern = pattern[:len(pattern)-1]
	}
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(path, parts[0]) {
		return false
	}
	rest := path[len(parts[0]):]
	if len(parts) == 1 {
		return !anchored || rest == ""
	}
	for i, p := range parts[1:] {
		last := i == len(parts)-2
		if last && anchored {
			return strings.HasSuffix(rest, p)
		}
		j := strings.Index(rest, p)
		if j < 0 {
			return false
		}
		rest = rest[j+len(p):]
	}
	return true
}
