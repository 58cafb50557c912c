package sitemap

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// The errors of a load (documents.go), which crawlers never see: each
// becomes a status, and is logged.
var (
	// errNotFound means the document does not exist (404).
	errNotFound = errors.New("no such page")
	// errOverPageSize means a Source yielded more URLs for a page than
	// the section's page size (encodePage).
	errOverPageSize = errors.New("more URLs than the section's page size")
	// errPanic wraps a panic of a Source.
	errPanic = errors.New("source panicked")
	// errGoexit wraps a runtime.Goexit of a Source (t.FailNow calls it).
	errGoexit = errors.New("source called runtime.Goexit")
	// errBackoff means the document's last build failed less than
	// RetryAfter ago, and there is no copy to serve (503).
	errBackoff = errors.New("the last build failed; not retried yet")
	// errBusy means Config.MaxWaiting requests already wait for builds (503).
	errBusy = errors.New("too many requests waiting for builds")
	// errWaitTimeout means a build took longer than BuildTimeout (503).
	errWaitTimeout = errors.New("build timeout")
	// errClosed means Close was called: no build starts, and one that
	// ends after it keeps nothing (503).
	errClosed = errors.New("closed")
)

// failureError is a failed build as its requests get it: err, the cause,
// which only the log shows, and ref, a reference that the log line of the
// failure and the 503 of each request it failed both carry
// (unavailableText), so that an owner can find the cause of what a
// crawler or a person saw.
type failureError struct {
	ref  string
	file string // the file whose build failed, as its URL names it
	at   time.Time
	err  error
}

func (e *failureError) Error() string { return e.err.Error() }
func (e *failureError) Unwrap() error { return e.err }

// newFailureRef returns a new failure reference: 8 random hex digits,
// which tell nothing of the cause.
func newFailureRef() string {
	var b [4]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// panicError is a panic of a Source, or its runtime.Goexit (goexit), with
// the stack where it happened.
type panicError struct {
	value  any
	stack  []byte
	goexit bool
}

func (p *panicError) Error() string {
	if p.goexit {
		return errGoexit.Error()
	}
	return fmt.Sprintf("%v: %v", errPanic, p.value)
}

func (p *panicError) Unwrap() error {
	if p.goexit {
		return errGoexit
	}
	return errPanic
}

// failures remembers the documents whose last build failed, so that none
// is built again before Config.RetryAfter: requests in that window get the
// last good copy, or 503 at once, and a Source that is down is not asked
// again by every request. A failure is remembered apart from the cache,
// never as content. Only documents the index lists (and the index) are
// ever built, so the set is small; it is bounded all the same.
type failures struct {
	mu  sync.Mutex
	lru *simplelru.LRU[docKey, failure]
}

// failure is the last failed build of a document.
type failure struct {
	until time.Time     // k is not rebuilt before
	err   *failureError // as its requests got it: the reference its log line has
}

const maxFailures = 4096

func newFailures() *failures {
	lru, _ := simplelru.NewLRU[docKey, failure](maxFailures, nil)
	return &failures{lru: lru}
}

// failed records that k failed, as err tells: no new build before until.
func (f *failures) failed(k docKey, until time.Time, err *failureError) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lru.Add(k, failure{until: until, err: err})
}

// backoff returns the error of a request for k while its last failure
// holds: errBackoff, with that failure's reference (so that the 503 names
// the log line of the cause).
func (f *failures) backoff(k docKey) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if x, ok := f.lru.Peek(k); ok && x.err != nil {
		return &failureError{ref: x.err.ref, file: x.err.file, at: x.err.at, err: errBackoff}
	}
	return errBackoff
}

// recent reports whether k failed and may not be rebuilt yet at now.
func (f *failures) recent(k docKey, now time.Time) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	x, ok := f.lru.Peek(k)
	if ok && !now.Before(x.until) {
		f.lru.Remove(k)
		return false
	}
	return ok
}

// forget clears the failure of k: a build succeeded, or the application
// said k changed.
func (f *failures) forget(k docKey) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lru.Remove(k)
}

// unavailableText is the body of a 503 for err: why, in words that are
// safe for anyone to read. The Source's own error (a database's message,
// a host name, a query) never reaches the public: a failed build is
// named by its failure reference and time, which its log line ("sitemap:
// build failed", attribute failure) carries with the cause
// (TestUnavailableSaysWhy).
func unavailableText(err error, retryAfter time.Duration) string {
	const head = "sitemap temporarily unavailable: "
	var fe *failureError
	switch {
	case errors.As(err, &fe) && errors.Is(err, errBackoff):
		return head + "the last build of " + fe.file + " failed (failure " + fe.ref + " at " + fe.at.UTC().Format(time.RFC3339) +
			"; the server's log has the cause); it is retried after " + retryAfter.String()
	case errors.As(err, &fe):
		return head + "the build of " + fe.file + " failed (failure " + fe.ref + " at " + fe.at.UTC().Format(time.RFC3339) +
			"; the server's log has the cause)"
	case errors.Is(err, errBackoff):
		return head + "its last build failed; it is retried after " + retryAfter.String()
	case errors.Is(err, errWaitTimeout):
		return head + "its build takes longer than the build timeout"
	case errors.Is(err, errBusy):
		return head + "too many requests are waiting for builds"
	case errors.Is(err, errClosed):
		return head + "the server is shutting down"
	}
	return head + "it could not be built"
}
