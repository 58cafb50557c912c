package sitemap

import (
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
	for _, c := range "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=%" {
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
	errOutsideBase = errors.New("not under the sitemap's base URL")
)

// appendURI appends s to b as a URI: an absolute http(s) URL with an ASCII
// host, non-ASCII and other characters a URI may not hold percent-encoded
// (UTF-8), and a stray '%' encoded as %25. It returns b unchanged and an
// error when s cannot be a sitemap location. If base is not "", the result
// must start with it (scheme and host compared without regard to case).
// With xmlText, '&' and '\” are written as XML entities (a URI holds no
// other XML special character once percent-encoded).
func appendURI(b []byte, s, base string, xmlText bool) ([]byte, error) {
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
	n, extra := len(b), 0
	for i := 0; i < len(s); i++ {
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
		case uriKeep[c]:
			b = append(b, c)
		default:
			b = appendPct(b, c)
		}
	}
	if len(b)-n-extra >= maxLocLen {
		return b[:n], errTooLong
	}
	if base != "" {
		if !hasBase(b[n:], base) {
			return b[:n], errOutsideBase
		}
	}
	return b, nil
}

// hasBase reports whether uri starts with base, comparing the scheme and
// host without regard to case and the path exactly.
func hasBase(uri []byte, base string) bool {
	if len(uri) < len(base) {
		return false
	}
	hostEnd := len(base)
	if i := strings.IndexByte(base[len("http://"):], '/'); i >= 0 {
		hostEnd = len("http://") + i
	}
	for i := range hostEnd {
		if lower(uri[i]) != lower(base[i]) {
			return false
		}
	}
	return string(uri[hostEnd:len(base)]) == base[hostEnd:]
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
// address or a bracketed IPv6 address. User info is refused: it has no place
// in a sitemap and hides where a link really goes.
func validAuthority(a string) bool {
	host, port := a, ""
	if strings.HasPrefix(a, "[") {
		end := strings.IndexByte(a, ']')
		if end < 0 {
			return false
		}
		host, port = a[1:end], a[end+1:]
		if host == "" || strings.Trim(host, "0123456789abcdefABCDEF:.") != "" {
			return false
		}
		if port != "" && port[0] != ':' {
			return false
		}
	} else if i := strings.LastIndexByte(a, ':'); i >= 0 {
		host, port = a[:i], a[i:]
	}
	if port != "" {
		if len(port) < 2 || len(port) > 6 || strings.Trim(port[1:], "0123456789") != "" {
			return false
		}
	}
	if host == "" || len(host) > 253 {
		return false
	}
	if !strings.HasPrefix(a, "[") {
		for i := 0; i < len(host); i++ {
			c := host[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
				return false
			}
		}
		if host[0] == '.' || host[0] == '-' {
			return false
		}
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
