package xmlenc

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"
)

// maxIDNAuthority bounds the bytes of an authority whose host is
// internationalized: 253 bytes of ASCII name, each byte at most 4 of UTF-8,
// and a port.
const maxIDNAuthority = 4*253 + len(":65535")

// maxLocLen is the protocol's bound: a loc is under 2,048 characters once
// percent-encoded.
const maxLocLen = 2048

// minLocLen is the schema's minLength of a <loc>.
const minLocLen = 12

// Classes of the bytes after a URI's authority.
const (
	uriCopy    = 0    // RFC 3986 unreserved or reserved: copied as it is
	uriEncode  = iota // not allowed in a URI: percent-encoded
	uriControl        // a control character: the URI is rejected
	uriSpecial        // '%', '&', '\'', '?', '#', '.' and non-ASCII: looked at one by one
)

var uriClass = func() (t [256]uint8) {
	for c := range t {
		switch {
		case c < 0x20 || c == 0x7f:
			t[c] = uriControl
		case c >= utf8.RuneSelf:
			t[c] = uriSpecial
		default:
			t[c] = uriEncode // including '[' and ']' (host only) and a second '#'
		}
	}
	for _, c := range "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_~:/@!$()*+,;=" {
		t[c] = uriCopy
	}
	for _, c := range "%&'?#." {
		t[c] = uriSpecial
	}
	return t
}()

// Reasons a location is rejected. They are wrapped in an *InvalidURLError.
var (
	ErrNotAbsolute = errors.New("not an absolute http or https URL")
	ErrBadHost     = errors.New("host must be a host name (IDNs are converted to punycode) or IP address, with an optional port")
	ErrControl     = errors.New("contains a control character or invalid UTF-8")
	ErrTooLong     = errors.New("2,048 characters or longer once percent-encoded")
	ErrTooShort    = errors.New("shorter than the schema's 12 characters")
	ErrOutsideBase = errors.New("not under the sitemap's base URL")
	ErrDotSegment  = errors.New("path has a . or .. segment")
)

// AppendURI appends s to b as a URI: an absolute http(s) URL whose host, if
// internationalized, is converted to punycode (IDNA lookup profile), with
// non-ASCII and other characters a URI may not hold percent-encoded
// (UTF-8), and a stray '%' encoded as %25 ('[', ']' and a second '#' too).
// The scheme and host are written in lower case, and an empty path as "/".
// It returns b unchanged and an error when s cannot be a sitemap location.
// If base is not "", the result must start with it (scheme and host
// compared without regard to case). base is in the canonical form that
// ParseBase returns.
//
// With xmlText, '&' and the apostrophe are written as XML entities (a URI
// holds no other XML special character once percent-encoded).
func AppendURI(b []byte, s, base string, xmlText bool) ([]byte, error) {
	return appendURIRules(b, s, base, "", 0, xmlText, false)
}

// AppendPageURI is AppendURI for the location of a sitemap entry itself
// (not of an image, a video or an alternate): it must also have no dot
// segment and be at least minLocLen long, as the schema demands.
//
// The common location, under base with nothing after it to encode or
// escape, is written as it is after one walk of its bytes (plainPrefix);
// any other goes on through appendURIRules from where that walk stopped.
// The bytes and errors are appendURIRules' own (TestAppendPageURIFast,
// FuzzAppendPageURI).
func AppendPageURI(b []byte, s, base string, xmlText bool) ([]byte, error) {
	plain := plainPrefix(s, base)
	if plain == len(s) {
		return append(b, s...), nil
	}
	return appendURIRules(b, s, base, "", plain, xmlText, true)
}

// plainPrefix returns the length of the start of s that appendURIRules
// copies as it is, as a page's location under base: base itself and the
// bytes after it that need no encoding or escaping, including a '.' that
// does not start a segment. It is len(s) when s is written as it is, and
// -1 when s is not under base or is too short or too long to be a page's
// location (for appendURIRules to reject).
func plainPrefix(s, base string) int {
	if base == "" || len(s) < len(base) || len(s) < minLocLen || len(s) >= maxLocLen || s[:len(base)] != base {
		return -1
	}
	i := len(base)
	for {
		i += copyRun(s[i:])
		if i == len(s) || s[i] != '.' || s[i-1] == '/' { // base ends in '/'
			return i
		}
		i++
	}
}

// appendURIRules is AppendURI, or AppendPageURI when page. origin, if not
// "", is the scheme and authority of a base URL in canonical form with the
// slash that follows (such as "https://example.com/"; see originOf): a
// URI that starts with it, such as an image or an alternate on the site's
// own host, is written without looking at its scheme and host again. The
// bytes written are the same. plain, if positive, is plainPrefix(s, base)
// of a page's location: those bytes are not looked at again.
func appendURIRules(b []byte, s, base, origin string, plain int, xmlText, page bool) ([]byte, error) {
	if len(s) >= maxLocLen {
		rest, ok := cutScheme(s)
		if !ok {
			return b, ErrNotAbsolute
		}
		// Every byte of s is at least one byte of the URI, except in an
		// internationalized host: its punycode may be shorter.
		if !hasNonASCII(rest[:authorityLen(rest[:min(len(rest), maxIDNAuthority)])]) {
			return b, ErrTooLong
		}
	}
	n := len(b)
	var i, pathStart int // in s, and in b after n
	underBase := plain > 0 || base != "" && len(s) >= len(base) && s[:len(base)] == base
	fast := underBase || origin != "" && len(s) >= len(origin) && s[:len(origin)] == origin
	switch {
	case underBase:
		// The common case: s starts with the canonical base, whose
		// scheme and authority are valid and whose path needs no escaping.
		i = max(len(base), plain) // the base is copied with what follows it
		pathStart = len(base) - 1 // the base's own path has no dot segment
	case fast:
		i = len(origin) // the origin is copied with what follows it
		pathStart = len(origin) - 1
	default:
		rest, ok := cutScheme(s)
		if !ok {
			return b, ErrNotAbsolute
		}
		hostEnd := authorityLen(rest)
		i = hostEnd + len(s) - len(rest)
		if validAuthority(rest[:hostEnd]) {
			// The scheme and authority hold only ASCII letters, digits and ".-:[]".
			for j := range i {
				b = append(b, lower(s[j]))
			}
		} else if a, ok := idnaAuthority(rest[:hostEnd]); ok {
			for j := range len(s) - len(rest) {
				b = append(b, lower(s[j]))
			}
			b = append(b, a...)
		} else {
			return b, ErrBadHost
		}
		pathStart = len(b) - n
		if i == len(s) || s[i] != '/' {
			b = append(b, '/')
		}
	}
	extra := 0    // bytes of XML entities beyond one a character
	pathEnd := -1 // where the path ends, after n in b
	fragment := false
	dotAfterSlash := false // a '.' or '%' starts a segment: maybe a dot segment
	start := i             // s[start:i] is to be copied as it is
	if fast {
		start = 0
	}
	if plain <= 0 { // else i is plain, where copyRun stops
		i += copyRun(s[i:])
	}
	for {
		b = append(b, s[start:i]...)
		if i == len(s) {
			break
		}
		switch c := s[i]; uriClass[c] {
		case uriEncode:
			b = appendPct(b, c)
		case uriControl:
			return b[:n], ErrControl
		default:
			switch {
			case c >= utf8.RuneSelf:
				r, size := utf8.DecodeRuneInString(s[i:])
				if r == utf8.RuneError && size == 1 || r == 0xFFFE || r == 0xFFFF {
					return b[:n], ErrControl
				}
				for j := range size {
					b = appendPct(b, s[i+j])
				}
				i += size - 1
			case c == '.':
				dotAfterSlash = dotAfterSlash || pathEnd < 0 && b[len(b)-1] == '/'
				b = append(b, c)
			case c == '%':
				dotAfterSlash = dotAfterSlash || pathEnd < 0 && b[len(b)-1] == '/'
				if i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
					b = append(b, '%')
				} else {
					b = append(b, "%25"...)
				}
			case c == '&' && xmlText:
				b = append(b, "&amp;"...)
				extra += len("&amp;") - 1
			case c == '\'' && xmlText:
				b = append(b, "&apos;"...)
				extra += len("&apos;") - 1
			case c == '#' && fragment: // a second '#'
				b = appendPct(b, c)
			case c == '#' || c == '?':
				if pathEnd < 0 {
					pathEnd = len(b) - n
				}
				fragment = fragment || c == '#'
				b = append(b, c)
			default: // '&' or '\'' in plain text
				b = append(b, c)
			}
		}
		i++
		start = i
		i += copyRun(s[i:])
	}
	size := len(b) - n - extra
	if size >= maxLocLen {
		return b[:n], ErrTooLong
	}
	if base != "" && !underBase && !hasBase(b[n:], base) {
		return b[:n], ErrOutsideBase
	}
	if page {
		if pathEnd < 0 {
			pathEnd = len(b) - n
		}
		switch {
		case dotAfterSlash && hasDotSegment(b[n+pathStart:n+pathEnd]):
			return b[:n], ErrDotSegment
		case size < minLocLen:
			return b[:n], ErrTooShort
		}
	}
	return b, nil
}

// originOf returns the scheme and authority of base, a base URL in
// canonical form, with the slash that follows them: "https://example.com/"
// for "https://example.com/shop/". It returns "" for "".
func originOf(base string) string {
	if base == "" {
		return ""
	}
	return base[:pathOffset(base)+1]
}

// pathOffset returns where the path of an http or https URI starts.
func pathOffset(uri string) int {
	i := len("http://")
	if len(uri) > 4 && lower(uri[4]) == 's' {
		i++
	}
	return i + authorityLen(uri[min(i, len(uri)):])
}

// authorityLen returns the length of the authority at the start of s: up to
// the first '/', '?' or '#'.
func authorityLen(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '/' || c == '?' || c == '#' {
			return i
		}
	}
	return len(s)
}

// hasBase reports whether uri starts with base, comparing the scheme and
// host without regard to case and the path exactly.
func hasBase(uri []byte, base string) bool {
	if len(uri) < len(base) {
		return false
	}
	if string(uri[:len(base)]) == base {
		return true
	}
	hostEnd := pathOffset(base)
	for i := range hostEnd {
		if lower(uri[i]) != lower(base[i]) {
			return false
		}
	}
	return string(uri[hostEnd:len(base)]) == base[hostEnd:]
}

// hasDotSegment reports whether path has a "." or ".." segment,
// percent-encoded or not. A crawler would resolve it, possibly to a place
// outside the base URL.
func hasDotSegment(path []byte) bool {
	for {
		i := bytes.IndexByte(path, '/')
		if i < 0 {
			return false
		}
		path = path[i+1:]
		if len(path) > 0 && (path[0] == '.' || path[0] == '%') {
			end := bytes.IndexByte(path, '/')
			if end < 0 {
				end = len(path)
			}
			if isDotSegment(path[:end]) {
				return true
			}
		}
	}
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

// ParseBase checks a configured base URL and returns it in canonical form:
// lower-case scheme and host, no query or fragment, and a path that ends
// in '/'. Every loc a sitemap lists must start with it.
func ParseBase(s string) (string, error) {
	if s == "" {
		return "", errors.New("BaseURL is required")
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("BaseURL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("BaseURL %q is not an absolute http or https URL", s)
	}
	if u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || u.Opaque != "" {
		return "", fmt.Errorf("BaseURL %q must not have user info, a query or a fragment", s)
	}
	host := u.Host
	if !validAuthority(host) {
		a, ok := idnaAuthority(host)
		if !ok {
			return "", fmt.Errorf("BaseURL %q: %w", s, ErrBadHost)
		}
		host = a
	}
	path := u.EscapedPath()
	if !strings.HasSuffix(path, "/") {
		path += "/"
	}
	base := strings.ToLower(u.Scheme+"://"+host) + path
	if b, err := AppendURI(nil, base, "", true); err != nil || string(b) != base || hasDotSegment([]byte(path)) {
		return "", fmt.Errorf("BaseURL %q is not a valid sitemap location", s)
	}
	return base, nil
}
