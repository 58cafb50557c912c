package sitemap

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"
)

// quote shortens a loc for an error message, cutting it at a rune
// boundary.
func quote(s string) string {
	const max = 200
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return `"` + s + `"`
}

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
