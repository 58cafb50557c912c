package sitemap

import (
	"fmt"
	"net/http"

	"github.com/freshmap/sitemap/internal/hostkey"
	"github.com/freshmap/sitemap/internal/respond"
)

// Handler returns a middleware that serves robots.txt and the sitemap files
// and passes every other request to next untouched. With chi:
// r.Use(sm.Handler).
func (s *Sitemap) Handler(next http.Handler) http.Handler {
	m := &middleware{s: s, next: next, at: len(s.site.base.path), keyLen: -1, first: s.site.IndexName[0]}
	if kf := s.site.keyFile; kf != nil {
		m.keyLen = len(kf.Path)
	}
	if a := s.rep.audit; a != nil {
		a.Attach(m) // the audit requests pages as a crawler would: through the middleware
	}
	return m
}

type middleware struct {
	s    *Sitemap
	next http.Handler
	at   int // where a sitemap file name starts in a path: after the base path
	// keyLen is the length of the IndexNow key file's path; -1 without one.
	keyLen int
	first  byte // the first byte of the index's name (Config.IndexName)
}

func (m *middleware) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Most requests are not ours: one byte and a length tell, before any
	// call. Sitemap names start with 's' right after the base path.
	if p := r.URL.Path; len(p) > m.at && (p[m.at] == 's' || p[m.at] == m.first) || len(p) == len("/robots.txt") || len(p) == m.keyLen {
		m.serve(w, r, p)
		return
	}
	m.next.ServeHTTP(w, r)
}

func (m *middleware) serve(w http.ResponseWriter, r *http.Request, p string) {
	st := m.s.site
	switch {
	case st.keyFile != nil && p == st.keyFile.Path:
		respond.Fixed(w, r, st.keyFile.Body, respond.HdrTextCT, st.keyFile.ETag, nil)
	case p == "/robots.txt":
		m.s.robotsNow(r.Context()).Serve(w, r, m.next)
	case st.IndexName != rootName && len(p) == m.at+len(rootName) && p[m.at:] == rootName && p[:m.at] == st.base.path:
		m.serveRoot(w, r)
	case st.owns(p):
		m.s.ServeHTTP(w, r)
	default:
		m.next.ServeHTTP(w, r)
	}
}

// serveRoot answers BASE/sitemap.xml when the index has another name: the
// application is asked first, and its answer goes out as it is unless it
// is a 404, which is replaced by the index (the same bytes and validators
// as at the index's name). So an application with a sitemap.xml of its
// own keeps it, one without gets the index where crawlers and people look
// first, and nothing need be configured. A 200 rather than a redirect:
// one request, not two, for crawlers and for the tools that follow no
// redirect, and the files the index lists are in the same directory, as
// the protocol asks. An application that answers every path (a catch-all
// route) has a sitemap.xml to us: name the index sitemap.xml then
// (Config.IndexName), and the path is ours alone.
func (m *middleware) serveRoot(w http.ResponseWriter, r *http.Request) {
	aw := &appRoot{w: w}
	m.next.ServeHTTP(aw, r)
	if aw.notFound {
		m.s.ServeHTTP(w, r)
		return
	}
	aw.commit(http.StatusOK) // an answer with no status or body: a 200, as net/http sends it
}

// appRoot is the ResponseWriter the application answers sitemap.xml
// through: its header is kept apart until its status is known; a 404 is
// dropped, header and body, and anything else goes out as written.
type appRoot struct {
	w        http.ResponseWriter
	h        http.Header
	sent     bool // the status went to w
	notFound bool // the application answered 404: drop the rest
}

func (a *appRoot) Header() http.Header {
	if a.sent {
		return a.w.Header()
	}
	if a.h == nil {
		a.h = http.Header{}
	}
	return a.h
}

func (a *appRoot) WriteHeader(code int) {
	if a.notFound || a.sent {
		if a.sent {
			a.w.WriteHeader(code) // superfluous, or 1xx after: net/http's to judge
		}
		return
	}
	if code == http.StatusNotFound {
		a.notFound = true
		return
	}
	if code >= 100 && code < 200 && code != http.StatusSwitchingProtocols {
		a.copyHeader()
		a.w.WriteHeader(code)
		return
	}
	a.commit(code)
}

// commit sends the application's header and status, once.
func (a *appRoot) commit(code int) {
	if a.sent || a.notFound {
		return
	}
	a.copyHeader()
	a.sent = true
	a.w.WriteHeader(code)
}

func (a *appRoot) copyHeader() {
	h := a.w.Header()
	for k, v := range a.h {
		h[k] = v
	}
}

func (a *appRoot) Write(b []byte) (int, error) {
	if a.notFound {
		return len(b), nil
	}
	a.commit(http.StatusOK)
	return a.w.Write(b)
}

// Flush sends what the application wrote, if it is not a 404.
func (a *appRoot) Flush() {
	if a.notFound {
		return
	}
	a.commit(http.StatusOK)
	if f, ok := a.w.(http.Flusher); ok {
		f.Flush()
	}
}

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
	byHost map[string]*Sitemap // host key (internal/hostkey) → its Sitemap
	serve  hostkey.Router      // ServeHTTP: to byHost's Sitemaps, else a 404
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
		keys, ok := hostkey.Keys(s.site.base.scheme, s.site.base.host)
		if !ok {
			return nil, fmt.Errorf("%w: BaseURL %s: host %q cannot be matched", ErrConfig, s.site.base.url, s.site.base.host)
		}
		for _, k := range keys {
			if other := ss.byHost[k]; other != nil {
				return nil, fmt.Errorf("%w: %s and %s have the same host %s", ErrConfig, other.site.base.url, s.site.base.url, k)
			}
			ss.byHost[k] = s
		}
	}
	ss.serve = hostkey.Router{ByHost: make(map[string]http.Handler, len(ss.byHost)), Next: http.NotFoundHandler()}
	for k, s := range ss.byHost {
		ss.serve.ByHost[k] = s
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
	return &hostkey.Router{ByHost: byHost, Next: next}
}

// ServeHTTP answers a request for a listed host with that host's
// Sitemap.ServeHTTP (the sitemap paths alone), and any other host with a
// 404 that involves no Sitemap.
func (ss *Sites) ServeHTTP(w http.ResponseWriter, r *http.Request) { ss.serve.ServeHTTP(w, r) }
