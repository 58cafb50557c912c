package sitemap

import (
	"context"
	"iter"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

var t0 = time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)

func TestClockFirstBuild(t *testing.T) {
	c := newClocks()
	k1, k2 := pageKey(0, 1), pageKey(0, 2)
	// No history: the newest lastmod, so a restart does not make every
	// file look new; without lastmods, the build time (to the second).
	if at, moved := c.built(k1, 1, t0.Add(-time.Hour), t0); !at.Equal(t0.Add(-time.Hour)) || moved {
		t.Errorf("first build with a lastmod: %v, moved %v", at, moved)
	}
	if at, _ := c.built(k2, 1, time.Time{}, t0.Add(700*time.Millisecond)); !at.Equal(t0) {
		t.Errorf("first build without lastmod: %v, want %v", at, t0)
	}
}

func TestClockMovesWithTheBytes(t *testing.T) {
	c := newClocks()
	k := pageKey(0, 1)
	at0, _ := c.built(k, 1, t0.Add(-time.Hour), t0)

	// The same bytes an hour later: the clock stays.
	if at, moved := c.built(k, 1, t0.Add(-time.Hour), t0.Add(time.Hour)); !at.Equal(at0) || moved {
		t.Errorf("same bytes: %v (moved %v), want %v", at, moved, at0)
	}
	// The newest URL was deleted: other bytes, an older newest lastmod.
	// The clock moves forward, to the build time, never back.
	at1, moved := c.built(k, 2, t0.Add(-2*time.Hour), t0.Add(2*time.Hour))
	if !at1.Equal(t0.Add(2*time.Hour)) || !moved {
		t.Errorf("after a deletion: %v (moved %v), want %v", at1, moved, t0.Add(2*time.Hour))
	}
	// Other bytes again within the same second: still strictly later, so
	// If-Modified-Since with the previous clock cannot match them.
	at2, _ := c.built(k, 3, time.Time{}, t0.Add(2*time.Hour+300*time.Millisecond))
	if !at2.After(at1) {
		t.Errorf("a second change in the same second: %v, not after %v", at2, at1)
	}
	// A URL lastmod in the future of the clock carries it along.
	if at, _ := c.built(k, 4, t0.Add(48*time.Hour), t0.Add(3*time.Hour)); !at.Equal(t0.Add(48 * time.Hour)) {
		t.Errorf("newest lastmod ahead: %v", at)
	}
}

func TestClockListedByIndex(t *testing.T) {
	c := newClocks()
	k := pageKey(0, 1)
	// The index lists a page never built: its lastmod, or the index's
	// build time; the page's first build keeps that clock.
	if at, changed := c.listed(k, PageInfo{Number: 1, Version: "v1"}, t0, false); !at.Equal(t0) || changed {
		t.Errorf("listed without lastmod: %v %v", at, changed)
	}
	if at, moved := c.built(k, 7, time.Time{}, t0.Add(time.Hour)); !at.Equal(t0) || moved {
		t.Errorf("first build after the index: %v (moved %v), want the index's %v", at, moved, t0)
	}
	// Same Version: no change.
	if at, changed := c.listed(k, PageInfo{Number: 1, Version: "v1"}, t0.Add(2*time.Hour), false); !at.Equal(t0) || changed {
		t.Errorf("same Version: %v %v", at, changed)
	}
	// A new Version for a page that is cached: the index keeps the clock
	// of the bytes served, and says the page changed.
	if at, changed := c.listed(k, PageInfo{Number: 1, Version: "v2"}, t0.Add(3*time.Hour), true); !at.Equal(t0) || !changed {
		t.Errorf("new Version, cached: %v %v", at, changed)
	}
	// A new Version for a page that is not cached: the clock moves now,
	// and the next build, whatever its bytes, serves under that clock.
	at, changed := c.listed(k, PageInfo{Number: 1, Version: "v3"}, t0.Add(4*time.Hour), false)
	if !at.Equal(t0.Add(4*time.Hour)) || !changed {
		t.Errorf("new Version, not cached: %v %v", at, changed)
	}
	if got, moved := c.built(k, 8, time.Time{}, t0.Add(5*time.Hour)); !got.Equal(at) || moved {
		t.Errorf("build after the index moved the clock: %v (moved %v), want %v", got, moved, at)
	}
	// A newer lastmod than the bytes served counts as a change too.
	if _, changed := c.listed(k, PageInfo{Number: 1, Version: "v3", LastMod: t0.Add(6 * time.Hour)}, t0.Add(6*time.Hour), true); !changed {
		t.Error("a newer lastmod is not a change")
	}
}

func TestClockInvalidated(t *testing.T) {
	c := newClocks()
	k := pageKey(0, 1)
	c.invalidated(k, t0) // unknown: nothing to move
	at0, _ := c.built(k, 1, time.Time{}, t0)
	c.invalidated(k, t0.Add(time.Minute))
	at1, moved := c.built(k, 2, time.Time{}, t0.Add(2*time.Minute))
	if !at1.Equal(t0.Add(time.Minute)) || !at1.After(at0) || moved {
		t.Errorf("after Invalidate: %v (moved %v), want %v", at1, moved, t0.Add(time.Minute))
	}
}

// TestClockNeverBackwards drives random builds and index listings and
// checks the two promises: a clock never decreases, and bytes other than
// those served before always get a later clock.
func TestClockNeverBackwards(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	c := newClocks()
	k := pageKey(0, 1)
	now := t0
	var last time.Time
	var lastHash uint64
	for i := range 10_000 {
		now = now.Add(time.Duration(r.IntN(3000)) * time.Millisecond)
		newest := t0.Add(time.Duration(r.IntN(100_000)-50_000) * time.Second)
		if r.IntN(3) == 0 {
			newest = time.Time{}
		}
		if r.IntN(4) == 0 {
			c.listed(k, PageInfo{Number: 1, Version: string(rune('a' + r.IntN(3))), LastMod: newest}, now, r.IntN(2) == 0)
			continue
		}
		hash := uint64(r.IntN(4))
		at, _ := c.built(k, hash, newest, now)
		if at.Before(last) {
			t.Fatalf("step %d: clock moved back from %v to %v", i, last, at)
		}
		if i > 0 && lastHash != hash && !at.After(last) {
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
	idx0 := get(sm, "/sitemap_index.xml").Body.String()
	w := get(sm, "/sitemap-1.xml.gz")
	lm0 := w.Header().Get("Last-Modified")
	if lm0 != t0.Add(-24*time.Hour).Format(http.TimeFormat) {
		t.Fatalf("Last-Modified %q, want the newest lastmod", lm0)
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
