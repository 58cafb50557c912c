package sitemap

import (
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

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
