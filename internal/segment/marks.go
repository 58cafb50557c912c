package segment

import "sync"

// MaxSegments bounds the segments a Source cuts a page into.
const MaxSegments = 1000

// Marks keeps, for each page (by key K) of a Source that cuts its own
// segments, which of them were said to have changed since the copy a
// build made last (its base): a rebuild then reads those again and keeps
// the others. A change said any other way (Unknown) or a build that did
// not end makes the base unknown, and the next build reads the page
// whole. It holds a record per page built, and at most MaxSegments marks
// in each. The zero Marks is ready; a nil *Marks keeps nothing.
type Marks[K comparable] struct {
	mu     sync.Mutex
	m      map[K]*pageMarks
	builds uint64
	saying int // changes being said (Saying): Mark or Unknown told, the ledger not yet
}

// pageMarks is one page's marks.
type pageMarks struct {
	base    uint64 // the hash of the copy the marks are relative to
	known   bool   // base is known: nothing else was said since that copy
	pending uint64 // the build whose copy will be the base, 0 if none
	segs    map[int]bool
}

// Taken is what a build took of its page's record.
type Taken struct {
	build  uint64 // the build's number, to tell its copy (Built)
	Base   uint64 // the hash of the copy the marks are relative to
	Segs   map[int]bool
	Marked bool // some segments were marked
	OK     bool // Base is known and some segments were marked
}

// Mark says that segments segs of page k changed. A page never built
// (no record) is built whole anyway: nothing is kept for it.
func (s *Marks[K]) Mark(k K, segs []int) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.m[k]
	if r == nil {
		return
	}
	for _, i := range segs {
		if i >= 0 && i < MaxSegments {
			r.segs[i] = true
		}
	}
}

// Unknown says that keys changed in ways the marks do not tell.
func (s *Marks[K]) Unknown(keys ...K) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range keys {
		if r := s.m[k]; r != nil {
			r.known, r.pending = false, 0
		}
	}
}

// Take gives a build of k, about to read its Source, the marks since the
// base, and starts a new record whose base is to be the copy this build
// makes (Built).
func (s *Marks[K]) Take(k K) Taken {
	if s == nil {
		return Taken{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = make(map[K]*pageMarks)
	}
	s.builds++
	t := Taken{build: s.builds}
	if r := s.m[k]; r != nil {
		t.Base, t.Segs, t.Marked = r.base, r.segs, len(r.segs) > 0
		t.OK = r.known && r.pending == 0 && t.Marked
	}
	s.m[k] = &pageMarks{pending: s.builds, segs: make(map[int]bool)}
	return t
}

// Built says that the build t made a copy of k whose hash is hash: the
// base of the marks said since it took them, unless something else was
// said since.
func (s *Marks[K]) Built(k K, t Taken, hash uint64) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.m[k]; r != nil && r.pending == t.build {
		r.base, r.known, r.pending = hash, true, 0
	}
}

// Saying says that a change is being said (Mark or Unknown, then the
// caller's own record that the page changed, which Adopted's current
// reads); done says it was. While one is, no copy is Adopted: a Mark of
// a page with no record is dropped, and the copy taken may be from
// before the change, which its record, not yet told, still calls current.
func (s *Marks[K]) Saying() (done func()) {
	if s == nil {
		return func() {}
	}
	s.mu.Lock()
	s.saying++
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		s.saying--
		s.mu.Unlock()
	}
}

// Adopted says that the copy of k is now one whose hash is hash, taken
// from elsewhere (a Store), not built here: it becomes the base of k's
// marks, with none, as a build's copy does (Built), if current, asked
// under the lock, reports it made after every change said of k; and if no
// change is being said (Saying) and no build of k is under way (whose
// copy is to be the base). Else nothing changes: the next build of k
// reads it whole, as without a record.
func (s *Marks[K]) Adopted(k K, hash uint64, current func() bool) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = make(map[K]*pageMarks)
	}
	r := s.m[k]
	if s.saying > 0 || r != nil && r.pending != 0 || !current() {
		return
	}
	s.m[k] = &pageMarks{base: hash, known: true, segs: make(map[int]bool)}
}
