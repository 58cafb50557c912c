// Package rebuild runs background rebuilds of documents, asked for by
// key: at most one waiting per document, each at most once a turn, the
// index after the pages, on workers that exist only while there is work.
// The root package's Invalidate asks it; it knows nothing of sitemaps.
package rebuild

import (
	"container/heap"
	"sync"
	"time"
)

// Queue runs the rebuilds of documents named by keys of type K, in the
// background, with work bounded by the number of documents, never by the
// number of asks. One key is the index, which depends on every other
// document (pages). The rules, each held by a test (here, or in the root
// package, whose Invalidate asks):
//
//  1. A document waits at most once: asked again while it waits, nothing
//     more is queued (TestInvalidateStorm); asked while it is being
//     rebuilt, it is rebuilt once more after, as that build may have read
//     the data from before the change (TestInvalidateDuringRebuild).
//  2. A document's rebuild starts at most once a turn (Every); one
//     asked sooner waits for its turn (TestInvalidateStorm).
//  3. The index waits until no page is ready or being rebuilt, and for
//     the pages that wait for their turn at most a turn, then is
//     rebuilt once for all of them, within the same bound
//     (TestRebuildsAgainAndTurn, TestRebuildsIndexNotStarved,
//     TestInvalidate).
//  4. At most max rebuilds run at once, on workers that exist only while
//     there is work (one of them sleeping until a rebuild that waits for
//     its turn is due), and that end once done is closed
//     (TestInvalidateCloseEndsWorkers, TestRebuildsDone,
//     TestCloseStopsEverything).
//
// What a rebuild is, is build's business (the root's documents.rebuild):
// it may find that the document needs none by now.
type Queue[K comparable] struct {
	every time.Duration
	max   int
	start func(f func()) bool // runs f on a goroutine that close waits for, or reports false once closed
	build func(k K)
	index K               // the index's key
	done  <-chan struct{} // closed by close: workers end
	wake  chan struct{}   // the sleeping worker has work that cannot wait for its timer

	mu       sync.Mutex
	docs     map[K]*rebuild // documents asked for within the last turn (every), or waiting
	ready    []K            // pages due now, in the order asked
	later    dueHeap[K]     // pages waiting for their turn, soonest first
	workers  int            // workers running
	sleeping bool           // one worker sleeps until the soonest of later (or the index) is due
	busy     int            // pages being rebuilt
	swept    time.Time      // when docs was last swept
}

// Every is how often one document may be rebuilt.
const Every = time.Second

// rebuild is what a Queue knows of one document.
type rebuild struct {
	last     time.Time // when its last rebuild started
	waiting  bool      // asked for, not started: in ready or later (a page), or the index
	asked    time.Time // the index: when it began to wait
	building bool
	again    bool // asked for while building: once more after
}

// New returns the Queue that rebuilds each document with build, index
// the key of the index, on at most max goroutines that start runs (start
// reports false once closed: a rebuild asked for then is not run), until
// done is closed.
func New[K comparable](max int, index K, start func(func()) bool, build func(K), done <-chan struct{}) *Queue[K] {
	return &Queue[K]{every: Every, max: max, index: index, start: start, build: build, done: done,
		wake: make(chan struct{}, 1), docs: make(map[K]*rebuild)}
}

// SetTurn sets how often one document may be rebuilt (Every unless set;
// zero: as often as asked, which a test with a fake clock wants). Call it
// before the first Ask.
func (r *Queue[K]) SetTurn(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.every = d
}

// Ask asks for a rebuild of each of pages, then of the index.
func (r *Queue[K]) Ask(pages []K) {
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, k := range pages {
		r.askOne(k, now)
	}
	r.askOne(r.index, now)
	r.spawn()
}

func (r *Queue[K]) askOne(k K, now time.Time) {
	st := r.docs[k]
	if st == nil {
		st = &rebuild{}
		r.docs[k] = st
	}
	switch {
	case st.waiting: // it waits already: nothing more
	case st.building:
		st.again = true
	default:
		r.queue(k, st, now)
	}
}

// queue makes k wait: a page in ready if its turn has come, else in later;
// the index is found by next, once the pages are done.
func (r *Queue[K]) queue(k K, st *rebuild, now time.Time) {
	st.waiting = true
	if k == r.index {
		st.asked = now
		return
	}
	if at := st.last.Add(r.every); at.After(now) {
		heap.Push(&r.later, due[K]{at: at, k: k})
	} else {
		r.ready = append(r.ready, k)
	}
}

// spawn starts the workers the waiting work needs, up to max, and wakes the
// sleeping one, whose timer may be later than what now waits.
func (r *Queue[K]) spawn() {
	if r.sleeping {
		r.wakeSleeper()
	}
	idle := r.workers - r.busy
	if ix := r.docs[r.index]; ix != nil && ix.building {
		idle--
	}
	for r.workers < r.max && (r.workers == 0 || idle < len(r.ready)) && r.start(r.work) {
		r.workers++
		idle++
	}
}

// wakeSleeper makes the sleeping worker look again.
func (r *Queue[K]) wakeSleeper() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// work is one worker: it rebuilds what next gives until nothing is left.
func (r *Queue[K]) work() {
	slept := false
	for {
		k, sleep, ok := r.next(time.Now(), slept)
		switch {
		case !ok:
			return
		case sleep > 0:
			slept = true
			t := time.NewTimer(sleep)
			select {
			case <-t.C:
			case <-r.wake:
			case <-r.done:
			}
			t.Stop()
			continue
		}
		slept = false
		r.build(k)
		r.finish(k, time.Now())
	}
}

// next returns the document to rebuild now; or, for one worker at a time,
// how long to sleep before it looks again; or ok false: the worker ends.
// slept says the worker is the one that slept.
func (r *Queue[K]) next(now time.Time, slept bool) (k K, sleep time.Duration, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if slept {
		r.sleeping = false
	}
	select {
	case <-r.done:
		r.workers--
		return *new(K), 0, false
	default:
	}
	for len(r.later) > 0 && !r.later[0].at.After(now) {
		r.ready = append(r.ready, heap.Pop(&r.later).(due[K]).k)
	}
	if len(r.ready) > 0 {
		k, r.ready = r.ready[0], r.ready[1:]
		if len(r.ready) == 0 {
			r.ready = nil
		}
		r.busy++
		r.begin(k, now)
		return k, 0, true
	}
	var wake time.Time // when something waiting is due
	if len(r.later) > 0 {
		wake = r.later[0].at
	}
	if ix := r.docs[r.index]; ix != nil && ix.waiting && r.busy == 0 {
		at := ix.last.Add(r.every) // its turn
		if wait := ix.asked.Add(r.every); len(r.later) > 0 && wait.After(at) {
			at = wait // the pages that wait for their turn, for a while
		}
		if !at.After(now) {
			r.begin(r.index, now)
			return r.index, 0, true
		}
		if wake.IsZero() || at.Before(wake) {
			wake = at
		}
	}
	r.sweep(now)
	if wake.IsZero() || r.sleeping {
		if r.sleeping && !wake.IsZero() {
			r.wakeSleeper() // to sleep until wake, if it is sooner
		}
		r.workers--
		return *new(K), 0, false
	}
	r.sleeping = true
	return *new(K), wake.Sub(now), true
}

func (r *Queue[K]) begin(k K, now time.Time) {
	st := r.docs[k]
	st.waiting, st.building, st.last = false, true, now
}

// finish records that the rebuild of k ended, and queues it once more if
// it was asked for meanwhile.
func (r *Queue[K]) finish(k K, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.docs[k]
	st.building = false
	if k != r.index {
		r.busy--
	}
	if st.again {
		st.again = false
		r.queue(k, st, now)
		r.spawn()
	}
}

// sweep forgets, at most once a turn, the documents whose turn
// has come again and that do not wait: docs holds only those asked for
// lately, or waiting.
func (r *Queue[K]) sweep(now time.Time) {
	if now.Sub(r.swept) < r.every {
		return
	}
	r.swept = now
	for k, st := range r.docs {
		if !st.waiting && !st.building && !st.last.Add(r.every).After(now) {
			delete(r.docs, k)
		}
	}
}

// Waiting returns how many documents wait for a rebuild and how many are
// being rebuilt.
func (r *Queue[K]) Waiting() (waiting, building int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, st := range r.docs {
		if st.waiting || st.again {
			waiting++
		}
		if st.building {
			building++
		}
	}
	return waiting, building
}

// due is a page that waits for its turn, at at.
type due[K comparable] struct {
	at time.Time
	k  K
}

// dueHeap orders the pages that wait for their turn, soonest first
// (container/heap).
type dueHeap[K comparable] []due[K]

func (h dueHeap[K]) Len() int           { return len(h) }
func (h dueHeap[K]) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h dueHeap[K]) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *dueHeap[K]) Push(x any)        { *h = append(*h, x.(due[K])) }
func (h *dueHeap[K]) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Sleeping reports whether a worker sleeps until a rebuild waiting for its
// turn is due.
func (r *Queue[K]) Sleeping() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sleeping
}
