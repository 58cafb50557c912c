package sitemap

import (
	"context"
	"iter"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

// changeSource is one page whose Source keeps its change time
// (PageInfo.Changed) where it lasts, as sqlsource's page summary does: a
// write gives the page new bytes and, as its change time, the instant of
// the write (not rounded to a second).
type changeSource struct {
	mu      sync.Mutex
	rev     int
	changed time.Time
	step    bool // as sqlsource's summary: every write moves the change time a second past the one before, or to the write's second if later
}

func (s *changeSource) write(at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rev++
	if s.step && !s.changed.IsZero() {
		at = later(s.changed.Add(time.Second), at.Truncate(time.Second))
	}
	s.changed = at
}

func (s *changeSource) Pages(context.Context) iter.Seq2[PageInfo, error] {
	return func(yield func(PageInfo, error) bool) {
		s.mu.Lock()
		info := PageInfo{Number: 1, Version: strconv.Itoa(s.rev), Changed: s.changed}
		s.mu.Unlock()
		yield(info, nil)
	}
}

func (s *changeSource) URLs(_ context.Context, n int64) iter.Seq2[URL, error] {
	return func(yield func(URL, error) bool) {
		s.mu.Lock()
		rev := s.rev
		s.mu.Unlock()
		if n == 1 {
			yield(URL{Loc: "https://example.com/p?rev=" + strconv.Itoa(rev)}, nil)
		}
	}
}

// holder is a crawler that keeps every copy of a file it was given with
// a Last-Modified, across the processes that served it, and checks each
// response against them: a Last-Modified is never given to two different
// bytes, never moves back, and If-Modified-Since any date it holds is 304
// only for the bytes it holds under that date.
type holder struct {
	t    *testing.T
	path string
	held map[string]string // Last-Modified → body
	last time.Time         // the latest Last-Modified given
}

func newHolder(t *testing.T, path string) *holder {
	return &holder{t: t, path: path, held: map[string]string{}}
}

// fetch GETs the file from sm, after the background builds a previous
// request started, checks the response and keeps it. It returns the
// body and Last-Modified.
func (h *holder) fetch(sm *Sitemap, step string) (body, lastMod string) {
	h.t.Helper()
	sm.docs.wg.Wait()
	w := get(sm, h.path)
	if w.Code != http.StatusOK {
		h.t.Fatalf("%s: GET %s = %d", step, h.path, w.Code)
	}
	body, lastMod = w.Body.String(), w.Header().Get("Last-Modified")
	if lastMod == "" {
		return body, ""
	}
	at, err := http.ParseTime(lastMod)
	if err != nil {
		h.t.Fatalf("%s: Last-Modified %q: %v", step, lastMod, err)
	}
	if date, _ := http.ParseTime(w.Header().Get("Date")); at.After(date) {
		h.t.Errorf("%s: Last-Modified %s after the Date %s", step, lastMod, w.Header().Get("Date"))
	}
	if at.Before(h.last) {
		h.t.Errorf("%s: Last-Modified %s, earlier than %s given before", step, lastMod, h.last.Format(http.TimeFormat))
	}
	h.last = later(h.last, at)
	if b, ok := h.held[lastMod]; ok && b != body {
		h.t.Errorf("%s: Last-Modified %s given to other bytes than before:\n%s\nthen\n%s", step, lastMod, b, body)
	}
	h.held[lastMod] = body
	return body, lastMod
}

// check sends If-Modified-Since every date held to sm: a 304 must be for
// the bytes held under it.
func (h *holder) check(sm *Sitemap, step string) {
	h.t.Helper()
	sm.docs.wg.Wait()
	body := get(sm, h.path).Body.String()
	for lm, b := range h.held {
		if w := get(sm, h.path, "If-Modified-Since", lm); w.Code == http.StatusNotModified && b != body {
			h.t.Errorf("%s: If-Modified-Since %s = 304, but the bytes held under it changed", step, lm)
		}
	}
}

// TestRestartChangeInTheSecond is the restart the issue found (issue 27,
// point 5), with a Source that keeps its change time: a process gives a
// page's bytes a clock, the page changes again within that same second,
// and the next process, which knows the page only by the Source's change
// time, must not serve the new bytes under the old bytes' date. Then,
// with no change, a restart keeps the Last-Modified and its 304.
func TestRestartChangeInTheSecond(t *testing.T) {
	clk := testkit.NewClock(t0.Add(200 * time.Millisecond))
	src := &changeSource{}
	src.write(t0.Add(-time.Hour)) // installed an hour ago
	cfg := Config{TTL: time.Hour, Now: clk.Now}
	h := newHolder(t, "/sitemap-1.xml")

	a := newTestSitemap(t, cfg, Section{Source: src})
	h.fetch(a, "first process")
	clk.Add(300 * time.Millisecond)
	src.write(clk.Now()) // a write, which a Watcher tells at once
	if err := a.Invalidate("", 1); err != nil {
		t.Fatal(err)
	}
	h.fetch(a, "the write served")
	h.fetch(a, "the write served, again")
	clk.Add(300 * time.Millisecond)
	src.write(clk.Now()) // another in the same second; the process stops before it serves it
	a.Close()

	clk.Add(400 * time.Millisecond) // a new process, in the next second
	b := newTestSitemap(t, cfg, Section{Source: src})
	h.check(b, "after the restart")
	h.fetch(b, "after the restart")
	clk.Add(2 * time.Second)
	h.fetch(b, "two seconds on")
	_, lm := h.fetch(b, "two seconds on, again")
	if lm == "" {
		t.Fatal("two seconds after the last write, the page has no Last-Modified")
	}
	h.check(b, "two seconds on")

	b.Close()
	clk.Add(time.Minute)
	c := newTestSitemap(t, cfg, Section{Source: src})
	if w := get(c, h.path, "If-Modified-Since", lm); w.Code != http.StatusNotModified {
		t.Errorf("a restart with no change: If-Modified-Since %s = %d, want 304", lm, w.Code)
	}
	if _, again := h.fetch(c, "a restart with no change"); again != lm {
		t.Errorf("a restart with no change: Last-Modified %q, want %q as before", again, lm)
	}
}

// TestRestartsWithChangeTimes drives writes (told by Invalidate or left
// to the TTL; in a third of the runs, all left to the TTL), requests and restarts at random instants, with a
// Source that keeps its change time (the write's instant; or, as
// sqlsource's, a second past the one before, which a burst runs ahead of
// the server's time), and checks every response with a
// holder: no Last-Modified for two different bytes, none moving back, no
// 304 for bytes other than those held. Each run ends quiet: once a
// crawler has read the index and the page past the TTL and the last
// change time, the page has a Last-Modified, and a restart is checked
// as above. (That it keeps an unchanged page's is
// TestRestartChangeInTheSecond's: bytes given a clock from an older or
// ahead change time, rules 1 and 4, get a later one from a restart.)
func TestRestartsWithChangeTimes(t *testing.T) {
	for seed := range uint64(100) {
		t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) {
			src := &changeSource{step: seed%2 == 1} // odd seeds: change times that run ahead in a burst
			restartsWithChangeTimes(t, seed, src, src)
		})
	}
}

// restartsWithChangeTimes is a run of TestRestartsWithChangeTimes from
// seed: src is written, ss served (src, or a Source that reads it).
func restartsWithChangeTimes(t *testing.T, seed uint64, src *changeSource, ss Source) {
	r := rand.New(rand.NewPCG(seed, 27))
	clk := testkit.NewClock(t0.Add(time.Duration(r.IntN(1000)) * time.Millisecond))
	src.write(t0.Add(-time.Hour))
	cfg := Config{TTL: time.Duration(1+r.IntN(3)) * time.Second, Now: clk.Now}
	h := newHolder(t, "/sitemap-1.xml")
	sm := newQuickSitemap(t, cfg, ss)
	tells := seed%3 != 0 // writes told by Invalidate, or left to the TTL
	for i := range 200 {
		step := "step " + strconv.Itoa(i)
		clk.Add(time.Duration(r.IntN(700)) * time.Millisecond)
		switch n := r.IntN(10); {
		case n < 3:
			src.write(clk.Now())
			if tells && r.IntN(3) > 0 {
				if err := sm.Invalidate("", 1); err != nil {
					t.Fatal(err)
				}
			}
		case n == 3:
			sm.Close()
			sm = newQuickSitemap(t, cfg, ss)
			h.check(sm, step+", restarted")
		case n == 4:
			sm.docs.wg.Wait()
			get(sm, "/sitemap_index.xml")
		default:
			h.fetch(sm, step)
		}
	}
	// Quiet: past the TTL and the last change time (which a burst
	// may have run ahead), a crawler reads the index and the page,
	// then a second later the page again.
	clk.Add(max(cfg.TTL, src.changed.Sub(clk.Now())) + time.Second)
	sm.docs.wg.Wait()
	get(sm, "/sitemap_index.xml")
	h.fetch(sm, "quiet")
	clk.Add(time.Second)
	h.fetch(sm, "quiet, a second on")
	_, lm := h.fetch(sm, "quiet, again")
	if lm == "" {
		t.Fatal("quiet, the page has no Last-Modified")
	}
	sm.Close()
	clk.Add(time.Second)
	sm = newQuickSitemap(t, cfg, ss)
	h.fetch(sm, "a quiet restart")
	h.check(sm, "a quiet restart")
}

// newQuickSitemap is newTestSitemap of src, whose Invalidate rebuilds a
// page at once however soon after the one before (rebuilds, rule 2, is
// in real time: the test's time is a fake clock).
func newQuickSitemap(t *testing.T, cfg Config, src Source) *Sitemap {
	sm := newTestSitemap(t, cfg, Section{Source: src})
	sm.docs.rebuilds.q.SetTurn(0)
	return sm
}
