package sitemap

import (
	"context"
	"time"
)

// A tier is where a copy of a document may come from besides a build
// here, and where a copy built here goes: nowhere without a Store
// (noTier), the other replicas with one (fleet.go). It is called by
// documents alone, and never calls into them but through their inbox.
type tier interface {
	// unsynced reports whether sl, a cached copy, was made before this
	// replica last lost touch with the others, and was not looked up in
	// the tier since.
	unsynced(sl *slot) bool
	// clocked reports whether the clock e was served under still holds:
	// e was made in the Store's current era (fleet.born). A copy made
	// before the Store lost its state is served without its
	// Last-Modified until it is rebuilt or replaced, as the other
	// replicas give its bytes a clock after the loss.
	clocked(e *entry) bool
	// newer returns a current copy of k that the tier holds and sl (this
	// replica's copy) is not, for documents to keep: fresh, or past its
	// TTL but built after sl's (then served while it is rebuilt); or nil. It
	// looks at most once a second per copy while nothing says a newer one
	// is there, and once more after each loss of touch.
	newer(k docKey, sl *slot) *entry
	// look reads the tier's copy of k once: got if it is current and
	// fresh; else stale, the copy to replace (the tier's if it is newer
	// than old, else old). ok is false if the tier did not answer.
	look(ctx context.Context, k docKey, old *entry) (got, stale *entry, ok bool)
	// acquire is step 3 of a load: the tier's current copy, waiting while
	// another replica builds it; or the right to build k here, held until
	// the claim's unlock, with the copy to replace. An error is ctx's.
	acquire(ctx context.Context, k docKey, old *entry) (claim, error)
	// share stores e, the copy of k built here: its clock, then the copy,
	// then a message to the other replicas. It reports whether the clock
	// and the copy were stored.
	share(ctx context.Context, k docKey, e *entry) bool
	// announce tells the other replicas that keys changed; until they are
	// told, no copy of keys built elsewhere is current here.
	announce(keys []docKey)
	// storedClocks merges into this replica's clocks those that the
	// builds of pages stored, for every page of pages (an index build).
	storedClocks(ctx context.Context, pages [][]PageInfo)
	// catchesUp reports whether a request for a copy said or heard to
	// have changed waits for its replacement (documents.catchUp): with a
	// Store, where the other replicas may be serving the new copy
	// already; without one, the old copy is served while it is rebuilt
	// (stale-while-revalidate, as after TTL).
	catchesUp() bool
	// breaks counts the times this replica lost touch with the others.
	breaks() int64
	// stats returns the tier's counters.
	stats() tierStats
	// close stops what the tier started, and waits for it at most bound:
	// a Store that ignores its context does not hold Close.
	close(bound time.Duration)
}

// claim is what a load gets from its tier (step 3): a copy, or the right
// to build one.
type claim struct {
	got   *entry // the tier's current copy: nothing to build
	stale *entry // else the copy the build replaces, if any
	// unlock ends the right to build (never nil).
	unlock func()
	// alone: the build cannot agree on a clock with the other replicas (the
	// Store did not answer, or gave no lock), so its bytes get no
	// Last-Modified (their ETag still validates them) and are not shared.
	alone bool
	// gen is the store generation the build starts at, as the Store gave
	// it (never one a message claimed): a change told after it has a
	// later one, so the copy is not current for it (ledger.go).
	gen int64
	// era is when the Store's state began, as the build's look saw it: the
	// clocks given in it hold only until the Store loses its state.
	era time.Time
}

// tierStats are a tier's counters, as Stats reports them.
type tierStats struct {
	hits, waits, errs int64
	down              bool
}

// inbox is how a tier tells documents what the other replicas said: the
// one call that goes up.
type inbox interface {
	// changed: another replica said k changed, at generation gen.
	changed(k docKey, gen int64)
	// stored: another replica stored a copy of k whose XML hash is hash.
	stored(k docKey, hash uint64)
}

// noTier is the tier without a Store: every copy is built here.
type noTier struct{}

var _ tier = noTier{}

func (noTier) unsynced(*slot) bool                        { return false }
func (noTier) newer(docKey, *slot) *entry                 { return nil }
func (noTier) clocked(*entry) bool                        { return true }
func (noTier) share(context.Context, docKey, *entry) bool { return true }
func (noTier) announce([]docKey)                          {}
func (noTier) breaks() int64                              { return 0 }
func (noTier) catchesUp() bool                            { return false }
func (noTier) stats() tierStats                           { return tierStats{} }
func (noTier) close(time.Duration)                        {}

func (noTier) look(_ context.Context, _ docKey, old *entry) (got, stale *entry, ok bool) {
	return nil, old, false
}

func (noTier) acquire(_ context.Context, _ docKey, old *entry) (claim, error) {
	return claim{stale: old, unlock: noUnlock}, nil
}

func (noTier) storedClocks(context.Context, [][]PageInfo) {}

func noUnlock() {}
