package sitemap

import (
	"fmt"
	"net/http"
	"net/netip"
	"strings"
)

// Sites serves several sites from one process: a fixed set of Sitemaps,
// one per host, chosen by the request's host from that set alone. Create
// it with NewSites. Each Sitemap keeps its own cache, builds, locks and
// content clock; Sites only picks one, and a request whose host is not in
// the set reaches none of them, so it can never create a cache entry.
//
// A request's host is r.Host (the Host header, or HTTP/2's :authority, or
// the host of an absolute request line), compared with the host and port
// of each Sitemap's Config.BaseURL after normalising both:
//
//   - ASCII letters are compared ignoring case. A host with any non-ASCII
//     byte matches nothing: BaseURL hosts are already in punycode, and a
//     client's Unicode is not converted.
//   - A port the request omits (or leaves empty, "host:") is the default
//     port of the BaseURL's scheme (80 for http, 443 for https), so
//     "a.example:443" matches https://a.example and "b.example" does not
//     match https://b.example:8443. A request cannot tell its own scheme
//     behind a proxy, so none is assumed: the port alone decides.
//   - A port is a decimal from 1 to 65535 without a leading zero; any other
//     matches nothing.
//   - One trailing dot of a host name is ignored ("a.example.").
//   - An IPv6 literal is written in brackets ("[::1]:8080") and compared as
//     an address, so "[0:0::1]" is "[::1]"; one with a zone matches nothing.
//
// X-Forwarded-Host, Forwarded and every other header are never read: a
// proxy that rewrites the host must set the Host header itself. The path
// is then matched by the chosen Sitemap under its own base path, as its
// Handler and ServeHTTP do.
type Sites struct {
	byHost map[string]*Sitemap // host key (siteKeys) → its Sitemap
}

// NewSites returns the Sites serving each Sitemap at the host of its
// BaseURL. Every mistake is an error wrapping ErrConfig: no Sitemap, a nil
// one, or two that a request's host cannot tell apart (the same host and
// port, such as http://a.example and https://a.example, whose ports a
// request omitting its port cannot choose between). The Sitemaps stay the
// caller's to Close.
func NewSites(sites ...*Sitemap) (*Sites, error) {
	if len(sites) == 0 {
		return nil, fmt.Errorf("%w: no Sitemaps", ErrConfig)
	}
	ss := &Sites{byHost: make(map[string]*Sitemap, 2*len(sites))}
	for i, s := range sites {
		if s == nil {
			return nil, fmt.Errorf("%w: Sitemap %d is nil", ErrConfig, i)
		}
		keys, err := siteKeys(s.site.base)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrConfig, err)
		}
		for _, k := range keys {
			if other := ss.byHost[k]; other != nil {
				return nil, fmt.Errorf("%w: %s and %s have the same host %s", ErrConfig, other.site.base.url, s.site.base.url, k)
			}
			ss.byHost[k] = s
		}
	}
	return ss, nil
}

// Handler returns a middleware that gives a request for a listed host to
// that host's Sitemap.Handler (robots.txt and the sitemap paths answered,
// everything else passed to next), and passes a request for any other
// host to next untouched. next must not be nil.
func (ss *Sites) Handler(next http.Handler) http.Handler {
	byHost := make(map[string]http.Handler, len(ss.byHost))
	for k, s := range ss.byHost {
		byHost[k] = s.Handler(next)
	}
	return &sitesHandler{byHost: byHost, next: next}
}

type sitesHandler struct {
	byHost map[string]http.Handler // the Handler of each host's Sitemap
	next   http.Handler
}

func (h *sitesHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var buf [maxHostKey]byte
	if m, ok := h.byHost[string(requestHostKey(buf[:0], r.Host))]; ok {
		m.ServeHTTP(w, r)
		return
	}
	h.next.ServeHTTP(w, r)
}

// ServeHTTP answers a request for a listed host with that host's
// Sitemap.ServeHTTP (the sitemap paths alone), and any other host with a
// 404 that involves no Sitemap.
func (ss *Sites) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var buf [maxHostKey]byte
	if s, ok := ss.byHost[string(requestHostKey(buf[:0], r.Host))]; ok {
		s.ServeHTTP(w, r)
		return
	}
	http.NotFound(w, r)
}

// maxHostKey bounds a host key: a 253-byte name, a dot, a colon and five
// digits fit. A longer request host matches nothing.
const maxHostKey = 264

// siteKeys returns the host keys a canonical base URL answers to:
// "host:port" always, and "host" too when the port is its scheme's default.
func siteKeys(base baseURL) ([]string, error) {
	scheme, authority := base.scheme, base.host
	host, port, ok := splitHostPort(authority)
	if ok && port == "" {
		port = defaultPort(scheme)
	}
	var b []byte
	if ok {
		b = appendHost(nil, host)
	}
	if b == nil || !canonicalPort(port) {
		return nil, fmt.Errorf("BaseURL %s: host %q cannot be matched", base.url, authority)
	}
	h := string(b)
	keys := []string{h + ":" + port}
	if port == defaultPort(scheme) {
		keys = append(keys, h)
	}
	return keys, nil
}

func defaultPort(scheme string) string {
	if scheme == "http" {
		return "80"
	}
	return "443"
}

// requestHostKey appends to b the key of a request's host: the normalised
// host, then ":port" if it has a port. It returns b empty (nothing
// matches the empty key) for a host that matches no Sitemap by rule.
func requestHostKey(b []byte, hostport string) []byte {
	if len(hostport) >= maxHostKey {
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
