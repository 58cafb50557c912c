package rebuild

import (
	"slices"
	"sync"
	"testing"
	"time"
)

// unitRebuilds is a Queue whose builds are recorded and may be held,
// with a short turn so that tests need not wait a second.
type unitRebuilds struct {
	*Queue[docKey]
	mu      sync.Mutex
	built   []docKey
	running int
	most    int                  // builds at once, at most
	hold    map[docKey]chan bool // a build of k waits until closed
	wg      sync.WaitGroup
	close   func()
	gate    chan struct{} // workers start once it is closed
}

// docKey names a document in these tests: a page of a section, or the
// index.
type docKey struct {
	sec  int
	page int64
}

var indexKey = docKey{sec: -1}

func pageKey(sec int, n int64) docKey { return docKey{sec, n} }

// unitWait waits up to 15 s for cond.
func unitWait(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); !cond(); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func newUnitRebuilds(t *testing.T, max int) *unitRebuilds {
	u := &unitRebuilds{hold: map[docKey]chan bool{}, gate: make(chan struct{})}
	close(u.gate)
	done := make(chan struct{})
	u.close = sync.OnceFunc(func() { close(done) })
	start := func(f func()) bool {
		u.wg.Go(func() {
			<-u.gate
			f()
		})
		return true
	}
	u.Queue = New(max, indexKey, start, u.build, done)
	u.every = 50 * time.Millisecond
	t.Cleanup(func() { u.close(); u.wg.Wait() })
	return u
}

func (u *unitRebuilds) build(k docKey) {
	u.mu.Lock()
	u.built = append(u.built, k)
	u.running++
	u.most = max(u.most, u.running)
	h := u.hold[k]
	u.mu.Unlock()
	if h != nil {
		<-h
	}
	u.mu.Lock()
	u.running--
	u.mu.Unlock()
}

func (u *unitRebuilds) take() []docKey {
	u.mu.Lock()
	defer u.mu.Unlock()
	b := u.built
	u.built = nil
	return b
}

// idle waits until nothing waits or runs, and the workers ended.
func (u *unitRebuilds) idle(t *testing.T) {
	t.Helper()
	unitWait(t, "the rebuilds to end", func() bool {
		w, b := u.Waiting()
		u.Queue.mu.Lock()
		defer u.Queue.mu.Unlock()
		return w == 0 && b == 0 && u.Queue.workers == 0
	})
	u.wg.Wait()
}

// TestRebuildsOrder: the pages at most max at once, each once however
// often asked, then the index once for them all.
func TestRebuildsOrder(t *testing.T) {
	u := newUnitRebuilds(t, 2)
	u.gate = make(chan struct{}) // no build starts before the last ask
	pages := []docKey{pageKey(0, 1), pageKey(0, 2), pageKey(0, 3), pageKey(1, 1)}
	for range 100 {
		u.Ask(append(pages, pages...))
	}
	close(u.gate)
	u.idle(t)
	got := u.take()
	if len(got) != 5 || got[4] != indexKey || !slices.Equal(got[:4], pages) && !sameKeys(got[:4], pages) {
		t.Errorf("built %v, want each page once, then the index", got)
	}
	if u.most > 2 {
		t.Errorf("%d builds at once, want at most 2", u.most)
	}
}

func sameKeys(a, b []docKey) bool {
	less := func(x, y docKey) int { return int(x.sec*1000) + int(x.page) - int(y.sec*1000) - int(y.page) }
	return slices.Equal(slices.SortedFunc(slices.Values(a), less), slices.SortedFunc(slices.Values(b), less))
}

// TestRebuildsAgainAndTurn: a page asked for while it is built is built
// once more after, not before its turn; asked for again within its turn,
// it waits for it; and the index waits for the pages.
func TestRebuildsAgainAndTurn(t *testing.T) {
	u := newUnitRebuilds(t, 4)
	p := pageKey(0, 1)
	release := make(chan bool)
	u.hold[p] = release
	u.Ask([]docKey{p})
	unitWait(t, "the first build", func() bool { _, b := u.Waiting(); return b == 1 })
	start := time.Now()
	for range 1000 {
		u.Ask([]docKey{p})
	}
	if w, b := u.Waiting(); w != 2 || b != 1 {
		t.Errorf("%d waiting, %d building; want the page again and the index, and the page", w, b)
	}
	// Released once the page's turn has come: the index, asked a moment
	// before the page's first build began, waits for it no longer than a
	// turn, so a release in between (a loaded machine) would let it go
	// first, as it should.
	time.Sleep(time.Until(start.Add(u.every)))
	close(release)
	u.idle(t)
	if got := u.take(); !slices.Equal(got, []docKey{p, p, indexKey}) {
		t.Errorf("built %v, want the page twice, then the index", got)
	}
	u.Ask([]docKey{p}) // its turn has come again: at once
	u.idle(t)
	if got := u.take(); !slices.Equal(got, []docKey{p, indexKey}) {
		t.Errorf("built %v, want the page, then the index", got)
	}
}

// TestRebuildsDone: once done is closed, the workers end, the one waiting
// for a page's turn too, and nothing more is built.
func TestRebuildsDone(t *testing.T) {
	u := newUnitRebuilds(t, 2)
	u.every = time.Hour
	p := pageKey(0, 1)
	u.Ask([]docKey{p})
	u.idle(t)
	u.take()
	u.Ask([]docKey{p}) // waits an hour for its turn, with one worker asleep
	unitWait(t, "a worker to sleep", u.Sleeping)
	u.close()
	unitWait(t, "the workers to end", func() bool { u.Queue.mu.Lock(); defer u.Queue.mu.Unlock(); return u.Queue.workers == 0 })
	u.wg.Wait()
	if got := u.take(); len(got) != 0 {
		t.Errorf("built %v after done", got)
	}
}

// TestRebuildsIndexNotStarved: pages asked for again and again, each
// waiting for its turn in its own time, keep the index waiting for a turn
// at most, not for as long as they are asked for.
func TestRebuildsIndexNotStarved(t *testing.T) {
	u := newUnitRebuilds(t, 2)
	pages := []docKey{pageKey(0, 1), pageKey(0, 2), pageKey(0, 3)}
	start := time.Now()
	for time.Since(start) < 6*u.every {
		// Each page asked for every 2 ms, page n from n×15 ms on: their
		// turns come apart, and one of them always waits for its own.
		n := min(int(time.Since(start)/(15*time.Millisecond))+1, len(pages))
		u.Ask(pages[:n])
		time.Sleep(2 * time.Millisecond)
	}
	got := u.take()
	indexes := 0
	for _, k := range got {
		if k == indexKey {
			indexes++
		}
	}
	if indexes < 2 {
		t.Errorf("the index was built %d times in %v of pages asked for in turn, want one every %v or so: %v", indexes, 6*u.every, 2*u.every, got)
	}
}
