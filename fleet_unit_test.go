package sitemap

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

// Unit tests of the fleet alone (fleet.go): no Sitemap, no documents, no
// HTTP; fleets on a memStore, each with its own ledger, clocks and a fake
// inbox.

// fakeInbox records what a fleet tells documents. Like documents, it
// applies a change it hears to its replica's ledger (documents.changed).
type fakeInbox struct {
	mu      sync.Mutex
	ledger  *ledger
	changes []changedCall
	stores  []storedCall
}

type changedCall struct {
	k   docKey
	gen int64
}

type storedCall struct {
	k    docKey
	hash uint64
}

var _ inbox = (*fakeInbox)(nil)

func (in *fakeInbox) changed(k docKey, gen int64) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.ledger != nil {
		in.ledger.heard(k, gen)
	}
	in.changes = append(in.changes, changedCall{k, gen})
}

func (in *fakeInbox) stored(k docKey, hash uint64) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.stores = append(in.stores, storedCall{k, hash})
}

func (in *fakeInbox) calls() ([]changedCall, []storedCall) {
	in.mu.Lock()
	defer in.mu.Unlock()
	return slices.Clone(in.changes), slices.Clone(in.stores)
}

// unitStore is a memStore that records the calls made through it, and
// can hold its Subscribe calls until released.
type unitStore struct {
	*memStore
	mu   sync.Mutex
	ops  []string
	gate chan struct{} // non-nil: Subscribe waits until it is closed
}

func (s *unitStore) note(op, key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ops = append(s.ops, op+" "+key)
}

// take returns the calls recorded so far, and forgets them.
func (s *unitStore) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ops := s.ops
	s.ops = nil
	return ops
}

func (s *unitStore) Get(ctx context.Context, keys ...string) ([][]byte, error) {
	s.note("Get", strings.Join(keys, ","))
	return s.memStore.Get(ctx, keys...)
}

func (s *unitStore) Set(ctx context.Context, key string, value []byte) error {
	s.note("Set", key)
	return s.memStore.Set(ctx, key, value)
}

func (s *unitStore) Lock(ctx context.Context, key string) (func(), error) {
	s.note("Lock", key)
	return s.memStore.Lock(ctx, key)
}

func (s *unitStore) Incr(ctx context.Context, key string) (int64, error) {
	s.note("Incr", key)
	return s.memStore.Incr(ctx, key)
}

func (s *unitStore) Publish(ctx context.Context, channel string, msg []byte) error {
	s.note("Publish", channel)
	return s.memStore.Publish(ctx, channel, msg)
}

func (s *unitStore) Subscribe(ctx context.Context, channel string, f func([]byte)) (<-chan struct{}, error) {
	s.mu.Lock()
	gate := s.gate
	s.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	s.note("Subscribe", channel)
	return s.memStore.Subscribe(ctx, channel, f)
}

// hold makes Subscribe wait until the returned func is called.
func (s *unitStore) hold() (release func()) {
	gate := make(chan struct{})
	s.mu.Lock()
	s.gate = gate
	s.mu.Unlock()
	return sync.OnceFunc(func() { close(gate) })
}

// unitReplica is one replica of the fleet: a fleet and what it was made of.
type unitReplica struct {
	f  *fleet
	l  *ledger
	c  *clocks
	in *fakeInbox
}

var unitT0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func newUnitReplica(t *testing.T, store Store, log *slog.Logger) *unitReplica {
	t.Helper()
	st, err := newSite(&Config{BaseURL: "https://example.com", TTL: time.Minute}, []Section{{Name: "p", Source: FromSlice(nil, 0)}})
	if err != nil {
		t.Fatal(err)
	}
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	r := &unitReplica{l: newLedger(), c: newClocks(unitT0, true, nil)}
	r.in = &fakeInbox{ledger: r.l}
	r.f = newFleet(newShared(store, st.base.url, log), st, r.l, r.c, r.in, log, testkit.NewClock(unitT0).Now)
	t.Cleanup(func() { r.f.close(time.Minute) })
	// The era, as a first look takes it: agreed by the first replica.
	if b, err := r.f.sh.getBorn(t.Context()); err != nil || !r.f.born(t.Context(), b) {
		t.Fatalf("the replica could not take the store's era: %v", err)
	}
	return r
}

// unitEntry makes a copy of a page whose XML is body, built at unitT0.
func unitEntry(t *testing.T, body string) *entry {
	t.Helper()
	gz, hash, err := compress(6, func(w io.Writer) error {
		_, err := io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><urlset>`+body+`</urlset>`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return newEntry(gz, hash, 6, unitT0.Add(-time.Hour), unitT0)
}

// build makes a copy of k here, as a build does (its clock moved, its
// store generation the ledger's at its start), and shares it.
func (r *unitReplica) build(t *testing.T, k docKey, body string) *entry {
	t.Helper()
	st := r.l.now()
	e := unitEntry(t, body)
	e.stamp, e.gen, e.era = stamp{epoch: st.epoch, gen: builtHere}, st.gen, r.f.era()
	r.c.built(k, e.hash, e.lastMod, time.Time{}, unitT0, true, false)
	r.f.share(t.Context(), k, e)
	return e
}

// unitWait polls cond until it holds, failing t after a generous deadline.
func unitWait(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); !cond(); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func TestFleetUnitShareThenLook(t *testing.T) {
	store := newMemStore()
	us := &unitStore{memStore: store}
	a, b := newUnitReplica(t, us, nil), newUnitReplica(t, store, nil)
	k := pageKey(0, 1)
	name := a.f.site.storeName(k)
	us.take()
	e := a.build(t, k, "<url><loc>https://example.com/a</loc></url>")
	fk := a.f.sh.fileNS(name)
	if ops, want := us.take(), []string{"Set " + fk + "clock", "Set " + fk + "copy", "Publish " + a.f.sh.channel}; !slices.Equal(ops, want) {
		t.Errorf("share's store calls = %q, want %q (clock, then record, then message)", ops, want)
	}

	got, stale, ok := b.f.look(t.Context(), k, nil)
	if !ok || got == nil || stale != nil {
		t.Fatalf("B's look = (%v, %v, %v), want the shared copy", got != nil, stale != nil, ok)
	}
	if got.hash != e.hash || string(got.gz) != string(e.gz) || !got.built.Equal(e.built) || got.gen != e.gen {
		t.Errorf("B got hash %x built %v gen %d, want %x %v %d", got.hash, got.built, got.gen, e.hash, e.built, e.gen)
	}
	if !b.f.fresh(k, got, nil) || !b.l.current(k, got.stamp) {
		t.Error("B's copy from the store is not fresh and current")
	}
	if c := b.c.state(k); !c.built || c.hash != e.hash || !c.at.Equal(a.c.state(k).at) {
		t.Errorf("B's clock of %v = %+v, want A's %+v", k, c, a.c.state(k))
	}
	if s := b.f.stats(); s.hits != 1 || s.errs != 0 {
		t.Errorf("B's stats = %+v, want 1 hit", s)
	}
	unitWait(t, "B to hear that A stored a copy", func() bool { _, st := b.in.calls(); return len(st) > 0 })
	if ch, st := b.in.calls(); len(ch) != 0 || !slices.Equal(st, []storedCall{{k, e.hash}}) {
		t.Errorf("B's inbox: changed %v, stored %v; want stored(%v, %x) alone", ch, st, k, e.hash)
	}
}

func TestFleetUnitAnnounce(t *testing.T) {
	store := newMemStore()
	a, b := newUnitReplica(t, store, nil), newUnitReplica(t, store, nil)
	k := pageKey(0, 1)
	before := a.build(t, k, "<url><loc>https://example.com/old</loc></url>")
	oldGen := before.gen
	unitWait(t, "B to hear of the first copy", func() bool { _, st := b.in.calls(); return len(st) == 1 })

	a.f.announce([]docKey{k})
	newGen := a.l.now().gen
	if newGen <= oldGen {
		t.Fatalf("A's generation after announce = %d, want above %d", newGen, oldGen)
	}
	unitWait(t, "B to hear the change", func() bool { ch, _ := b.in.calls(); return len(ch) > 0 })
	if ch, _ := b.in.calls(); len(ch) != 1 || ch[0].k != k || ch[0].gen <= 0 || ch[0].gen != newGen {
		t.Errorf("B's inbox heard %v, want changed(%v, %d)", ch, k, newGen)
	}
	for _, r := range []*unitReplica{a, b} {
		if r.l.current(k, stamp{epoch: math.MaxUint64, gen: oldGen}) {
			t.Errorf("a copy of %v built at gen %d is current after the change at gen %d", k, oldGen, newGen)
		}
		if !r.l.current(k, stamp{epoch: math.MaxUint64, gen: newGen}) {
			t.Errorf("a copy of %v built at gen %d is not current", k, newGen)
		}
	}
	if p := a.l.takePending(); len(p) != 0 {
		t.Errorf("A's pending after a told change = %v", p)
	}

	// The copy stored before the change is stale, on both replicas.
	for i, r := range []*unitReplica{b, a} {
		got, stale, ok := r.f.look(t.Context(), k, nil)
		if !ok || got != nil || stale == nil || stale.hash != before.hash {
			t.Errorf("replica %d: look after the change = (got %v, stale %v, %v), want the old copy as stale", i, got != nil, stale != nil, ok)
		}
	}
	// A copy built after it is current again.
	after := a.build(t, k, "<url><loc>https://example.com/new</loc></url>")
	if got, _, ok := b.f.look(t.Context(), k, before); !ok || got == nil || got.hash != after.hash {
		t.Errorf("B's look of the copy built after the change: got %v, ok %v", got != nil, ok)
	}
}

func TestFleetUnitStoreDown(t *testing.T) {
	store := newMemStore()
	us := &unitStore{memStore: store}
	a, b := newUnitReplica(t, us, nil), newUnitReplica(t, store, nil)
	k := pageKey(0, 1)
	release := us.hold() // A may not subscribe again before B has: B would miss the change
	t.Cleanup(release)
	store.setDown(true)
	unitWait(t, "both subscriptions to break", func() bool { return a.f.breaks() >= 1 && b.f.breaks() >= 1 })

	a.f.announce([]docKey{k})
	p := a.l.takePending()
	if !slices.Equal(p, []docKey{k}) {
		t.Fatalf("A's pending with the store down = %v, want [%v]", p, k)
	}
	a.l.postpone(p) // for the follow loop to tell it
	if a.l.current(k, stamp{epoch: math.MaxUint64, gen: math.MaxInt64 - 1}) {
		t.Error("a stored copy of a held key is current")
	}
	old := unitEntry(t, "<url><loc>https://example.com/cached</loc></url>")
	cl, err := a.f.acquire(t.Context(), k, old)
	if cl.got != nil || cl.stale != old || cl.unlock == nil || !cl.alone || err != nil {
		t.Fatalf("acquire with the store down = (%v, %v, unlock %v, alone %v, %v), want (nil, old, an unlock, alone, nil)", cl.got, cl.stale == old, cl.unlock != nil, cl.alone, err)
	}
	cl.unlock()
	if got, stale, ok := a.f.look(t.Context(), k, old); ok || got != nil || stale != old {
		t.Errorf("look with the store down = (%v, %v, %v), want (nil, old, false)", got, stale == old, ok)
	}
	if !a.f.stats().down {
		t.Error("stats do not say the store is down")
	}

	store.setDown(false)
	unitWait(t, "B to subscribe again", func() bool { return store.subscribers() >= 1 })
	release()
	unitWait(t, "B to hear the postponed change", func() bool { ch, _ := b.in.calls(); return len(ch) > 0 })
	ch, _ := b.in.calls()
	if len(ch) != 1 || ch[0].k != k || ch[0].gen <= 0 {
		t.Fatalf("B's inbox heard %v, want changed(%v, gen > 0)", ch, k)
	}
	if !a.l.current(k, stamp{epoch: math.MaxUint64, gen: ch[0].gen}) {
		t.Error("after the change was told, a copy built at its generation is not current on A")
	}
	if p := a.l.takePending(); len(p) != 0 {
		t.Errorf("A's pending after the store came back = %v", p)
	}
}

func TestFleetUnitLockWait(t *testing.T) {
	store := newMemStore()
	a, b := newUnitReplica(t, store, nil), newUnitReplica(t, store, nil)
	k := pageKey(0, 1)
	lockKey := a.f.sh.fileNS(a.f.site.storeName(k)) + "lock"
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()
	unlockA, err := store.Lock(ctx, lockKey)
	if err != nil {
		t.Fatal(err)
	}

	type result struct {
		got, stale *entry
		unlock     func()
		err        error
	}
	done := make(chan result, 1)
	go func() {
		var r result
		var cl claim
		cl, r.err = b.f.acquire(ctx, k, nil)
		r.got, r.stale, r.unlock = cl.got, cl.stale, cl.unlock
		done <- r
	}()
	unitWait(t, "B to wait for the lock", func() bool { return b.f.stats().waits >= 1 })
	e := a.build(t, k, "<url><loc>https://example.com/locked</loc></url>")
	unlockA()

	r := <-done
	if r.err != nil || r.got == nil || r.stale != nil || r.unlock == nil {
		t.Fatalf("B's acquire = (%v, %v, unlock %v, %v), want A's copy", r.got != nil, r.stale != nil, r.unlock != nil, r.err)
	}
	if r.got.hash != e.hash {
		t.Errorf("B got hash %x, want A's %x", r.got.hash, e.hash)
	}
	if s := b.f.stats(); s.waits != 1 || s.hits != 1 {
		t.Errorf("B's stats = %+v, want 1 wait and 1 hit", s)
	}
	// B let the lock go, and its unlock is no one's: it does not free a
	// lock another holds.
	unlockC, err := store.Lock(ctx, lockKey)
	if err != nil {
		t.Fatalf("the lock is still held after B's acquire returned a copy: %v", err)
	}
	defer unlockC()
	r.unlock()
	if _, err := store.Lock(ctx, lockKey); !errors.Is(err, ErrLocked) {
		t.Errorf("B's unlock freed another's lock: %v", err)
	}
}

func TestFleetUnitGarbage(t *testing.T) {
	store := newMemStore()
	var logs testkit.SyncBuffer
	b := newUnitReplica(t, store, slog.New(slog.NewTextHandler(&logs, nil)))
	ctx, sh := t.Context(), b.f.sh
	k := pageKey(0, 1)
	own := &message{kind: msgChanged, gen: 99, names: []string{b.f.site.fileName(k)}}
	own.from = sh.id
	sentinel := &message{kind: msgBuilt, from: sh.id ^ 1, hash: 7, names: []string{b.f.site.fileName(pageKey(0, 2))}}
	for _, msg := range [][]byte{{0xde, 0xad}, own.encode(), []byte("not a message"), {}, sentinel.encode()} {
		if err := store.Publish(ctx, sh.channel, msg); err != nil {
			t.Fatal(err)
		}
	}
	// Messages are handled in order: once the last is heard, all were.
	unitWait(t, "the last message", func() bool { _, st := b.in.calls(); return len(st) > 0 })
	if ch, st := b.in.calls(); len(ch) != 0 || !slices.Equal(st, []storedCall{{pageKey(0, 2), 7}}) {
		t.Errorf("inbox: changed %v, stored %v; want only the sentinel's stored", ch, st)
	}
	if g := b.l.now().gen; g >= 99 {
		t.Errorf("B's own message raised its generation to %d", g)
	}
	if n := strings.Count(logs.String(), "does not decode"); n != 1 {
		t.Errorf("garbage logged %d times, want once:\n%s", n, logs.String())
	}
}

func TestFleetUnitNewerOncePerSecond(t *testing.T) {
	store := newMemStore()
	a := newUnitReplica(t, store, nil)
	k := pageKey(0, 1)
	sl := &slot{e: unitEntry(t, "<url><loc>https://example.com/here</loc></url>")}
	sl.synced.Store(a.f.breaks())

	gets := store.gets.Load()
	if e := a.f.newer(k, sl); e != nil {
		t.Fatal("newer found a copy in an empty store")
	}
	if n := store.gets.Load() - gets; n != 1 {
		t.Fatalf("first newer: %d store reads, want 1", n)
	}
	if e := a.f.newer(k, sl); e != nil || store.gets.Load()-gets != 1 {
		t.Errorf("second newer at once read the store again (%d reads in all)", store.gets.Load()-gets)
	}
	sl.looked.Store(0) // as documents.changed does when a message says a new copy is stored
	if e := a.f.newer(k, sl); e != nil || store.gets.Load()-gets != 2 {
		t.Errorf("newer after looked was reset: %d reads in all, want 2", store.gets.Load()-gets)
	}
}
