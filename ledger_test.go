package sitemap

import (
	"math"
	"testing"
)

// TestLedgerPendingOnce: changes postponed while the Store is off are
// kept once each, however often they are said: 100,000 Invalidates of one
// page used to keep 200,000 keys, to be told all at once.
func TestLedgerPendingOnce(t *testing.T) {
	l := newLedger()
	for range 100_000 {
		l.hold([]docKey{pageKey(0, 1), indexKey})
		l.postpone([]docKey{pageKey(0, 1), indexKey})
	}
	if got := l.takePending(); len(got) != 2 {
		t.Errorf("%d keys pending, want 2", len(got))
	}
	if got := l.takePending(); len(got) != 0 {
		t.Errorf("%d keys pending after they were taken", len(got))
	}
}

// TestLedgerPrune: once the marks are many, those of documents no longer
// known are dropped, but never so that a copy made before a dropped change
// is current; a copy cached before the prune stays current, and a held
// mark is kept.
func TestLedgerPrune(t *testing.T) {
	l := newLedger()
	cached := pageKey(0, 1_000_000) // never said to have changed
	kept := l.now()                 // its copy's stamp, and a slow build's of the others
	for n := range int64(minMarks) {
		l.said(pageKey(0, n+1))
	}
	if l.overgrown() {
		t.Fatalf("overgrown at %d marks", l.size())
	}
	l.hold([]docKey{pageKey(1, 1)})
	l.said(pageKey(0, minMarks+1))
	if !l.overgrown() || l.overgrown() {
		t.Fatal("overgrown does not say so once past the limit")
	}
	known := func(k docKey) bool { return k.sec == 0 && k.page <= 10 }
	l.prune(known, []docKey{cached})
	if got, want := l.size(), 10+1+1; got != want {
		t.Errorf("%d marks after the prune, want %d: the known, the held, the cached", got, want)
	}
	for _, k := range []docKey{pageKey(0, 5), pageKey(0, 500), pageKey(0, minMarks+1), pageKey(1, 1)} {
		if l.current(k, kept) {
			t.Errorf("a copy of %v made before its change is current after the prune", k)
		}
		if !l.current(k, stamp{epoch: l.now().epoch, gen: builtHere}) && k != pageKey(1, 1) {
			t.Errorf("a copy of %v made after its change is not current after the prune", k)
		}
	}
	if !l.current(cached, kept) {
		t.Error("a cached copy of a document never changed is not current after the prune")
	}
	if !l.current(pageKey(2, 1), stamp{epoch: l.now().epoch}) {
		t.Error("a copy of a document never changed, made after the prune, is not current")
	}
	l.said(pageKey(0, 500)) // marked anew: from the floor on
	if l.current(pageKey(0, 500), kept) {
		t.Error("a copy made before a pruned change is current once marked again")
	}
	if l.overgrown() {
		t.Error("overgrown right after a prune")
	}
}

// TestLedgerGaveLost: a generation far below one the Store gave means it
// lost its state; so does 1 after others (a counter deleted, as after it
// held garbage, starts again, maybe less than genSlack below), which the
// crawl with a one-minute TTL found: copies stored before the reset
// looked newer than changes told after it, and an index stayed stale.
// Generations a little out of order (concurrent calls) are not a loss.
func TestLedgerGaveLost(t *testing.T) {
	for _, tc := range []struct {
		name string
		gens []int64
		lost bool
	}{
		{"in order", []int64{1, 2, 3, 40}, false},
		{"out of order", []int64{30, 40, 35, 41}, false},
		{"far below", []int64{5000, 3}, true},
		{"restarted at 1", []int64{25, 1}, true},
		{"the first is 1", []int64{1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newLedger()
			lost := false
			for _, g := range tc.gens {
				lost = l.gave(g) || lost
			}
			if lost != tc.lost {
				t.Errorf("gave %v: lost %v, want %v", tc.gens, lost, tc.lost)
			}
		})
	}
}

// TestLedgerForgedGeneration: a change heard at a generation no Store gave
// (a forged message, up to MaxInt64) keeps copies built elsewhere from
// being current only until the Store next gives a generation. MaxInt64 is
// also the ledger's own "held" mark, which nothing lowers: a message at
// that generation used to keep every copy of its documents built
// elsewhere from being current for good, so every replica read them from
// the Source again each TTL.
func TestLedgerForgedGeneration(t *testing.T) {
	for _, forged := range []int64{math.MaxInt64, math.MaxInt64 - 1, 1 << 40} {
		l := newLedger()
		k := pageKey(0, 1)
		l.gave(10)
		l.heard(k, forged)
		if l.current(k, stamp{epoch: math.MaxUint64, gen: 11}) {
			t.Errorf("forged %d: a copy built elsewhere at 11 is current before the Store answers", forged)
		}
		l.gave(12)
		if !l.current(k, stamp{epoch: math.MaxUint64, gen: 12}) {
			t.Errorf("forged %d: a copy built elsewhere at 12, the Store's generation, is not current", forged)
		}
	}
}
