package check

import (
	"net"
	"net/url"
	"slices"
	"strings"
)

// maxLoc is the length every loc stays under.
const maxLoc = 2048

// scope is where the locations of one sitemap may lie: its scheme, host
// and port, under its directory.
type scope struct {
	scheme, host, dir string
}

// newScope returns the scope of the file at loc, or nil if loc is not an
// absolute http(s) URL.
func newScope(loc string) *scope {
	u, ok := httpURL(loc)
	if !ok {
		return nil
	}
	p := u.EscapedPath()
	return &scope{scheme: strings.ToLower(u.Scheme), host: hostPort(u), dir: p[:strings.LastIndexByte(p, '/')+1]}
}

// holds reports whether u lies in the scope.
func (s *scope) holds(u *url.URL) bool {
	p := u.EscapedPath()
	if p == "" {
		p = "/"
	}
	return strings.ToLower(u.Scheme) == s.scheme && hostPort(u) == s.host && strings.HasPrefix(p, s.dir)
}

// hostPort is the host in lower case with the scheme's default port left out.
func hostPort(u *url.URL) string {
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port == "" || port == "80" && strings.EqualFold(u.Scheme, "http") || port == "443" && strings.EqualFold(u.Scheme, "https") {
		return host
	}
	return net.JoinHostPort(host, port)
}

// httpURL parses an absolute http(s) URL with a host and no user info.
func httpURL(s string) (*url.URL, bool) {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.Hostname() == "" || u.User != nil || u.Opaque != "" {
		return nil, false
	}
	scheme := strings.ToLower(u.Scheme)
	return u, scheme == "http" || scheme == "https"
}

// locRules checks a <loc> (of a <url> or of an index's <sitemap>) and
// reports whether it is an absolute http(s) URL.
func (f *file) locRules(field, s, entry string, line, col int) bool {
	if len(s) >= maxLoc {
		f.add("loc-length", line, col, entry, "%s is %d characters; it must be under %d", field, len(s), maxLoc)
	}
	if bad, ok := unescaped(s); !ok {
		f.add("loc-escaped", line, col, entry, "%s holds %q, which must be percent-encoded", field, bad)
	}
	u, ok := httpURL(s)
	if !ok {
		f.add("loc-absolute", line, col, entry, "%s %q is not an absolute http(s) URL", field, cut(s))
		return false
	}
	if f.scope != nil && !f.scope.holds(u) && !f.cross.allows(u) {
		f.add("loc-scope", line, col, entry, "%s %q is not under %s://%s%s", field, cut(s), f.scope.scheme, f.scope.host, f.scope.dir)
	}
	return true
}

// extURL checks a URL of an extension (image, video, alternate), which
// may lie on another host.
func (f *file) extURL(field, s, entry string, line, col int) {
	if _, ok := httpURL(s); !ok {
		f.add("ext-url", line, col, entry, "%s %q is not an absolute http(s) URL", field, cut(s))
	}
}

// unescaped returns the first character of s that RFC 3986 wants
// percent-encoded, or a malformed escape, and false; or "", true.
func unescaped(s string) (string, bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c <= ' ' || c >= 0x7f:
			r := []rune(s[i:])[0]
			return string(r), false
		case strings.IndexByte("<>\"{}|\\^`", c) >= 0:
			return string(c), false
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return s[i:min(i+3, len(s))], false
			}
		}
	}
	return "", true
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// cut shortens a value for a message.
func cut(s string) string {
	if len(s) > 100 {
		return s[:100] + "…"
	}
	return s
}

// cross is cross-submission: a sitemap may list the URLs of another origin
// when that origin's robots.txt names the sitemap, or the index that
// listed it. Each origin's robots.txt is asked for once per file.
type cross struct {
	robots  func(origin string) []string
	names   []string // the file's loc, and its index's ("" if none)
	allowed map[string]bool
}

// allows reports whether u's origin lets this sitemap list it. A nil
// cross allows nothing.
func (c *cross) allows(u *url.URL) bool {
	if c == nil {
		return false
	}
	host := hostPort(u)
	if strings.Contains(u.Hostname(), ":") && !strings.HasPrefix(host, "[") {
		host = "[" + host + "]" // an IPv6 address on the default port
	}
	origin := strings.ToLower(u.Scheme) + "://" + host
	ok, seen := c.allowed[origin]
	if !seen {
		for _, line := range c.robots(origin) {
			if line != "" && slices.Contains(c.names, line) {
				ok = true
				break
			}
		}
		c.allowed[origin] = ok
	}
	return ok
}

// sameFile reports whether loc names the file at self: the same scheme,
// host and port (in any case, the default port or none), path and query.
func sameFile(self *url.URL, loc string) bool {
	u, ok := httpURL(loc)
	if !ok {
		return false
	}
	p, q := u.EscapedPath(), self.EscapedPath()
	if p == "" {
		p = "/"
	}
	if q == "" {
		q = "/"
	}
	return strings.EqualFold(u.Scheme, self.Scheme) && hostPort(u) == hostPort(self) && p == q && u.RawQuery == self.RawQuery
}
