package sitemap

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"net/url"

	"github.com/freshmap/sitemap/internal/pagecheck"
)

// get sends a GET for u through app, in process, as a crawler's request
// would arrive (Host, RequestURI, TLS for https, a remote address on
// loopback), marked with AuditHeader, under the audit's context and
// Timeout. It keeps the status, the headers and the first
// pagecheck.HeadBytes of the body; the rest is discarded as it is written.
// A panic of the application is an error.
func (a *auditor) get(app http.Handler, u *url.URL) (rec *auditRecorder, err error) {
	ctx, cancel := context.WithTimeout(a.ctx, a.timeout)
	defer cancel()
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	r.RequestURI = u.RequestURI()
	r.RemoteAddr = "127.0.0.1:0"
	if u.Scheme == "https" {
		r.TLS = &tls.ConnectionState{HandshakeComplete: true, ServerName: u.Hostname(), Version: tls.VersionTLS13}
	}
	h := r.Header
	h.Set(AuditHeader, "1")
	h.Set("User-Agent", auditUserAgent)
	h.Set("Accept", "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8")
	rec = &auditRecorder{header: make(http.Header)}
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				rec, err = nil, fmt.Errorf("the handler aborted")
				return
			}
			rec, err = nil, fmt.Errorf("the handler panicked: %v", p)
		}
	}()
	app.ServeHTTP(rec, r)
	if ctx.Err() != nil && !rec.wrote {
		return nil, fmt.Errorf("no answer within %v", a.timeout)
	}
	if !rec.wrote {
		rec.status, rec.sent = http.StatusOK, rec.header
	}
	return rec, nil
}

// auditRecorder is the http.ResponseWriter of an audit request: it keeps
// the status, the headers as they were when it was set, and at most
// pagecheck.HeadBytes of the body.
type auditRecorder struct {
	header http.Header
	sent   http.Header // the headers at WriteHeader
	status int
	wrote  bool
	body   []byte
}

func (w *auditRecorder) Header() http.Header { return w.header }

func (w *auditRecorder) WriteHeader(code int) {
	if w.wrote || code < 200 { // informational answers are not the answer
		return
	}
	w.status, w.wrote, w.sent = code, true, w.header.Clone()
}

func (w *auditRecorder) Write(p []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	if room := pagecheck.HeadBytes - len(w.body); room > 0 {
		w.body = append(w.body, p[:min(len(p), room)]...)
	}
	return len(p), nil
}

// Flush does nothing: the answer is read when the handler returns.
func (w *auditRecorder) Flush() {}
