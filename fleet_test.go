package sitemap

import (
	"bytes"
	"context"
	"fmt"
	"iter"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

// revSource is a fakeSource whose URLs carry a revision that a test may
// change at any time: every page's bytes change with it.
type revSource struct {
	*fakeSource
	rev atomic.Int64
}

func (r *revSource) URLs(ctx context.Context, page int64) iter.Seq2[URL, error] {
	rev := r.rev.Load()
	return func(yield func(URL, error) bool) {
		for u, err := range r.fakeSource.URLs(ctx, page) {
			if err == nil && rev > 0 {
				u.Loc += "&rev=" + strconv.FormatInt(rev, 10)
			}
			if !yield(u, err) {
				return
			}
		}
	}
}

// replicas makes n Sitemaps of src that share st, each with its own cache.
func replicas(t testing.TB, st Store, n int, src Source, cfg Config) []*Sitemap {
	t.Helper()
	cfg.Store = st
	sms := make([]*Sitemap, n)
	for i := range sms {
		sms[i] = newTestSitemap(t, cfg, Section{Source: src, PageSize: 50})
	}
	return sms
}

// fleetPaths are the files of a 250-URL source in pages of 50.
var fleetPaths = []string{"/sitemap_index.xml", "/sitemap-1.xml.gz", "/sitemap-2.xml.gz", "/sitemap-3.xml.gz", "/sitemap-4.xml.gz", "/sitemap-5.xml.gz"}

func TestFleetCrawlReadsEachPageOnce(t *testing.T) {
	src := newFake(250, 50)
	sms := replicas(t, newMemStore(), 3, src, Config{})
	for _, p := range fleetPaths {
		for i, sm := range sms {
			if w := get(sm, p); w.Code != http.StatusOK {
				t.Fatalf("replica %d %s: %d", i, p, w.Code)
			}
		}
	}
	if got := src.urlsCalls.Load(); got != 5 {
		t.Errorf("page reads = %d, want 5 (each page once for the three replicas)", got)
	}
	if got := src.pageCalls.Load(); got != 1 {
		t.Errorf("Pages calls = %d, want 1", got)
	}
	var hits int64
	for _, sm := range sms {
		hits += sm.Stats().StoreHits
	}
	if hits != 12 { // the index and 5 pages, taken by two replicas each
		t.Errorf("StoreHits = %d, want 12", hits)
	}
}

func TestFleetColdBurstOneRead(t *testing.T) {
	src := newFake(250, 50)
	src.onURL = func(ctx context.Context, page, i int64) error {
		if i%50 == 0 {
			time.Sleep(50 * time.Millisecond) // let the burst pile up
		}
		return nil
	}
	sms := replicas(t, newMemStore(), 3, src, Config{})
	var wg sync.WaitGroup
	codes := make([]int, 90)
	for i := range codes {
		wg.Go(func() { codes[i] = get(sms[i%3], "/sitemap-3.xml.gz").Code })
	}
	wg.Wait()
	for i, c := range codes {
		if c != http.StatusOK {
			t.Fatalf("request %d: %d", i, c)
		}
	}
	if got := src.urlsCalls.Load(); got != 1 {
		t.Errorf("page reads = %d, want 1", got)
	}
}

func TestFleetFreshReplicaAnswersFromStore(t *testing.T) {
	src := newFake(250, 50)
	st := newMemStore()
	clk := testkit.NewClock(time.Now())
	a := replicas(t, st, 1, src, Config{Now: clk.Now})[0]
	get(a, "/sitemap_index.xml") // the Store's first era
	clk.Add(floorAhead)          // past its floor: the files are served under their Last-Modified
	first := map[string]http.Header{}
	bodies := map[string][]byte{}
	for _, p := range fleetPaths {
		w := get(a, p)
		first[p], bodies[p] = w.Header(), w.Body.Bytes()
	}
	reads, pages := src.urlsCalls.Load(), src.pageCalls.Load()
	d := replicas(t, st, 1, src, Config{Now: clk.Now})[0] // a new process: empty cache, no clocks
	for _, p := range fleetPaths {
		if w := get(d, p, "If-None-Match", first[p].Get("Etag")); w.Code != http.StatusNotModified {
			t.Errorf("%s If-None-Match: %d, want 304", p, w.Code)
		}
	}
	e := replicas(t, st, 1, src, Config{Now: clk.Now})[0]
	for _, p := range fleetPaths {
		if w := get(e, p, "If-Modified-Since", first[p].Get("Last-Modified")); w.Code != http.StatusNotModified {
			t.Errorf("%s If-Modified-Since: %d, want 304", p, w.Code)
		}
		w := get(e, p)
		if w.Code != http.StatusOK || !bytes.Equal(w.Body.Bytes(), bodies[p]) {
			t.Errorf("%s: %d, body differs from the first replica's", p, w.Code)
		}
		for _, h := range []string{"Etag", "Last-Modified", "Content-Length"} {
			if w.Header().Get(h) != first[p].Get(h) {
				t.Errorf("%s %s = %q, first replica sent %q", p, h, w.Header().Get(h), first[p].Get(h))
			}
		}
	}
	if src.urlsCalls.Load() != reads || src.pageCalls.Load() != pages {
		t.Errorf("the new replicas read the Source: %d page reads, %d Pages calls after", src.urlsCalls.Load()-reads, src.pageCalls.Load()-pages)
	}
}

func TestFleetInvalidateReachesAll(t *testing.T) {
	src := &revSource{fakeSource: newFake(250, 50)}
	// A page read takes a few milliseconds, as from a database: the
	// other replicas hear of the Invalidate (on their own goroutines)
	// before its rebuild ends, as they do of Redis's.
	src.onURL = func(ctx context.Context, page, i int64) error {
		if i%50 == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		return nil
	}
	clk := testkit.NewClock(time.Now())
	sms := replicas(t, newMemStore(), 3, src, Config{Now: clk.Now})
	get(sms[0], "/sitemap_index.xml") // the Store's first era
	clk.Add(floorAhead)               // past its floor: the files are served under their Last-Modified
	before := map[int]http.Header{}
	for i, sm := range sms {
		get(sm, "/sitemap_index.xml")
		before[i] = get(sm, "/sitemap-2.xml.gz").Header()
	}
	// The change comes in a later second than the first build, so the
	// clock can move to it without running ahead of the Date.
	clk.Add(time.Second)
	src.rev.Add(1)
	if err := sms[0].Invalidate("", 2); err != nil {
		t.Fatal(err)
	}
	old := before[0].Get("Etag")
	waitFor(t, func() bool { return get(sms[0], "/sitemap-2.xml.gz").Header().Get("Etag") != old })
	for i, sm := range sms {
		w := get(sm, "/sitemap-2.xml.gz")
		if w.Header().Get("Etag") == old || !bytes.Contains(testkit.Gunzip(t, w.Body.Bytes()), []byte("rev=1")) {
			t.Errorf("replica %d still serves the old bytes after the rebuild", i)
		}
		was, _ := http.ParseTime(before[i].Get("Last-Modified"))
		now, _ := http.ParseTime(w.Header().Get("Last-Modified"))
		if !now.After(was) {
			t.Errorf("replica %d: Last-Modified %v, not after %v", i, now, was)
		}
	}
	if got := src.urlsCalls.Load(); got != 2 {
		t.Errorf("page reads = %d, want 2 (the first build, and one rebuild for all)", got)
	}
}

func TestFleetStoreDownAndBack(t *testing.T) {
	src := newFake(250, 50)
	st := newMemStore()
	var logs testkit.SyncBuffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	sms := replicas(t, st, 2, src, Config{Logger: log})
	get(sms[0], "/sitemap_index.xml")
	get(sms[0], "/sitemap-1.xml.gz")
	st.setDown(true)
	for i, sm := range sms {
		for _, p := range fleetPaths[:4] {
			if w := get(sm, p); w.Code != http.StatusOK {
				t.Fatalf("replica %d %s with the store down: %d", i, p, w.Code)
			}
		}
		if !sm.Stats().StoreDown {
			t.Errorf("replica %d: StoreDown false with the store down", i)
		}
	}
	st.setDown(false)
	for _, sm := range sms {
		waitFor(t, func() bool { get(sm, "/sitemap-5.xml.gz"); return !sm.Stats().StoreDown })
	}
	reads := src.urlsCalls.Load()
	for _, sm := range sms {
		get(sm, "/sitemap-4.xml.gz")
	}
	if got := src.urlsCalls.Load() - reads; got != 1 {
		t.Errorf("after the store came back, page 4 was read %d times, want once", got)
	}
	if n := bytes.Count([]byte(logs.String()), []byte("store unavailable")); n != 2 {
		t.Errorf("%d lines say the store is unavailable, want one per replica:\n%s", n, logs.String())
	}
}

func TestFleetLockHolderDies(t *testing.T) {
	st := newMemStore()
	stuck := newFake(250, 50)
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	stuck.onURL = func(ctx context.Context, page, i int64) error {
		if page == 3 {
			select {
			case started <- struct{}{}:
			default:
			}
			<-release
		}
		return nil
	}
	defer close(release)
	a := replicas(t, st, 1, stuck, Config{})[0]
	healthy := newFake(250, 50)
	b := replicas(t, st, 1, healthy, Config{})[0]
	get(a, "/sitemap_index.xml")
	go get(a, "/sitemap-3.xml.gz")
	<-started // a holds the lock of page 3, and will never finish
	done := make(chan int)
	go func() { done <- get(b, "/sitemap-3.xml.gz").Code }()
	waitFor(t, func() bool { return b.Stats().StoreWaits == 1 })
	select {
	case c := <-done:
		t.Fatalf("b answered %d while a held the lock", c)
	case <-time.After(100 * time.Millisecond):
	}
	st.expire() // a's process stopped renewing: its lock expires
	if c := <-done; c != http.StatusOK {
		t.Fatalf("b after the lock expired: %d", c)
	}
	if healthy.urlsCalls.Load() != 1 {
		t.Errorf("b read page 3 %d times, want 1", healthy.urlsCalls.Load())
	}
}

func TestFleetGarbageIsAMiss(t *testing.T) {
	src := newFake(250, 50)
	st := newMemStore()
	a := replicas(t, st, 1, src, Config{})[0]
	for _, p := range fleetPaths {
		get(a, p)
	}
	st.corrupt(func(b []byte) []byte { b[len(b)/2] ^= 1; return b })
	var logs testkit.SyncBuffer
	d := replicas(t, st, 1, src, Config{Logger: slog.New(slog.NewTextHandler(&logs, nil))})[0]
	for _, p := range fleetPaths {
		if w := get(d, p); w.Code != http.StatusOK {
			t.Fatalf("%s: %d", p, w.Code)
		}
	}
	if got := src.urlsCalls.Load(); got != 10 {
		t.Errorf("page reads = %d, want 10: a value that does not decode is a miss", got)
	}
	if n := bytes.Count([]byte(logs.String()), []byte("does not decode")); n != 1 {
		t.Errorf("%d log lines about garbage, want 1", n)
	}
	if d.Stats().StoreErrors == 0 {
		t.Error("StoreErrors = 0")
	}
}

// TestFleetIndexListsOtherReplicasClocks: a page rebuilt on one replica
// moves its clock; the index, rebuilt on another, lists that clock, and
// every replica serves the page under it.
func TestFleetIndexListsOtherReplicasClocks(t *testing.T) {
	src := &revSource{fakeSource: newFake(250, 50)}
	clock := testkit.NewClock(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))
	sms := replicas(t, newMemStore(), 3, src, Config{Now: clock.Now, TTL: time.Minute})
	a, b, c := sms[0], sms[1], sms[2]
	for _, p := range fleetPaths {
		for _, sm := range sms {
			get(sm, p)
		}
	}
	was := get(a, "/sitemap-2.xml.gz").Header().Get("Last-Modified")
	src.rev.Add(1)
	clock.Add(2 * time.Minute)                                 // everything is stale now
	oldTag := get(b, "/sitemap-2.xml.gz").Header().Get("Etag") // stale: served, and rebuilt by b
	waitFor(t, func() bool { return get(b, "/sitemap-2.xml.gz").Header().Get("Etag") != oldTag })
	builds := c.Stats().Builds
	get(c, "/sitemap_index.xml") // stale: served, and rebuilt by c
	waitFor(t, func() bool { return c.Stats().Builds > builds })
	lm := get(b, "/sitemap-2.xml.gz").Header().Get("Last-Modified")
	if lm == was {
		t.Fatalf("page 2's Last-Modified did not move: %s", lm)
	}
	at, _ := http.ParseTime(lm)
	want := []byte("sitemap-2.xml.gz</loc><lastmod>" + at.UTC().Format(time.RFC3339))
	for i, sm := range sms {
		if got := get(sm, "/sitemap-2.xml.gz").Header().Get("Last-Modified"); got != lm {
			t.Errorf("replica %d serves page 2 with Last-Modified %s, b with %s", i, got, lm)
		}
		// A replica may serve its stale index once more while the index
		// that lists the new clock is built.
		waitFor(t, func() bool { return bytes.Contains(get(sm, "/sitemap_index.xml").Body.Bytes(), want) })
	}
}

// TestFleetMissedMessages: a replica whose subscription broke while
// another rebuilt a page looks the page up in the store once it is back,
// and serves the new copy.
func TestFleetMissedMessages(t *testing.T) {
	src := &revSource{fakeSource: newFake(250, 50)}
	st := newMemStore()
	sms := replicas(t, st, 2, src, Config{})
	a, b := sms[0], sms[1]
	for _, sm := range sms {
		get(sm, "/sitemap_index.xml")
		get(sm, "/sitemap-2.xml.gz")
	}
	old := get(b, "/sitemap-2.xml.gz").Header().Get("Etag")
	st.breakSubs() // b hears nothing of what follows
	src.rev.Add(1)
	a.Invalidate("", 2)
	waitFor(t, func() bool { return get(a, "/sitemap-2.xml.gz").Header().Get("Etag") != old })
	waitFor(t, func() bool { return st.subscribers() == 2 }) // both subscribed again
	if got := get(b, "/sitemap-2.xml.gz").Header().Get("Etag"); got == old {
		t.Error("b still serves its copy from before the break, after subscribing again")
	}
	if got := src.urlsCalls.Load(); got != 2 {
		t.Errorf("page reads = %d, want 2", got)
	}
}

// TestFleetBackoffLooksInStore: a replica whose build of a page failed
// does not build it again for RetryAfter, but takes the copy another
// replica built meanwhile instead of answering 503.
func TestFleetBackoffLooksInStore(t *testing.T) {
	st := newMemStore()
	failing := newFake(250, 50)
	failing.onURL = func(ctx context.Context, page, i int64) error { return fmt.Errorf("db down") }
	a := replicas(t, st, 1, failing, Config{})[0]
	b := replicas(t, st, 1, newFake(250, 50), Config{})[0]
	get(a, "/sitemap_index.xml")
	if w := get(a, "/sitemap-2.xml.gz"); w.Code != http.StatusServiceUnavailable {
		t.Fatalf("a's failed build: %d, want 503", w.Code)
	}
	if w := get(b, "/sitemap-2.xml.gz"); w.Code != http.StatusOK {
		t.Fatalf("b: %d", w.Code)
	}
	if w := get(a, "/sitemap-2.xml.gz"); w.Code != http.StatusOK {
		t.Errorf("a within RetryAfter, with b's copy stored: %d, want 200", w.Code)
	}
	if got := failing.urlsCalls.Load(); got != 1 {
		t.Errorf("a read its Source %d times, want 1", got)
	}
}

// TestFleetSitesApart: two sites on one store share nothing: each reads
// its own Source, and serves its own bytes.
func TestFleetSitesApart(t *testing.T) {
	st := newMemStore()
	srcA := newFake(250, 50)
	a := newTestSitemap(t, Config{BaseURL: "https://example.com", Store: st}, Section{Source: srcA})
	b := newTestSitemap(t, Config{BaseURL: "https://example.com/shop", Store: st}, Section{Source: listSource(URL{Loc: "https://example.com/shop/x"})})
	for _, p := range []string{"/sitemap_index.xml", "/sitemap-1.xml.gz"} {
		get(a, p)
	}
	for _, p := range []string{"/shop/sitemap_index.xml", "/shop/sitemap-1.xml.gz"} {
		if w := get(b, p); w.Code != http.StatusOK || bytes.Contains(w.Body.Bytes(), []byte("example.com/p/")) {
			t.Errorf("%s: %d, or a's URLs", p, w.Code)
		}
	}
	if a.Stats().StoreHits != 0 || b.Stats().StoreHits != 0 {
		t.Errorf("store hits %d and %d across two sites, want none", a.Stats().StoreHits, b.Stats().StoreHits)
	}
}

// TestFleetClockOutlivesCopy: when the store has lost a page's copy
// (Redis evicted it) but kept its clock, and the stored index predates the
// page's last build, a new replica that rebuilds changed bytes still gives
// them a later Last-Modified than the one served before.
func TestFleetClockOutlivesCopy(t *testing.T) {
	src := &revSource{fakeSource: newFake(250, 50)}
	st := newMemStore()
	clock := testkit.NewClock(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))
	a := replicas(t, st, 1, src, Config{Now: clock.Now})[0]
	get(a, "/sitemap_index.xml")
	was := get(a, "/sitemap-3.xml.gz").Header().Get("Last-Modified")
	stored := func(suffix string) string {
		st.mu.Lock()
		defer st.mu.Unlock()
		for k := range st.vals {
			if strings.HasSuffix(k, suffix) {
				return k
			}
		}
		t.Fatalf("no stored %s", suffix)
		return ""
	}
	indexKey, pageKey := stored("sitemap_index.xml@"+a.site.layout+"}:copy"), stored("sitemap-3.xml.gz}:copy")
	st.mu.Lock()
	oldIndex := st.vals[indexKey]
	st.mu.Unlock()
	src.rev.Add(1)
	clock.Add(time.Minute)
	a.Invalidate("", 3) // a rebuilds page 3 under a later clock, then the index
	waitFor(t, func() bool { return get(a, "/sitemap-3.xml.gz").Header().Get("Last-Modified") != was })
	was = get(a, "/sitemap-3.xml.gz").Header().Get("Last-Modified")
	waitFor(t, func() bool { st.mu.Lock(); defer st.mu.Unlock(); return !bytes.Equal(st.vals[indexKey], oldIndex) })
	st.mu.Lock()
	st.vals[indexKey] = oldIndex // as if the index had not been rebuilt yet
	delete(st.vals, pageKey)     // and Redis had evicted the page; its clock stays
	st.mu.Unlock()
	src.rev.Add(1)
	clock.Add(time.Minute)
	b := replicas(t, st, 1, src, Config{Now: clock.Now})[0] // a new process, with no clock of its own
	now := get(b, "/sitemap-3.xml.gz").Header().Get("Last-Modified")
	w, _ := http.ParseTime(was)
	n, _ := http.ParseTime(now)
	if !n.After(w) {
		t.Errorf("changed bytes served with Last-Modified %s, not after the %s served before", now, was)
	}
}

// TestFleetStaleLooksBounded: while another replica takes long to
// rebuild a page, a replica that heard of the change waits for the new
// copy (documents.catchUp), but all its requests together at most
// BuildTimeout from the first one's arrival, never BuildTimeout each one
// after the other: once that bound passed, it serves its old copy as
// stale at once, and reads the stored copy at most once a second, however
// many requests come; the message that the new copy is stored makes the
// next request take it. (Before catchUp, the requests served the old copy
// at once, as if current, while the rebuild ran.)
func TestFleetStaleLooksBounded(t *testing.T) {
	const timeout = time.Second // b's BuildTimeout; a's is the default, longer than the test
	src := &revSource{fakeSource: newFake(250, 50)}
	st := newMemStore()
	a := replicas(t, st, 1, src, Config{})[0]
	b := replicas(t, st, 1, src, Config{BuildTimeout: timeout})[0]
	for _, sm := range []*Sitemap{a, b} {
		get(sm, "/sitemap_index.xml")
		get(sm, "/sitemap-2.xml.gz")
	}
	old := get(b, "/sitemap-2.xml.gz").Header().Get("Etag")
	// Someone holds the page's lock: its rebuild is under way elsewhere.
	unlock, err := st.Lock(t.Context(), a.docs.tier.(*fleet).sh.fileNS("sitemap-2.xml.gz")+"lock")
	if err != nil {
		t.Fatal(err)
	}
	src.rev.Add(1)
	a.Invalidate("", 2)
	waitFor(t, func() bool { return a.Stats().StoreWaits == 1 }) // a waits for the lock
	waitFor(t, func() bool {                                     // b heard of the change
		sl, ok := b.docs.cache.Peek(pageKey(0, 2))
		return ok && !b.docs.ledger.current(pageKey(0, 2), sl.e.stamp)
	})
	gets, first := st.gets.Load(), time.Now()
	// Ten requests at once, then ten more one after another as each ends:
	// they share one wait, which ends BuildTimeout after the first came.
	start := time.Now()
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			for range 10 {
				if w := get(b, "/sitemap-2.xml.gz"); w.Code != http.StatusOK || w.Header().Get("Etag") != old {
					t.Errorf("b during the rebuild: %d, or not its stale copy", w.Code)
				}
			}
		})
	}
	wg.Wait()
	if d := time.Since(start); d < timeout*9/10 || d > 2*timeout {
		t.Errorf("100 requests during the rebuild took %v, want about BuildTimeout (%v) in all", d, timeout)
	}
	start = time.Now()
	for range 100 {
		if w := get(b, "/sitemap-2.xml.gz"); w.Code != http.StatusOK || w.Header().Get("Etag") != old {
			t.Fatalf("b after its wait: %d, or not its stale copy", w.Code)
		}
	}
	if d := time.Since(start); d > timeout/2 {
		t.Errorf("100 requests after the wait ended took %v: they waited again", d)
	}
	// One look a second (newer), the load's, and one more if the wait
	// ended just before the load's failure was recorded: the background
	// refresh of the stale copy then starts a load of its own.
	if n, most := st.gets.Load()-gets, 3+int64(time.Since(first)/lookEvery); n > most {
		t.Errorf("200 requests for a stale page in %v read the store %d times, want at most %d (one look a second, a load and a refresh)", time.Since(first), n, most)
	}
	unlock() // the other holder is done, without a copy: a builds
	waitFor(t, func() bool { return get(a, "/sitemap-2.xml.gz").Header().Get("Etag") != old })
	start = time.Now()
	waitFor(t, func() bool { return get(b, "/sitemap-2.xml.gz").Header().Get("Etag") != old })
	if d := time.Since(start); d > lookEvery/2 {
		t.Errorf("b took %v to serve the new copy: the message that it was stored did not end the pause between looks", d)
	}
}
