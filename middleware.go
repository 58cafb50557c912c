package sitemap

import (
	"net/http"
)

// Handler returns a middleware that serves robots.txt and the sitemap files
// and passes every other request to next untouched. With chi:
// r.Use(sm.Handler).
func (s *Sitemap) Handler(next http.Handler) http.Handler {
	m := &middleware{s: s, next: next, at: len(s.site.base.path), keyLen: -1}
	if kf := s.site.keyFile; kf != nil {
		m.keyLen = len(kf.path)
	}
	if a := s.rep.audit; a != nil {
		a.attach(m) // the audit requests pages as a crawler would: through the middleware
	}
	return m
}

type middleware struct {
	s    *Sitemap
	next http.Handler
	at   int // where a sitemap file name starts in a path: after the base path
	// keyLen is the length of the IndexNow key file's path; -1 without one.
	keyLen int
}

func (m *middleware) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Most requests are not ours: one byte and a length tell, before any
	// call. Sitemap names start with 's' right after the base path.
	if p := r.URL.Path; len(p) > m.at && p[m.at] == 's' || len(p) == len("/robots.txt") || len(p) == m.keyLen {
		m.serve(w, r, p)
		return
	}
	m.next.ServeHTTP(w, r)
}

func (m *middleware) serve(w http.ResponseWriter, r *http.Request, p string) {
	st := m.s.site
	switch {
	case st.keyFile != nil && p == st.keyFile.path:
		st.keyFile.serve(w, r)
	case p == "/robots.txt":
		m.s.robotsNow(r.Context()).serve(w, r, m.next)
	case st.owns(p):
		m.s.ServeHTTP(w, r)
	default:
		m.next.ServeHTTP(w, r)
	}
}
