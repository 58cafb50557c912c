package sitemap

import (
	"context"
	"iter"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

var _ PageReporter = (*reportingSource)(nil)

// reportingSource is a changeSource (as sqlsource's summary: every write
// moves the change time a second past the one before) that reports one
// page's PageInfo, and counts its reads.
type reportingSource struct {
	changeSource
	looks, pages, urls atomic.Int64
	// onLook, if set, runs after each PageInfo with its count.
	onLook func(n int64)
}

func (s *reportingSource) PageInfo(ctx context.Context, n int64) (PageInfo, error) {
	var info PageInfo
	for i := range s.changeSource.Pages(ctx) {
		info = i
	}
	if f := s.onLook; f != nil {
		f(s.looks.Add(1))
	} else {
		s.looks.Add(1)
	}
	return info, nil
}

func (s *reportingSource) Pages(ctx context.Context) iter.Seq2[PageInfo, error] {
	s.pages.Add(1)
	return s.changeSource.Pages(ctx)
}

func (s *reportingSource) URLs(ctx context.Context, n int64) iter.Seq2[URL, error] {
	s.urls.Add(1)
	return s.changeSource.URLs(ctx, n)
}

// TestToldPageExactClock: a page rebuilt on Invalidate, whose Source
// reports its PageInfo, gets the clock its change time gives (clock.go,
// rule 5), as a restart does: with no Store and no clock file, a restart
// keeps its Last-Modified and 304. Two changes within a second each read
// the page once and the index once, and the clock ahead of the Date is
// served once the Date reaches it, with no build more.
func TestToldPageExactClock(t *testing.T) {
	clk := testkit.NewClock(t0.Add(200 * time.Millisecond))
	src := &reportingSource{changeSource: changeSource{step: true}}
	src.write(t0.Add(-time.Hour)) // installed an hour ago
	cfg := Config{TTL: time.Hour, Now: clk.Now}
	h := newHolder(t, "/sitemap-1.xml")
	a := newTestSitemap(t, cfg, Section{Source: src})
	get(a, "/sitemap_index.xml")
	h.fetch(a, "first process")

	var want string // the clock of the last write's change time
	for i, step := range []time.Duration{300 * time.Millisecond, 200 * time.Millisecond} {
		clk.Add(step)
		src.write(clk.Now()) // the write; a Watcher's Invalidate
		src.mu.Lock()
		want = second(src.changed).Add(time.Second).Format(http.TimeFormat)
		src.mu.Unlock()
		urls, pages, builds := src.urls.Load(), src.pages.Load(), a.Stats().Builds
		if err := a.Invalidate("", 1); err != nil {
			t.Fatal(err)
		}
		waitFor(t, func() bool { return a.Stats().Builds >= builds+2 }) // the page, then the index
		if _, lm := h.fetch(a, "the write served"); lm != "" {
			t.Errorf("write %d: Last-Modified %s before the Date reaches the clock %s", i+1, lm, want)
		}
		get(a, "/sitemap_index.xml")
		a.docs.wg.Wait()
		if got := src.urls.Load() - urls; got != 1 {
			t.Errorf("write %d: %d reads of the page, want 1", i+1, got)
		}
		if got := src.pages.Load() - pages; got != 1 {
			t.Errorf("write %d: %d reads of the index, want 1", i+1, got)
		}
	}
	if got := src.looks.Load(); got != 4 {
		t.Errorf("%d looks at the page for two rebuilds, want 4", got)
	}
	urls := src.urls.Load()
	clk.Add(2 * time.Second) // the Date passes the clock
	_, lm := h.fetch(a, "the Date past the clock")
	if lm != want {
		t.Errorf("Last-Modified %q, want %q: the clock the change time gives", lm, want)
	}
	get(a, "/sitemap_index.xml") // the index, built twice within a second, has its own clock to take (rule 1)
	a.docs.wg.Wait()
	h.fetch(a, "the Date past the clock, again")
	if got := src.urls.Load() - urls; got != 0 {
		t.Errorf("the Date passing the clock read the page %d times, want 0", got)
	}

	a.Close()
	clk.Add(time.Minute) // a restart, with nothing kept but the Source's change time
	b := newTestSitemap(t, cfg, Section{Source: src})
	h.check(b, "after the restart")
	if w := get(b, h.path, "If-Modified-Since", lm); w.Code != http.StatusNotModified {
		t.Errorf("a restart with no change: If-Modified-Since %s = %d, want 304", lm, w.Code)
	}
	if _, again := h.fetch(b, "after the restart"); again != lm {
		t.Errorf("a restart with no change: Last-Modified %q, want %q as before", again, lm)
	}
}

// TestToldPageChangedBetweenLooks: a write between the rebuild's look
// before and its read of the URLs makes the look after show another
// Version: the bytes are not those of the first look's change time, and
// do not take its clock (rule 1 gives them one). A restart gives them a
// later one, never an earlier one or another's, and 304 only to them.
func TestToldPageChangedBetweenLooks(t *testing.T) {
	clk := testkit.NewClock(t0.Add(200 * time.Millisecond))
	src := &reportingSource{changeSource: changeSource{step: true}}
	src.write(t0.Add(-time.Hour))
	cfg := Config{TTL: time.Hour, Now: clk.Now}
	h := newHolder(t, "/sitemap-1.xml")
	a := newTestSitemap(t, cfg, Section{Source: src})
	get(a, "/sitemap_index.xml")
	h.fetch(a, "first process")

	clk.Add(2 * time.Second)
	src.write(clk.Now().Add(-1500 * time.Millisecond))
	src.mu.Lock()
	first := second(src.changed).Add(time.Second)
	src.mu.Unlock()
	src.onLook = func(n int64) {
		if n == 1 {
			src.write(clk.Now()) // after the look before, before the URLs
		}
	}
	builds := a.Stats().Builds
	if err := a.Invalidate("", 1); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return a.Stats().Builds >= builds+2 })
	body, lm := h.fetch(a, "the writes served")
	if lm == first.Format(http.TimeFormat) {
		t.Errorf("Last-Modified %s: the clock of the change time before the write, for bytes after it", lm)
	}
	if lm == "" {
		t.Error("no Last-Modified: rule 1 gives the bytes one")
	}
	clk.Add(3 * time.Second)
	h.fetch(a, "later")

	a.Close()
	clk.Add(time.Minute)
	b := newTestSitemap(t, cfg, Section{Source: src})
	h.check(b, "after the restart")
	if got, _ := h.fetch(b, "after the restart"); got != body {
		t.Error("other bytes after the restart with no write")
	}
}

// TestRestartsWithToldExactClocks is TestRestartsWithChangeTimes with a
// PageReporter whose change times are settled (a second past the one
// before with every write), and writes made during the rebuilds' looks
// too (one in five looks, before the URLs are read or after, with a
// change time a second past the one before): the same
// checks, with rule 5 giving told pages their change times' clocks.
func TestRestartsWithToldExactClocks(t *testing.T) {
	for seed := range uint64(60) {
		t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) {
			src := &reportingSource{changeSource: changeSource{step: true}}
			src.onLook = func(n int64) {
				if (n+int64(seed))%5 == 0 {
					src.write(t0) // its change time a second past the one before
				}
			}
			restartsWithChangeTimes(t, seed, &src.changeSource, src)
		})
	}
}
