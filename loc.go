package sitemap

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"
)

// maxLocLen is the protocol's bound: a loc is under 2,048 characters once
// percent-encoded.
const maxLocLen = 2048

// uriKeep marks the ASCII bytes that may stand in a URI as they are (RFC
// 3986 unreserved, reserved and '%'). Everything else is percent-encoded.
var uriKeep = func() (t [utf8.RuneSelf]bool) {
	for _, c := range "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?@!$&'()*+,;=%" {
		t[c] = true
	}
	return t
}()

// Reasons a location is rejected. They are wrapped in an *InvalidURLError.
var (
	errNotAbsolute = errors.New("not an absolute http or https URL")
	errBadHost     = errors.New("host must be an ASCII host name (punycode) or IP address, with an optional port")
	errControl     = errors.New("contains a control character or invalid UTF-8")
	errTooLong     = errors.New("2,048 characters or longer once percent-encoded")
	errTooShort    = errors.New("shorter than the schema's 12 characters")
	errOutsideBase = errors.New("not under the sitemap's base URL")
	errDotSegment  = errors.New("path has a . or .. segment")
)

// minLocLen is the schema's minLength of a <loc>.
const minLocLen = 12

// appendURI appends s to b as a URI: an absolute http(s) URL with an ASCII
// host, non-ASCII and other characters a URI may not hold percent-encoded
// (UTF-8), and a stray '%' encoded as %25 ('[', ']' and a second '#' too).
// The scheme and host are written in lower case, and an empty path as "/".
// It returns b unchanged and an error when s cannot be a sitemap location.
// If base is not "", the result must start with it (scheme and host
// compared without regard to case).
//
// With xmlText, '&' and the apostrophe are written as XML entities (a URI
// holds no other XML special character once percent-encoded).
func appendURI(b []byte, s, base string, xmlText bool) ([]byte, error) {
	if len(s) >= maxLocLen { // every byte of s is at least one byte of the URI
		if _, ok := cutScheme(s); !ok {
			return b, errNotAbsolute
		}
		return b, errTooLong
	}
	rest, ok := cutScheme(s)
	if !ok {
		return b, errNotAbsolute
	}
	hostEnd := strings.IndexAny(rest, "/?#")
	if hostEnd < 0 {
		hostEnd = len(rest)
	}
	if !validAuthority(rest[:hostEnd]) {
		return b, errBadHost
	}
	n := len(b)
	// The scheme and authority hold only ASCII letters, digits and ".-:[]".
	hostEnd += len(s) - len(rest)
	for i := range hostEnd {
		b = append(b, lower(s[i]))
	}
	if hostEnd == len(s) || s[hostEnd] != '/' {
		b = append(b, '/')
	}
	extra, fragment := 0, false
	for i := hostEnd; i < len(s); i++ {
		c := s[i]
		switch {
		case c < 0x20 || c == 0x7f:
			return b[:n], errControl
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 || r == 0xFFFE || r == 0xFFFF {
				return b[:n], errControl
			}
			for j := range size {
				b = appendPct(b, s[i+j])
			}
			i += size - 1
		case c == '%' && !(i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2])):
			b = append(b, "%25"...)
		case xmlText && c == '&':
			b = append(b, "&amp;"...)
			extra += len("&amp;") - 1
		case xmlText && c == '\'':
			b = append(b, "&apos;"...)
			extra += len("&apos;") - 1
		case c == '#' && !fragment:
			fragment = true
			b = append(b, c)
		case uriKeep[c]:
			b = append(b, c)
		default: // including '[' and ']' (host only) and a second '#'
			b = appendPct(b, c)
		}
	}
	if len(b)-n-extra >= maxLocLen {
		return b[:n], errTooLong
	}
	if base != "" && !hasBase(b[n:], base) {
		return b[:n], errOutsideBase
	}
	return b, nil
}

// appendPageURI is appendURI for the location of a sitemap entry itself
// (not of an image, a video or an alternate): it must also have no dot
// segment and be at least minLocLen long, as the schema demands.
func appendPageURI(b []byte, s, base string, xmlText bool) ([]byte, error) {
	n := len(b)
	b, err := appendURI(b, s, base, xmlText)
	if err != nil {
		return b, err
	}
	uri := b[n:]
	path := uri[bytes.Index(uri, []byte("://"))+3:]
	path = path[bytes.IndexByte(path, '/'):] // appendURI always writes a path
	switch {
	case hasDotSegment(path):
		return b[:n], errDotSegment
	case len(uri) < 6*minLocLen && textLen(uri) < minLocLen: // an entity is at most 6 bytes
		return b[:n], errTooShort
	}
	return b, nil
}

// textLen is the number of characters XML text b stands for, counting an
// entity as one. b holds only ASCII.
func textLen(b []byte) int {
	n := len(b)
	for i, c := range b {
		if c == '&' {
			n -= bytes.IndexByte(b[i:], ';')
		}
	}
	return n
}

// hasBase reports whether uri starts with base, comparing the scheme and
// host without regard to case and the path exactly.
func hasBase(uri []byte, base string) bool {
	if len(uri) < len(base) {
		return false
	}
	hostEnd := len(base)
	if i := strings.Index(base, "://"); i >= 0 {
		if j := strings.IndexByte(base[i+3:], '/'); j >= 0 {
			hostEnd = i + 3 + j
		}
	}
	for i := range hostEnd {
		if lower(uri[i]) != lower(base[i]) {
			return false
		}
	}
	return string(uri[hostEnd:len(base)]) == base[hostEnd:]
}

// hasDotSegment reports whether the path at the start of p (up to '?' or
// '#') has a "." or ".." segment, percent-encoded or not. A crawler would
// resolve it, possibly to a place outside the base URL.
func hasDotSegment(p []byte) bool {
	for len(p) > 0 && p[0] == '/' {
		p = p[1:]
		end := 0
		for end < len(p) && p[end] != '/' && p[end] != '?' && p[end] != '#' {
			end++
		}
		if isDotSegment(p[:end]) {
			return true
		}
		p = p[end:]
	}
	return false
}

// isDotSegment reports whether seg is one or two dots, each written as
// '.' or %2E.
func isDotSegment(seg []byte) bool {
	dots := 0
	for len(seg) > 0 {
		switch {
		case seg[0] == '.':
			seg = seg[1:]
		case len(seg) >= 3 && seg[0] == '%' && seg[1] == '2' && lower(seg[2]) == 'e':
			seg = seg[3:]
		default:
			return false
		}
		dots++
	}
	return dots == 1 || dots == 2
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// cutScheme returns what follows "http://" or "https://" (any case).
func cutScheme(s string) (string, bool) {
	for _, p := range [...]string{"https://", "http://"} {
		if len(s) >= len(p) && strings.EqualFold(s[:len(p)], p) {
			return s[len(p):], true
		}
	}
	return "", false
}

// validAuthority accepts host[:port] where host is an ASCII name, an IPv4
// address or a bracketed IPv6 address, and port is a number up to 65535.
// User info is refused: it has no place in a sitemap and hides where a link
// really goes.
func validAuthority(a string) bool {
	host, port := a, ""
	if strings.HasPrefix(a, "[") {
		end := strings.IndexByte(a, ']')
		if end < 0 {
			return false
		}
		host, port = a[1:end], a[end+1:]
		if !strings.Contains(host, ":") || strings.Trim(host, "0123456789abcdefABCDEF:.") != "" {
			return false
		}
		if port != "" && port[0] != ':' {
			return false
		}
	} else {
		if i := strings.LastIndexByte(a, ':'); i >= 0 {
			host, port = a[:i], a[i:]
		}
		if !validHostName(host) {
			return false
		}
	}
	if port != "" {
		if len(port) < 2 || len(port) > 6 {
			return false
		}
		n := 0
		for i := 1; i < len(port); i++ {
			if port[i] < '0' || port[i] > '9' {
				return false
			}
			n = n*10 + int(port[i]-'0')
		}
		if n > 65535 {
			return false
		}
	}
	return true
}

// validHostName accepts a DNS name or IPv4 address: labels of 1 to 63
// ASCII letters, digits and hyphens, not starting or ending with a hyphen,
// separated by dots, with an optional final dot.
func validHostName(h string) bool {
	h = strings.TrimSuffix(h, ".")
	if h == "" || len(h) > 253 {
		return false
	}
	label := 0
	for i := 0; i <= len(h); i++ {
		if i == len(h) || h[i] == '.' {
			if label == 0 || label > 63 || h[i-1] == '-' {
				return false
			}
			label = 0
			continue
		}
		c := h[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '-' && label > 0:
		default:
			return false
		}
		label++
	}
	return true
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func appendPct(b []byte, c byte) []byte {
	const hex = "0123456789ABCDEF"
	return append(b, '%', hex[c>>4], hex[c&15])
}

// parseBase checks a configured base URL and returns it in canonical form:
// lower-case scheme and host, no query or fragment, and a path that ends
// in '/'. Every loc a sitemap lists must start with it.
func parseBase(s string) (string, error) {
	if s == "" {
		return "", errors.New("sitemap: BaseURL is required")
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("sitemap: BaseURL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("sitemap: BaseURL %q is not an absolute http or https URL", s)
	}
	if u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || u.Opaque != "" {
		return "", fmt.Errorf("sitemap: BaseURL %q must not have user info, a query or a fragment", s)
	}
	if !validAuthority(u.Host) {
		return "", fmt.Errorf("sitemap: BaseURL %q: %w", s, errBadHost)
	}
	path := u.EscapedPath()
	if !strings.HasSuffix(path, "/") {
		path += "/"
	}
	base := strings.ToLower(u.Scheme+"://"+u.Host) + path
	if b, err := appendURI(nil, base, "", true); err != nil || string(b) != base {
		return "", fmt.Errorf("sitemap: BaseURL %q is not a valid sitemap location", s)
	}
	return base, nil
}
