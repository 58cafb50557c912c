package sitemap

import (
	"net/http"
)

// Handler returns a middleware that serves robots.txt and the sitemap files
// and passes every other request to next untouched. With chi:
// r.Use(sm.Handler).
func (s *Sitemap) Handler(next http.Handler) http.Handler {
	m := &middleware{s: s, next: next, at: len(s.site.base.path), keyLen: -1, first: s.site.indexName[0]}
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
		serveFixed(w, r, st.keyFile.Body, hdrTextCT, st.keyFile.ETag, nil)
	case p == "/robots.txt":
		m.s.robotsNow(r.Context()).Serve(w, r, m.next)
	case st.indexName != rootName && len(p) == m.at+len(rootName) && p[m.at:] == rootName && p[:m.at] == st.base.path:
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
