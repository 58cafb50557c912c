package sitemap

import (
	"math"
	"sync"
	"sync/atomic"
)

// The ledger of changes: every "this document changed", said here
// (Invalidate, a build that moved a clock) or heard from another replica
// (fleet.go), and when, answering one question: is this copy current?
//
// When is counted twice. The epoch is this replica's own count: it is
// raised by every change said or heard here. The generation is the fleet's
// count, kept by the Store: a change told to the other replicas raises it.
// A copy carries the stamp of both taken when it was made (for a build,
// right before its Source was read); a change leaves a mark of both on its
// document. A copy is current when its stamp is at or past its document's
// mark on both counts.
//
// A copy built here has seen every change this replica knew of at its
// epoch, heard ones included (hearing one raises the epoch), so its
// generation is builtHere, past every mark; only a copy built elsewhere
// is judged by the generation its build started at.
type ledger struct {
	epoch atomic.Uint64 // raised by every change said or heard here
	gen   atomic.Int64  // the highest generation the Store gave here

	mu      sync.Mutex
	marks   map[docKey]stamp // per document: when it was last said to have changed
	top     int64            // the highest generation of a mark, held aside
	floor   uint64           // the latest epoch of a mark pruned: a document without a mark changed no later
	limit   int              // prune the marks once they are more
	pending map[docKey]bool  // said here while the Store was off: not yet told to the other replicas
}

// stamp is a point in the ledger: an epoch and a store generation.
type stamp struct {
	epoch uint64
	gen   int64
}

// builtHere is the generation of the stamp of a copy built here.
const builtHere = math.MaxInt64

// held is the generation of a mark while the change is being told to the
// other replicas: no copy built elsewhere is current until it is told.
const held = math.MaxInt64

// minMarks is the fewest marks the ledger prunes (prune).
const minMarks = 4096

func newLedger() *ledger {
	return &ledger{marks: make(map[docKey]stamp), limit: minMarks, pending: make(map[docKey]bool)}
}

// now returns the ledger's stamp as it is now.
func (l *ledger) now() stamp { return stamp{epoch: l.epoch.Load(), gen: l.gen.Load()} }

// current reports whether a copy of k stamped st was made after every
// change said or heard of k. This is the one definition of current.
func (l *ledger) current(k docKey, st stamp) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	m, ok := l.marks[k]
	if !ok {
		return st.epoch >= l.floor
	}
	return st.epoch >= m.epoch && st.gen >= m.gen
}

// said marks keys as changed now, here: copies made before are not
// current. A mark is kept while its document is cached, listed by the
// index or held (prune), so a slow build that started before a change can
// never be kept after it; only documents the index lists or the cache
// holds are marked (documents.known).
func (l *ledger) said(keys ...docKey) {
	epoch := l.epoch.Add(1)
	l.mark(keys, func(m *stamp) { m.epoch = epoch })
}

// heard records that another replica said k changed at generation gen:
// no copy built elsewhere before gen is current, nor any made here before
// now. A message's generation is below held, whatever it says: held is
// this replica's own mark, which gave never lowers, so a forged message at
// MaxInt64 would keep copies built elsewhere from being current for good
// (TestLedgerForgedGeneration); below it, the next generation the Store
// gives brings it down.
func (l *ledger) heard(k docKey, gen int64) {
	gen = min(gen, held-1)
	epoch := l.epoch.Add(1)
	l.mark([]docKey{k}, func(m *stamp) { m.epoch, m.gen = epoch, max(m.gen, gen) })
}

// hold makes no copy of keys built elsewhere current until release: they
// are being told to the other replicas.
func (l *ledger) hold(keys []docKey) { l.mark(keys, func(m *stamp) { m.gen = held }) }

// release records that keys changed at generation gen, now that the
// other replicas were told.
func (l *ledger) release(keys []docKey, gen int64) { l.mark(keys, func(m *stamp) { m.gen = gen }) }

// mark applies set to the mark of each of keys.
func (l *ledger) mark(keys []docKey, set func(m *stamp)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, k := range keys {
		m, ok := l.marks[k]
		if !ok {
			m.epoch = l.floor // what a pruned mark said
		}
		set(&m)
		l.marks[k] = m
		if m.gen != held {
			l.top = max(l.top, m.gen)
		}
	}
}

// postpone keeps keys, held, to tell the other replicas when the Store
// answers again. Each is kept once, however often it is postponed.
func (l *ledger) postpone(keys []docKey) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, k := range keys {
		l.pending[k] = true
	}
}

// takePending returns the keys postpone kept, each once, and forgets them.
func (l *ledger) takePending() []docKey {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.pending) == 0 {
		return nil
	}
	p := make([]docKey, 0, len(l.pending))
	for k := range l.pending {
		p = append(p, k)
	}
	clear(l.pending)
	return p
}

// genSlack is how far below the highest generation the Store gave here a
// generation it gives may be, its calls having ended out of order, before
// that means the Store lost its state.
const genSlack = 1 << 10

// gave records gen, a generation the Store gave (Incr); only the Store's
// own generations count, never a message's. It reports whether the Store
// lost its state: gen is far below one it gave before (flushed, restarted
// empty, or its counter reset), or is 1 after others (a counter that was
// deleted starts again). A mark above what the Store has given
// came from a message no generation backs (forged, or from before the
// loss): it is brought down to gen, so it cannot keep every copy built
// elsewhere from being current for ever.
func (l *ledger) gave(gen int64) (lost bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	cur := l.gen.Load()
	// Far below one given before; or 1, the first of a counter that was
	// missing, after others: a counter deleted (or that held garbage and
	// was deleted) restarts at 1, which may be less than genSlack below,
	// and copies stored before would then look newer than changes told
	// after.
	lost = gen+genSlack < cur || gen == 1 && cur > 1
	if lost || gen > cur {
		l.gen.Store(gen)
	}
	if lost || l.top > gen+genSlack {
		l.lower(gen)
	}
	return lost
}

// rebase brings every mark down to gen, the Store's generation after it
// lost its state: copies built elsewhere from now on start at gen or
// later, after every change marked here.
func (l *ledger) rebase(gen int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.gen.Store(gen)
	l.lower(gen)
}

// lower brings the marks above gen down to it; l.mu is held.
func (l *ledger) lower(gen int64) {
	for k, m := range l.marks {
		if m.gen > gen && m.gen != held {
			m.gen = gen
			l.marks[k] = m
		}
	}
	l.top = gen
}

// overgrown reports whether the marks are to be pruned: more than twice
// as many as the last prune kept (and minMarks). It says so once, until
// prune.
func (l *ledger) overgrown() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.marks) <= l.limit {
		return false
	}
	l.limit = math.MaxInt
	return true
}

// prune drops the marks of the documents that known says this replica no
// longer knows of (neither cached nor listed by the index), but a held
// one, which is being told to the others. What a dropped mark said is kept
// in the floor: a document with no mark is current from the latest epoch
// dropped on, so a build of it that started before a dropped change is
// never kept (TestLedgerPrune). So that the floor outdates no copy kept
// before, each of cached, the documents cached now, keeps a mark of its
// own: a zero one for a document never said to have changed.
//
// The generation of a dropped mark is not kept: a document neither cached
// nor listed here is requested only once an index lists it again, and a
// stored copy from before its change, built less than TTL ago, may then
// be taken as current, as a replica that started after the change would.
func (l *ledger) prune(known func(docKey) bool, cached []docKey) {
	type kept struct {
		k docKey
		m stamp
	}
	l.mu.Lock()
	all := make([]kept, 0, len(l.marks))
	for k, m := range l.marks {
		if m.gen != held {
			all = append(all, kept{k, m})
		}
	}
	l.mu.Unlock()
	drop := all[:0]
	for _, km := range all {
		if !known(km.k) {
			drop = append(drop, km)
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, km := range drop {
		if l.marks[km.k] == km.m { // unless it changed meanwhile
			delete(l.marks, km.k)
			l.floor = max(l.floor, km.m.epoch)
		}
	}
	for _, k := range cached {
		if _, ok := l.marks[k]; !ok {
			l.marks[k] = stamp{}
		}
	}
	l.limit = max(minMarks, 2*len(l.marks))
}

// size returns the number of marks.
func (l *ledger) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.marks)
}
