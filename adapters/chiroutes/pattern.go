package chiroutes

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// parseBase checks an absolute http(s) URL without query or fragment and
// returns it with a lower-case scheme and host and no trailing slash.
func parseBase(s string) (string, error) {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return "", fmt.Errorf("chiroutes: BaseURL: %w", err)
	case u.Scheme != "http" && u.Scheme != "https", u.Host == "", u.Opaque != "":
		return "", fmt.Errorf("chiroutes: BaseURL %q is not an absolute http or https URL", s)
	case u.User != nil, u.RawQuery != "", u.ForceQuery, u.Fragment != "":
		return "", fmt.Errorf("chiroutes: BaseURL %q must be a scheme, a host and an optional path, without user, query or fragment", s)
	}
	return u.Scheme + "://" + strings.ToLower(u.Host) + strings.TrimSuffix(u.EscapedPath(), "/"), nil
}

// excluded reports the paths that are never pages: robots.txt, the
// favicon and sitemap files.
func excluded(path string) bool {
	last := path[strings.LastIndexByte(path, '/')+1:]
	switch {
	case path == "/robots.txt", path == "/favicon.ico":
		return true
	case strings.HasPrefix(last, "sitemap"):
		return strings.HasSuffix(last, ".xml") || strings.HasSuffix(last, ".xml.gz") || strings.HasSuffix(last, ".txt")
	}
	return false
}

// paramSpans returns the [start, end) byte ranges of the parameters
// ("{name}", "{name:regexp}", whose regexp may hold braces) and wildcards
// ("*") of a chi route pattern.
func paramSpans(pattern string) [][2]int {
	var spans [][2]int
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '*':
			spans = append(spans, [2]int{i, i + 1})
		case '{':
			depth, j := 0, i
			for ; j < len(pattern); j++ {
				if pattern[j] == '{' {
					depth++
				} else if pattern[j] == '}' {
					if depth--; depth == 0 {
						break
					}
				}
			}
			spans = append(spans, [2]int{i, min(j+1, len(pattern))})
			i = j
		}
	}
	return spans
}

func paramCount(pattern string) int { return len(paramSpans(pattern)) }

// fillParam puts v, escaped, in the place of pattern's only parameter.
func fillParam(pattern, v string) (string, error) {
	spans := paramSpans(pattern)
	if len(spans) != 1 {
		return "", fmt.Errorf("the pattern has %d parameters, and Values needs exactly one (use Paths)", len(spans))
	}
	if v == "" {
		return "", errors.New("empty value")
	}
	s := spans[0]
	var esc string
	if pattern[s[0]] == '*' {
		segs := strings.Split(v, "/")
		for i, seg := range segs {
			segs[i] = url.PathEscape(seg)
		}
		esc = strings.Join(segs, "/")
	} else {
		esc = url.PathEscape(v)
	}
	return pattern[:s[0]] + esc + pattern[s[1]:], nil
}

// checkPath accepts p as a concrete path: it must start with '/' and hold
// no query or fragment.
func checkPath(_, p string) (string, error) {
	if !strings.HasPrefix(p, "/") || strings.ContainsAny(p, "?#") {
		return "", fmt.Errorf("%q is not a path (it must start with '/' and have no query or fragment)", p)
	}
	return p, nil
}
