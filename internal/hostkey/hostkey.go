// Package hostkey normalises hosts for matching a request to a site: the
// key of a site's base URL and of a request's host (ASCII case folded, one
// trailing dot dropped, the default port made explicit, an IPv6 literal in
// one form), so that equal keys name the same site and a host that breaks
// a rule has no key. The root's Sites holds its table of sites by these
// keys and states the rules for its users.
package hostkey

import (
	"net/http"
	"net/netip"
	"strings"
)

// MaxLen bounds a host key: a 253-byte name, a dot, a colon and five
// digits fit. A longer request host matches nothing.
const MaxLen = 264

// Keys returns the host keys of a base URL's scheme and authority, both
// canonical (as the root's New makes them): "host:port" always, and "host"
// too when the port is its scheme's default. It reports false for a host
// no request could match.
func Keys(scheme, authority string) ([]string, bool) {
	host, port, ok := splitHostPort(authority)
	if ok && port == "" {
		port = defaultPort(scheme)
	}
	var b []byte
	if ok {
		b = appendHost(nil, host)
	}
	if len(b) == 0 || !canonicalPort(port) { // appendHost may give an empty non-nil slice
		return nil, false
	}
	h := string(b)
	keys := []string{h + ":" + port}
	if port == defaultPort(scheme) {
		keys = append(keys, h)
	}
	return keys, true
}

func defaultPort(scheme string) string {
	if scheme == "http" {
		return "80"
	}
	return "443"
}

// Append appends to b the key of a request's host: the normalised
// host, then ":port" if it has a port. It returns b empty (nothing
// matches the empty key) for a host that matches no site by rule.
func Append(b []byte, hostport string) []byte {
	if len(hostport) >= MaxLen {
		return b[:0]
	}
	host, port, ok := splitHostPort(hostport)
	if !ok || port != "" && !canonicalPort(port) {
		return b[:0]
	}
	b = appendHost(b, host)
	if len(b) == 0 || port == "" {
		return b
	}
	b = append(b, ':')
	return append(b, port...)
}

// splitHostPort splits an authority into its host (brackets kept for an
// IPv6 literal) and port ("" when omitted or empty). It reports false for
// an unbracketed host with more than one colon or a bracket out of place.
func splitHostPort(a string) (host, port string, ok bool) {
	if strings.HasPrefix(a, "[") {
		end := strings.IndexByte(a, ']')
		if end < 0 {
			return "", "", false
		}
		host, rest := a[:end+1], a[end+1:]
		if rest == "" {
			return host, "", true
		}
		if rest[0] != ':' {
			return "", "", false
		}
		return host, rest[1:], true
	}
	host, port, _ = strings.Cut(a, ":")
	if strings.ContainsAny(port, ":[]") || strings.ContainsAny(host, "[]") {
		return "", "", false
	}
	return host, port, true
}

// canonicalPort reports whether p is 1 to 65535 in decimal without a
// leading zero.
func canonicalPort(p string) bool {
	if len(p) == 0 || len(p) > 5 || p[0] == '0' {
		return false
	}
	n := 0
	for i := 0; i < len(p); i++ {
		if p[i] < '0' || p[i] > '9' {
			return false
		}
		n = n*10 + int(p[i]-'0')
	}
	return n <= 65535
}

// appendHost appends host normalised: ASCII lower case, one trailing dot
// removed, an IPv6 literal in netip's form inside brackets. It appends
// nothing for an empty host, a non-ASCII byte, or a bad IPv6 literal.
func appendHost(b []byte, host string) []byte {
	if strings.HasPrefix(host, "[") {
		addr, err := netip.ParseAddr(host[1 : len(host)-1])
		if err != nil || !addr.Is6() || addr.Zone() != "" {
			return b
		}
		b = append(b, '[')
		b = addr.AppendTo(b)
		return append(b, ']')
	}
	host = strings.TrimSuffix(host, ".")
	if host == "" {
		return b
	}
	start := len(b)
	for i := 0; i < len(host); i++ {
		c := host[i]
		switch {
		case c >= 0x80:
			return b[:start] // Unicode is never converted: strings.ToLower would map "\u212a" (Kelvin) to "k"
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}

// Router sends a request to the handler of its host's key (Append), and
// a request for any other host to Next.
type Router struct {
	ByHost map[string]http.Handler
	Next   http.Handler
}

func (h *Router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var buf [MaxLen]byte
	if m, ok := h.ByHost[string(Append(buf[:0], r.Host))]; ok {
		m.ServeHTTP(w, r)
		return
	}
	h.Next.ServeHTTP(w, r)
}
