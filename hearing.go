package sitemap

import (
	"sync"
	"time"
)

// hearing bounds what the other replicas' "changed" messages cost here:
// for each document, a change heard takes effect at most once every
// hearEvery; the changes that come sooner are folded into one, at the
// highest generation, that takes effect when the document's turn comes.
// So a flood of messages about a document costs at most about one rebuild
// of it a second, and the last change is never lost
// (TestMessageFloodBounded). Meanwhile a copy stored by the replica that
// said the change still reaches this one at once (documents.stored is not
// bounded here). What a change does is apply's business
// (documents.heard). An entry is kept only for a document heard of within
// the last hearEvery, or with a change waiting: memory bounded by the
// documents, not by the messages.
type hearing struct {
	every time.Duration
	apply func(k docKey, gen int64)
	done  <-chan struct{} // closed by close: what waits is dropped

	mu    sync.Mutex
	docs  map[docKey]*heard
	swept time.Time
}

// hearEvery is how often a change of one document heard from the others
// may take effect.
const hearEvery = time.Second

// heard is what hearing knows of one document.
type heard struct {
	at      time.Time // when a change of it last took effect
	waiting bool      // a change waits for its turn, at generation gen
	gen     int64
}

func newHearing(apply func(docKey, int64), done <-chan struct{}) *hearing {
	return &hearing{every: hearEvery, apply: apply, done: done, docs: make(map[docKey]*heard)}
}

// hear reports whether the change of k at generation gen takes effect
// now; if not, it is folded into the change that waits for k's turn,
// which a timer then applies.
func (h *hearing) hear(k docKey, gen int64) bool {
	now := time.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.sweep(now)
	e := h.docs[k]
	switch {
	case e == nil:
		h.docs[k] = &heard{at: now}
		return true
	case e.waiting:
		e.gen = max(e.gen, gen)
		return false
	case e.at.Add(h.every).After(now):
		e.waiting, e.gen = true, gen
		time.AfterFunc(e.at.Add(h.every).Sub(now), func() { h.turn(k) })
		return false
	}
	e.at = now
	return true
}

// waiting reports whether a change of k waits for its turn.
func (h *hearing) waiting(k docKey) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	e := h.docs[k]
	return e != nil && e.waiting
}

// turn applies the change of k that waited for its turn.
func (h *hearing) turn(k docKey) {
	h.mu.Lock()
	e := h.docs[k] // a waiting entry is never swept
	gen := e.gen
	e.waiting, e.at = false, time.Now()
	h.mu.Unlock()
	select {
	case <-h.done:
	default:
		h.apply(k, gen)
	}
}

// sweep forgets, at most once every hearEvery, the documents whose turn
// has come again and that have no change waiting.
func (h *hearing) sweep(now time.Time) {
	if now.Sub(h.swept) < h.every {
		return
	}
	h.swept = now
	for k, e := range h.docs {
		if !e.waiting && !e.at.Add(h.every).After(now) {
			delete(h.docs, k)
		}
	}
}

// size returns how many documents hearing holds an entry for.
func (h *hearing) size() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.docs)
}
