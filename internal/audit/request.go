package audit

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/freshmap/sitemap/internal/pagecheck"
)

// Stuck is how many audit requests whose handler went on past its
// deadline (it ignores its context, and writes on whatever a write
// returns) may be left running; while that many are, the audit requests
// nothing (Report.Skipped).
const Stuck = 4

// Errors the audit's recorder gives a handler's Write.
var (
	errAuditFull   = errors.New("sitemap: the self-audit reads no more of this answer")
	errAuditClosed = errors.New("sitemap: the self-audit stopped reading this answer")
)

// get sends a GET for u through app, in process, as a crawler's request
// would arrive (Host, RequestURI, TLS for https, a remote address on
// loopback), marked with Options.Header, under the audit's context and
// Timeout. It keeps the status, the headers and the first
// pagecheck.HeadBytes of the body.
//
// The handler runs on a goroutine of its own, and get ends as a crawler
// that hangs up would:
//
//  1. When the handler returns, its answer is read (TestAuditRecorder).
//  2. When its body passes pagecheck.HeadBytes, all a check reads, the
//     write that passes it fails and so does every later one, the
//     request's context is cancelled, and get waits for the handler to
//     return until the deadline (TestAuditEndlessPage).
//  3. At the deadline (Timeout, or Close), every later write fails and
//     the handler, if it still runs, is left to end on its own: its
//     answer so far is read, or it is an error if it wrote none
//     (TestAuditHungPage). At most Stuck are left running.
//
// A panic of the application is an error, whenever it comes.
func (a *Auditor[K]) get(app http.Handler, u *url.URL) (*auditAnswer, error) {
	ctx, cancel := context.WithTimeout(a.ctx, a.timeout)
	defer cancel()
	reqCtx, hangUp := context.WithCancel(ctx)
	defer hangUp()
	r, err := http.NewRequestWithContext(reqCtx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	r.RequestURI = u.RequestURI()
	r.RemoteAddr = "127.0.0.1:0"
	if u.Scheme == "https" {
		r.TLS = &tls.ConnectionState{HandshakeComplete: true, ServerName: u.Hostname(), Version: tls.VersionTLS13}
	}
	h := r.Header
	h.Set(a.o.Header, "1")
	h.Set("User-Agent", a.o.UserAgent)
	h.Set("Accept", "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8")
	rec := newAuditRecorder()
	done := make(chan struct{})
	a.handlers.Add(1)
	a.running.Add(1)
	go func() {
		defer a.handlers.Done()
		defer a.running.Add(-1)
		defer close(done)
		returned := false
		defer func() {
			switch p := recover(); {
			case p == http.ErrAbortHandler:
				rec.fail(errors.New("the handler aborted"))
			case p != nil:
				rec.fail(fmt.Errorf("the handler panicked: %v", p))
			case !returned:
				rec.fail(errors.New("the handler ended its goroutine"))
			}
		}()
		app.ServeHTTP(rec, r)
		returned = true
		rec.returned()
	}()
	select {
	case <-done:
	case <-rec.full:
		hangUp()
		rec.close()
		select {
		case <-done:
		case <-ctx.Done():
		}
	case <-ctx.Done():
	}
	rec.close()
	return rec.answer(a.timeout)
}

// auditAnswer is what an audit request got: the status, the headers
// sent with it and the start of the body.
type auditAnswer struct {
	status int
	sent   http.Header
	body   []byte
}

// auditRecorder is the http.ResponseWriter of an audit request: it keeps
// the status, the headers as they were when it was set, and at most
// pagecheck.HeadBytes of the body. A write past that, or after close,
// fails. It is safe to use from the handler's goroutine while the audit
// reads it.
type auditRecorder struct {
	header http.Header   // the handler's alone
	full   chan struct{} // closed when a write passes pagecheck.HeadBytes

	mu     sync.Mutex
	sent   http.Header // the headers at WriteHeader
	status int
	wrote  bool
	body   []byte
	closed bool  // no write is taken any more
	done   bool  // the handler returned
	err    error // the handler panicked (or ended its goroutine)
}

func newAuditRecorder() *auditRecorder {
	return &auditRecorder{header: make(http.Header), full: make(chan struct{})}
}

func (w *auditRecorder) Header() http.Header { return w.header }

func (w *auditRecorder) WriteHeader(code int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writeHeader(code)
}

func (w *auditRecorder) writeHeader(code int) {
	if w.wrote || w.closed || code < 200 { // informational answers are not the answer
		return
	}
	w.status, w.wrote, w.sent = code, true, w.header.Clone()
}

func (w *auditRecorder) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return 0, errAuditClosed
	}
	w.writeHeader(http.StatusOK)
	room := pagecheck.HeadBytes - len(w.body)
	if len(p) <= room {
		w.body = append(w.body, p...)
		return len(p), nil
	}
	w.body = append(w.body, p[:room]...)
	w.closed = true
	close(w.full)
	return room, errAuditFull
}

// Flush does nothing: the answer is read when the handler returns.
func (w *auditRecorder) Flush() {}

// close makes every later write fail.
func (w *auditRecorder) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
}

// returned notes that the handler returned.
func (w *auditRecorder) returned() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done = true
}

// fail notes that the handler panicked, or ended its goroutine.
func (w *auditRecorder) fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed, w.err = true, err
}

// answer is what the handler answered so far: the status and headers it
// sent, or 200 and its headers if it returned without a write; an error
// if it panicked, or if it wrote nothing before timeout.
func (w *auditRecorder) answer(timeout time.Duration) (*auditAnswer, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.err != nil:
		return nil, w.err
	case w.wrote:
		return &auditAnswer{status: w.status, sent: w.sent, body: w.body}, nil
	case w.done:
		return &auditAnswer{status: http.StatusOK, sent: w.header, body: w.body}, nil // the handler returned: its header is ours now
	}
	return nil, fmt.Errorf("no answer within %v", timeout)
}
