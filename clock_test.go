package sitemap

import (
	"context"
	"iter"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

var t0 = time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)

// newTestClocks returns clocks with a floor far in the past, as a clock
// file or a Store kept since then would give: the rules that do not
// depend on the floor.
func newTestClocks() *clocks {
	c := newClocks(t0.Add(-1000*time.Hour), true, nil)
	return c
}

func TestClockFirstBuild(t *testing.T) {
	c := newTestClocks()
	k1, k2 := pageKey(0, 1), pageKey(0, 2)
	// No history, a floor kept long ago: the newest lastmod.
	if at, moved := c.build(k1, 1, t0.Add(-time.Hour), time.Time{}, t0); !at.Equal(t0.Add(-time.Hour)) || moved {
		t.Errorf("first build with a lastmod: %v, moved %v", at, moved)
	}
	// Without lastmods: the floor, never the build time.
	if at, _ := c.build(k2, 1, time.Time{}, time.Time{}, t0.Add(700*time.Millisecond)); !at.Equal(c.floor) {
		t.Errorf("first build without lastmod: %v, want the floor %v", at, c.floor)
	}
}

// TestClockRestartFloor: with nothing kept, the first clock of a file in
// a process is after its start, whatever its lastmods say (a row deleted
// while no process ran is not seen otherwise); the index lists the
// Source's lastmod, not the start. A Source change time (PageInfo.Changed)
// needs no floor: the clock is the second after it.
func TestClockRestartFloor(t *testing.T) {
	start := t0.Add(500 * time.Millisecond)
	c := newClocks(start, false, nil)
	k1, k2 := pageKey(0, 1), pageKey(0, 2)
	at, changed := c.listed(k1, PageInfo{Number: 1, LastMod: t0.Add(-time.Hour)}, start, false)
	if !at.Equal(t0.Add(-time.Hour)) || changed {
		t.Errorf("index lastmod of a page never built: %v %v, want its Source lastmod", at, changed)
	}
	if lm, _ := c.build(k1, 1, t0.Add(-time.Hour), time.Time{}, start); !lm.Equal(t0.Add(2 * time.Second)) {
		t.Errorf("first Last-Modified after a start: %v, want %v, after the start", lm, t0.Add(2*time.Second))
	}
	if at, _ := c.listed(k1, PageInfo{Number: 1, LastMod: t0.Add(-time.Hour)}, start, true); !at.Equal(t0.Add(-time.Hour)) {
		t.Errorf("index lastmod after the build: %v, want the Source's", at)
	}
	if lm, _ := c.build(k2, 1, t0.Add(-time.Hour), t0.Add(-time.Minute+300*time.Millisecond), start); !lm.Equal(t0.Add(-time.Minute + time.Second)) {
		t.Errorf("first Last-Modified with PageInfo.Changed: %v, want the second after it", lm)
	}
	// With a clock kept (a Store, a clock file), the floor is a known time
	// and listed as it is.
	d := newClocks(start, true, nil)
	if at, _ := d.listed(k1, PageInfo{Number: 1, LastMod: t0.Add(-time.Hour)}, start, false); !at.Equal(t0.Add(2 * time.Second)) {
		t.Errorf("index lastmod with a kept floor: %v", at)
	}
}

func TestClockMovesWithTheBytes(t *testing.T) {
	c := newTestClocks()
	k := pageKey(0, 1)
	at0, _ := c.build(k, 1, t0.Add(-time.Hour), time.Time{}, t0)

	// The same bytes an hour later: the clock stays.
	if at, moved := c.build(k, 1, t0.Add(-time.Hour), time.Time{}, t0.Add(time.Hour)); !at.Equal(at0) || moved {
		t.Errorf("same bytes: %v (moved %v), want %v", at, moved, at0)
	}
	// The newest URL was deleted: other bytes, an older newest lastmod.
	// The clock moves forward, to the build time, never back.
	at1, moved := c.build(k, 2, t0.Add(-2*time.Hour), time.Time{}, t0.Add(2*time.Hour))
	if !at1.Equal(t0.Add(2*time.Hour)) || !moved {
		t.Errorf("after a deletion: %v (moved %v), want %v", at1, moved, t0.Add(2*time.Hour))
	}
	// Other bytes again within the same second: one second ahead, so
	// If-Modified-Since with the previous clock cannot match them.
	now := t0.Add(2*time.Hour + 300*time.Millisecond)
	at2, _ := c.build(k, 3, time.Time{}, time.Time{}, now)
	if !at2.Equal(at1.Add(time.Second)) {
		t.Errorf("a second change in the same second: %v, want %v", at2, at1.Add(time.Second))
	}
	// A third within that second would need a clock two seconds ahead:
	// no Last-Modified, until a build in a later second.
	if at3, moved := c.build(k, 4, time.Time{}, time.Time{}, now); !at3.IsZero() || moved {
		t.Errorf("a third change in the same second: %v (moved %v), want none", at3, moved)
	}
	if at3, moved := c.build(k, 4, time.Time{}, time.Time{}, now.Add(time.Second)); !at3.Equal(at2.Add(time.Second)) || !moved {
		t.Errorf("the same bytes a second later: %v (moved %v), want %v", at3, moved, at2.Add(time.Second))
	}
	// A URL lastmod in the future counts as now.
	if at, _ := c.build(k, 5, t0.Add(48*time.Hour), time.Time{}, t0.Add(3*time.Hour)); !at.Equal(t0.Add(3 * time.Hour)) {
		t.Errorf("newest lastmod ahead: %v, want now", at)
	}
	// One behind the clock, with other bytes: the clock moves on.
	if at, _ := c.build(k, 6, t0.Add(-48*time.Hour), time.Time{}, t0.Add(4*time.Hour)); !at.Equal(t0.Add(4 * time.Hour)) {
		t.Errorf("other bytes: %v", at)
	}
}

func TestClockListedByIndex(t *testing.T) {
	c := newTestClocks()
	k := pageKey(0, 1)
	lm := t0.Add(-time.Hour)
	// The index lists a page never built: its lastmod; the page's first
	// build keeps that clock.
	if at, changed := c.listed(k, PageInfo{Number: 1, Version: "v1", LastMod: lm}, t0, false); !at.Equal(lm) || changed {
		t.Errorf("listed: %v %v", at, changed)
	}
	if at, moved := c.build(k, 7, lm, time.Time{}, t0.Add(time.Hour)); !at.Equal(lm) || moved {
		t.Errorf("first build after the index: %v (moved %v), want the index's %v", at, moved, lm)
	}
	// Same Version: no change.
	if at, changed := c.listed(k, PageInfo{Number: 1, Version: "v1", LastMod: lm}, t0.Add(2*time.Hour), false); !at.Equal(lm) || changed {
		t.Errorf("same Version: %v %v", at, changed)
	}
	// A new Version: the index keeps the clock of the bytes served, and
	// says the page changed; the build moves the clock if the bytes did.
	if at, changed := c.listed(k, PageInfo{Number: 1, Version: "v2", LastMod: lm}, t0.Add(3*time.Hour), true); !at.Equal(lm) || !changed {
		t.Errorf("new Version, cached: %v %v", at, changed)
	}
	if at, changed := c.listed(k, PageInfo{Number: 1, Version: "v3", LastMod: lm}, t0.Add(4*time.Hour), false); !at.Equal(lm) || !changed {
		t.Errorf("new Version, not cached: %v %v", at, changed)
	}
	if got, moved := c.build(k, 7, lm, time.Time{}, t0.Add(5*time.Hour)); !got.Equal(lm) || moved {
		t.Errorf("the same bytes after a new Version: %v (moved %v), want %v", got, moved, lm)
	}
	// A newer lastmod than the bytes served counts as a change, and so
	// does a later change time.
	if _, changed := c.listed(k, PageInfo{Number: 1, Version: "v3", LastMod: t0.Add(6 * time.Hour)}, t0.Add(6*time.Hour), true); !changed {
		t.Error("a newer lastmod is not a change")
	}
	if _, changed := c.listed(k, PageInfo{Number: 1, Version: "v3", LastMod: t0.Add(6 * time.Hour), Changed: t0.Add(7 * time.Hour)}, t0.Add(7*time.Hour), true); !changed {
		t.Error("a later change time is not a change")
	}
}

// TestClockTold: an Invalidate moves no clock; the Version change the
// index sees after it is that change, not another (one change, one read).
func TestClockTold(t *testing.T) {
	c := newTestClocks()
	k := pageKey(0, 1)
	c.told(k) // unknown: nothing to note
	c.listed(k, PageInfo{Number: 1, Version: "v1"}, t0, true)
	at0, _ := c.build(k, 1, time.Time{}, time.Time{}, t0)
	c.told(k)
	if at, changed := c.listed(k, PageInfo{Number: 1, Version: "v2"}, t0.Add(time.Minute), true); changed || !at.Equal(at0) {
		t.Errorf("the index after an Invalidate: %v, changed %v; want %v, false", at, changed, at0)
	}
	if at, moved := c.build(k, 1, time.Time{}, time.Time{}, t0.Add(2*time.Minute)); !at.Equal(at0) || moved {
		t.Errorf("an Invalidate of unchanged bytes: %v (moved %v), want %v", at, moved, at0)
	}
	if _, changed := c.listed(k, PageInfo{Number: 1, Version: "v3"}, t0.Add(3*time.Minute), true); !changed {
		t.Error("a Version change with no Invalidate is not a change")
	}
}

// TestClockSeedRefusesSkew: a clock another replica stored far ahead of
// this one's time is refused.
func TestClockSeedRefusesSkew(t *testing.T) {
	c := newTestClocks()
	k := pageKey(0, 1)
	ahead := fileClock{at: t0.Add(time.Hour), served: t0.Add(time.Hour), hash: 9, built: true}
	if c.seed(k, ahead, t0) {
		t.Error("a clock an hour ahead was taken")
	}
	if at, _ := c.build(k, 9, time.Time{}, time.Time{}, t0); at.After(t0) {
		t.Errorf("Last-Modified %v after a refused clock: in the future", at)
	}
	near := fileClock{at: t0.Add(time.Second), served: t0.Add(time.Second), hash: 9, built: true}
	if !c.seed(k, near, t0) {
		t.Error("a clock a second ahead was refused")
	}
}

// TestClockNeverBackwards drives random builds and index listings and
// checks the promises: a Last-Modified never decreases, is never more
// than a second ahead, and bytes other than those served before always
// get a later one (or none).
func TestClockNeverBackwards(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	c := newClocks(t0, false, nil)
	k := pageKey(0, 1)
	now := t0
	var last time.Time
	var lastHash uint64
	for i := range 10_000 {
		now = now.Add(time.Duration(r.IntN(1500)) * time.Millisecond)
		newest := t0.Add(time.Duration(r.IntN(100_000)-50_000) * time.Second)
		if r.IntN(3) == 0 {
			newest = time.Time{}
		}
		switch r.IntN(5) {
		case 0:
			c.listed(k, PageInfo{Number: 1, Version: string(rune('a' + r.IntN(3))), LastMod: newest}, now, r.IntN(2) == 0)
			continue
		case 1:
			c.told(k)
			continue
		}
		hash := uint64(r.IntN(4))
		at, _ := c.build(k, hash, newest, time.Time{}, now)
		if at.IsZero() {
			lastHash = hash + 100 // served without a clock: any next bytes are other bytes
			continue
		}
		if at.Before(last) {
			t.Fatalf("step %d: clock moved back from %v to %v", i, last, at)
		}
		if at.After(now.Add(time.Second)) {
			t.Fatalf("step %d: clock %v more than a second ahead of %v", i, at, now)
		}
		if lastHash != hash && !at.After(last) {
			t.Fatalf("step %d: other bytes under the same clock %v", i, at)
		}
		last, lastHash = at, hash
	}
}

// mutableSource is one page of URLs that a test can change.
type mutableSource struct {
	mu   sync.Mutex
	urls []URL
}

func (m *mutableSource) set(urls ...URL) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.urls = slices.Clone(urls)
}

func (m *mutableSource) Pages(context.Context) iter.Seq2[PageInfo, error] {
	return func(yield func(PageInfo, error) bool) {
		m.mu.Lock()
		info := PageInfo{Number: 1}
		for _, u := range m.urls {
			info.LastMod = later(info.LastMod, u.LastMod)
		}
		n := len(m.urls)
		m.mu.Unlock()
		if n > 0 {
			yield(info, nil)
		}
	}
}

func (m *mutableSource) URLs(_ context.Context, n int64) iter.Seq2[URL, error] {
	return func(yield func(URL, error) bool) {
		m.mu.Lock()
		urls := slices.Clone(m.urls)
		m.mu.Unlock()
		for _, u := range urls {
			if n != 1 || !yield(u, nil) {
				return
			}
		}
	}
}

// TestDeletionNot304 is the reported bug: deleting the newest URL of a
// page changed its bytes but moved its Last-Modified (and its lastmod in
// the index) backwards, so If-Modified-Since got 304 for changed bytes.
func TestDeletionNot304(t *testing.T) {
	clk := testkit.NewClock(t0)
	src := &mutableSource{}
	src.set(URL{Loc: "https://example.com/a", LastMod: t0.Add(-48 * time.Hour)},
		URL{Loc: "https://example.com/b", LastMod: t0.Add(-24 * time.Hour)})
	sm := newTestSitemap(t, Config{TTL: time.Minute, Now: clk.Now}, Section{Source: src})
	clk.Add(floorAhead)
	idx0 := get(sm, "/sitemap_index.xml").Body.String()
	w := get(sm, "/sitemap-1.xml.gz")
	lm0 := w.Header().Get("Last-Modified")
	if lm0 != t0.Add(2*time.Second).Format(http.TimeFormat) {
		t.Fatalf("Last-Modified %q, want two seconds after the start (nothing kept from before it)", lm0)
	}
	if want := "<lastmod>" + t0.Add(-24*time.Hour).Format("2006-01-02T15:04:05Z") + "</lastmod>"; !strings.Contains(idx0, want) {
		t.Fatalf("index before the deletion:\n%s\nwant the newest lastmod %s", idx0, want)
	}

	src.set(URL{Loc: "https://example.com/a", LastMod: t0.Add(-48 * time.Hour)}) // b is deleted
	clk.Add(2 * time.Minute)
	get(sm, "/sitemap_index.xml") // stale: refreshed in the background
	get(sm, "/sitemap-1.xml.gz")  // likewise
	sm.docs.wg.Wait()

	w = get(sm, "/sitemap-1.xml.gz", "If-Modified-Since", lm0)
	if w.Code != http.StatusOK {
		t.Fatalf("If-Modified-Since the old Last-Modified after a deletion: %d, want 200", w.Code)
	}
	lm1, _ := http.ParseTime(w.Header().Get("Last-Modified"))
	if old, _ := http.ParseTime(lm0); !lm1.After(old) || !lm1.Equal(clk.Now()) {
		t.Errorf("Last-Modified %v after the deletion, want %v (later than %v)", lm1, clk.Now(), old)
	}
	if w := get(sm, "/sitemap-1.xml.gz", "If-Modified-Since", lm1.Format(http.TimeFormat)); w.Code != http.StatusNotModified {
		t.Errorf("If-Modified-Since the new Last-Modified: %d, want 304", w.Code)
	}
	// The index was marked out of date by the page's new clock: its next
	// request serves it stale and refreshes it.
	get(sm, "/sitemap_index.xml")
	sm.docs.wg.Wait()
	idx1 := get(sm, "/sitemap_index.xml").Body.String()
	if want := "<lastmod>" + lm1.Format("2006-01-02T15:04:05Z") + "</lastmod>"; !strings.Contains(idx1, want) || idx1 == idx0 {
		t.Errorf("index after the deletion:\n%s\nwant %s", idx1, want)
	}
}

// build is built, less the listed time.
func (c *clocks) build(k docKey, hash uint64, newest, changed, now time.Time) (time.Time, bool) {
	lm, _, moved := c.built(k, hash, newest, changed, now, true, false)
	return lm, moved
}

// TestClockRaiseFloorListed: a file only listed here, whose clock came
// from the floor, takes the new floor when the Store lost its state: the
// clock another replica served for it before the loss is not known here
// (the crawl with a flushed Redis found the old floor given to new bytes).
func TestClockRaiseFloorListed(t *testing.T) {
	c := newClocks(t0, true, nil)
	k := pageKey(0, 1)
	at, _ := c.listed(k, PageInfo{Number: 1}, t0, false)
	c.raiseFloor(t0.Add(time.Minute))
	if lm, _ := c.build(k, 1, time.Time{}, time.Time{}, t0.Add(time.Minute)); !lm.After(at) {
		t.Errorf("first Last-Modified after the loss %v, not after the listed %v", lm, at)
	}
}

// TestClockRaiseFloorBuilt: after the Store lost its state, a file built
// here takes the new floor too (another replica may have given it a later
// clock than this one's, which the Store no longer holds): the same bytes
// get the floor, which every replica computes alike, and other bytes the
// floor as well, as no bytes had it yet.
func TestClockRaiseFloorBuilt(t *testing.T) {
	c := newClocks(t0, true, nil)
	k := pageKey(0, 1)
	before, _ := c.build(k, 1, time.Time{}, time.Time{}, t0.Add(10*time.Second))
	loss := t0.Add(time.Minute)
	c.raiseFloor(loss)
	floor := floorAfter(loss)
	if lm, _ := c.build(k, 1, time.Time{}, time.Time{}, loss); !lm.Equal(floor) {
		t.Errorf("the same bytes after the loss: Last-Modified %v, want the floor %v (before: %v)", lm, floor, before)
	}

	c2 := newClocks(t0, true, nil)
	c2.build(k, 1, time.Time{}, time.Time{}, t0.Add(10*time.Second))
	c2.raiseFloor(loss)
	if lm, _ := c2.build(k, 2, time.Time{}, time.Time{}, loss); !lm.Equal(floor) {
		t.Errorf("other bytes after the loss: Last-Modified %v, want the floor %v, which no bytes had", lm, floor)
	}
	if lm, _ := c2.build(k, 3, time.Time{}, time.Time{}, loss.Add(2*time.Second)); !lm.After(floor) {
		t.Errorf("third bytes: Last-Modified %v, not after the floor %v the second had", lm, floor)
	}
}

// TestClockUngivenSeed: once one replica gave the floor to some bytes,
// another replica's record of the file says so, even after a third built
// other bytes that could not be given a clock yet (rule 1) and stored
// its record over the first's: a replica that reads that record gives the
// next other bytes a later clock than the floor. (The Redis crawl found
// this: new bytes under the floor that older bytes had.)
func TestClockUngivenSeed(t *testing.T) {
	k := pageKey(0, 1)
	loss := t0.Add(time.Minute)
	floor := floorAfter(loss)
	replica := func() *clocks {
		c := newClocks(t0, true, nil)
		c.build(k, 100, time.Time{}, time.Time{}, t0.Add(10*time.Second)) // built before the loss
		c.raiseFloor(loss)
		return c
	}
	x, y, z := replica(), replica(), replica()
	if lm, _ := x.build(k, 1, time.Time{}, time.Time{}, loss); !lm.Equal(floor) {
		t.Fatalf("X gives %v, want the floor %v", lm, floor)
	}
	y.seed(k, x.state(k), loss)
	if lm, _ := y.build(k, 2, time.Time{}, time.Time{}, loss); !lm.IsZero() {
		t.Fatalf("Y gives %v to other bytes within the floor's second, want none yet", lm)
	}
	z.seed(k, y.state(k), loss) // Y's record replaced X's in the Store
	if lm, _ := z.build(k, 3, time.Time{}, time.Time{}, loss); !lm.IsZero() && !lm.After(floor) {
		t.Errorf("Z gives %v to other bytes, which X served under %v", lm, floor)
	}
}

// TestLastModifiedNotAfterDate (RFC 9110 §8.8.2.1): a fresh process with
// no Store, clock file or Source clock gives its files the floor, two
// seconds past its start; until the Date reaches it, they are served
// without Last-Modified (their ETag validates them), then under it. The
// clock's other promises hold: the same bytes keep the clock, changed
// bytes get a later one, If-Modified-Since is 304 only for those bytes.
func TestLastModifiedNotAfterDate(t *testing.T) {
	t.Run("wire", func(t *testing.T) { // real time, as net/http serves it
		sm := newTestSitemap(t, Config{}, Section{Source: listSource(URL{Loc: "https://example.com/a"})})
		srv := httptest.NewServer(sm)
		defer srv.Close()
		for _, path := range []string{"/sitemap_index.xml", "/sitemap-1.xml.gz", "/sitemap-1.xml", "/sitemap-1.txt", "/sitemap-1.html"} {
			res, err := srv.Client().Get(srv.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			date, err := http.ParseTime(res.Header.Get("Date"))
			if err != nil {
				t.Fatalf("%s: Date %q: %v", path, res.Header.Get("Date"), err)
			}
			if lm := res.Header.Get("Last-Modified"); lm != "" {
				if at, _ := http.ParseTime(lm); at.After(date) {
					t.Errorf("%s: Last-Modified %s is after Date %s", path, lm, res.Header.Get("Date"))
				}
			}
		}
	})
	clk := testkit.NewClock(t0.Add(300 * time.Millisecond))
	src := &mutableSource{}
	src.set(URL{Loc: "https://example.com/a"})
	sm := newTestSitemap(t, Config{TTL: time.Hour, Now: clk.Now}, Section{Source: src})
	floor := t0.Add(2 * time.Second).Format(http.TimeFormat)
	w := get(sm, "/sitemap-1.xml.gz")
	etag := w.Header().Get("Etag")
	if lm, date := w.Header().Get("Last-Modified"), w.Header().Get("Date"); lm != "" || date != t0.Format(http.TimeFormat) || etag == "" {
		t.Fatalf("at the start: Last-Modified %q, Date %q, ETag %q; want none, %s, one", lm, date, etag, t0.Format(http.TimeFormat))
	}
	if w := get(sm, "/sitemap-1.xml.gz", "If-None-Match", etag); w.Code != http.StatusNotModified {
		t.Errorf("If-None-Match before the Date reaches the clock: %d, want 304", w.Code)
	}
	clk.Add(time.Second)
	if lm := get(sm, "/sitemap-1.xml.gz").Header().Get("Last-Modified"); lm != "" {
		t.Errorf("a second later: Last-Modified %q, want none (the clock is %s)", lm, floor)
	}
	clk.Add(time.Second) // the Date is the clock: served under it
	w = get(sm, "/sitemap-1.xml.gz")
	if lm, date := w.Header().Get("Last-Modified"), w.Header().Get("Date"); lm != floor || date != floor || w.Header().Get("Etag") != etag {
		t.Fatalf("at the clock: Last-Modified %q, Date %q; want %s for both, and the same ETag", lm, date, floor)
	}
	if w := get(sm, "/sitemap-1.xml.gz", "If-Modified-Since", floor); w.Code != http.StatusNotModified {
		t.Errorf("If-Modified-Since the clock: %d, want 304", w.Code)
	}
	// New bytes: a clock a second past, not given until the Date reaches it.
	src.set(URL{Loc: "https://example.com/b"})
	if err := sm.Invalidate("", 1); err != nil {
		t.Fatal(err)
	}
	sm.docs.wg.Wait()
	w = get(sm, "/sitemap-1.xml.gz", "If-Modified-Since", floor)
	if w.Code != http.StatusOK || w.Header().Get("Etag") == etag {
		t.Fatalf("If-Modified-Since the old clock after a change: %d (ETag %s), want 200 with new bytes", w.Code, w.Header().Get("Etag"))
	}
	if lm := w.Header().Get("Last-Modified"); lm != "" {
		t.Errorf("the changed bytes at %s: Last-Modified %q, want none yet (their clock is a second ahead)", w.Header().Get("Date"), lm)
	}
	clk.Add(time.Second)
	next := t0.Add(3 * time.Second).Format(http.TimeFormat)
	if lm := get(sm, "/sitemap-1.xml.gz").Header().Get("Last-Modified"); lm != next {
		t.Errorf("a second later: Last-Modified %q, want %s", lm, next)
	}
}

// TestClockChangeTime: with a Source change time (PageInfo.Changed), a
// clock is the second after it, never later than the second the build
// read its Source in; bytes read in their change's own second get none
// until a build in a later one, as a later change in that second would
// get the same clock after a restart.
func TestClockChangeTime(t *testing.T) {
	c := newClocks(t0, false, nil)
	k := pageKey(0, 1)
	ch := t0.Add(10*time.Second + 400*time.Millisecond)
	if lm, _ := c.build(k, 1, time.Time{}, ch, ch.Add(100*time.Millisecond)); !lm.IsZero() {
		t.Errorf("read in its change's second: Last-Modified %v, want none", lm)
	}
	if lm, _ := c.build(k, 1, time.Time{}, ch, ch.Add(time.Second)); !lm.Equal(t0.Add(11 * time.Second)) {
		t.Errorf("read in the next second: Last-Modified %v, want %v", lm, t0.Add(11*time.Second))
	}
	// Other bytes, read with the change time before them (an index not
	// read again): a second past the clock before, never ahead of the read.
	if lm, _ := c.build(k, 2, time.Time{}, ch, t0.Add(11*time.Second)); !lm.IsZero() {
		t.Errorf("other bytes in the clock's second: Last-Modified %v, want none", lm)
	}
	if lm, _ := c.build(k, 2, time.Time{}, ch, t0.Add(12*time.Second)); !lm.Equal(t0.Add(12 * time.Second)) {
		t.Errorf("other bytes a second on: Last-Modified %v, want %v", lm, t0.Add(12*time.Second))
	}
	// An Invalidate's rebuild, from an index read before the change: a
	// second past the clock before, which the same bytes keep when a
	// build reads the change time (rule 2; a restart gives them its).
	c.told(k)
	if lm, _ := c.build(k, 3, time.Time{}, ch, t0.Add(20*time.Second)); !lm.Equal(t0.Add(13 * time.Second)) {
		t.Errorf("told, with the change time before it: Last-Modified %v, want %v", lm, t0.Add(13*time.Second))
	}
	ch2 := t0.Add(19*time.Second + 900*time.Millisecond)
	c.listed(k, PageInfo{Number: 1, Changed: ch2}, t0.Add(20*time.Second), true)
	if lm, _ := c.build(k, 3, time.Time{}, ch2, t0.Add(21*time.Second)); !lm.Equal(t0.Add(13 * time.Second)) {
		t.Errorf("the same bytes with their change time: Last-Modified %v, want %v as before", lm, t0.Add(13*time.Second))
	}
	if lm, _ := c.build(k, 33, time.Time{}, ch2, t0.Add(22*time.Second)); !lm.Equal(t0.Add(20 * time.Second)) {
		t.Errorf("other bytes with their change time: Last-Modified %v, want %v", lm, t0.Add(20*time.Second))
	}
	// A change time ahead of the server's time: other bytes of a file
	// with a clock take now (rule 4), before the clock it gives; a first
	// build takes none until it is past.
	ahead := t0.Add(40 * time.Second)
	if lm, _ := c.build(k, 4, time.Time{}, ahead, t0.Add(30*time.Second)); !lm.Equal(t0.Add(30 * time.Second)) {
		t.Errorf("a change time ahead: Last-Modified %v, want now", lm)
	}
	k2 := pageKey(0, 2)
	if lm, _ := c.build(k2, 1, time.Time{}, ahead, t0.Add(30*time.Second)); !lm.IsZero() {
		t.Errorf("a first build, change time ahead: Last-Modified %v, want none", lm)
	}
	if lm, _ := c.build(k2, 1, time.Time{}, ahead, t0.Add(41*time.Second)); !lm.Equal(t0.Add(41 * time.Second)) {
		t.Errorf("once past: Last-Modified %v, want %v", lm, t0.Add(41*time.Second))
	}
}
