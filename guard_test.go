package sitemap

import (
	"bytes"
	"context"
	"iter"
	"log/slog"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

// TestGoexitSource: a Source that calls runtime.Goexit in its iterator (as
// t.FailNow does) fails its build as a panic does: 503 at once, logged
// once with the stack, and not read again before RetryAfter.
func TestGoexitSource(t *testing.T) {
	for _, tc := range []struct{ name, path string }{
		{"URLs", "/sitemap-1.xml.gz"},
		{"Pages", "/sitemap_index.xml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := testkit.NewClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
			var pagesCalls, urlsCalls atomic.Int64
			src := SourceFunc{
				PagesFunc: func(context.Context) iter.Seq2[PageInfo, error] {
					return func(yield func(PageInfo, error) bool) {
						if pagesCalls.Add(1) > 1 && tc.name == "Pages" {
							runtime.Goexit()
						}
						yield(PageInfo{Number: 1}, nil)
					}
				},
				URLsFunc: func(context.Context, int64) iter.Seq2[URL, error] {
					return func(yield func(URL, error) bool) {
						urlsCalls.Add(1)
						if yield(URL{Loc: "https://example.com/a"}, nil) {
							runtime.Goexit()
						}
					}
				},
			}
			var logs testkit.SyncBuffer
			sm := newTestSitemap(t, Config{TTL: time.Minute, BuildTimeout: 3 * time.Second, Now: clk.Now,
				Logger: slog.New(slog.NewTextHandler(&logs, nil))}, Section{Source: src})
			get(sm, "/sitemap_index.xml") // Pages once, fine
			clk.Add(2 * time.Minute)      // the index is stale: Pages again
			if tc.name == "Pages" {
				sm.docs.cache.Remove(indexKey) // a cold index: the request waits for it
			}
			start := time.Now()
			for range 3 {
				if w := get(sm, tc.path); w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") != "60" {
					t.Fatalf("status %d, want 503 with Retry-After", w.Code)
				}
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("three requests took %v: each waited for a build that had ended", d)
			}
			calls := map[string]*atomic.Int64{"URLs": &urlsCalls, "Pages": &pagesCalls}[tc.name]
			want := map[string]int64{"URLs": 1, "Pages": 2}[tc.name]
			if n := calls.Load(); n != want {
				t.Errorf("%s called %d times, want %d: a failure is not read again before RetryAfter", tc.name, n, want)
			}
			if n := strings.Count(logs.String(), "build failed"); n != 1 || !strings.Contains(logs.String(), "Goexit") || !strings.Contains(logs.String(), "goroutine") {
				t.Errorf("%d failures logged, want 1 saying Goexit, with the stack:\n%s", n, logs.String())
			}
			clk.Add(61 * time.Second) // past RetryAfter: built again, once
			get(sm, tc.path)
			if n := calls.Load(); n != want+1 {
				t.Errorf("%s called %d times after RetryAfter, want %d", tc.name, n, want+1)
			}
		})
	}
}

// endlessPages is a Source whose Pages never ends unless yield returns
// false (up to a bound, so that a test fails rather than eats the
// machine), and which ignores its context: at page wait it waits for ctx
// to end, then goes on. It counts the pages yielded and reports whether
// the iterator was stopped.
type endlessPages struct {
	wait    int64
	yielded atomic.Int64
	stopped chan bool // true if yield returned false
}

const endlessBound = 1_000_000

func newEndless(wait int64) *endlessPages {
	return &endlessPages{wait: wait, stopped: make(chan bool, 1)}
}

func (s *endlessPages) Pages(ctx context.Context) iter.Seq2[PageInfo, error] {
	return func(yield func(PageInfo, error) bool) {
		for n := int64(1); n <= endlessBound; n++ {
			if n == s.wait {
				<-ctx.Done()
			}
			s.yielded.Store(n)
			if !yield(PageInfo{Number: n}, nil) {
				s.stopped <- true
				return
			}
		}
		s.stopped <- false
	}
}

func (s *endlessPages) URLs(_ context.Context, n int64) iter.Seq2[URL, error] {
	return func(yield func(URL, error) bool) {
		yield(URL{Loc: "https://example.com/" + strconv.FormatInt(n, 10)}, nil)
	}
}

// TestPagesDeadline: Pages is read under the build's deadline as URLs is:
// a Pages that never ends and ignores its context is stopped within
// ctxCheckEvery pages of the deadline, and the index is a 503.
func TestPagesDeadline(t *testing.T) {
	src := newEndless(1000)
	var logs testkit.SyncBuffer
	sm := newTestSitemap(t, Config{BuildTimeout: 50 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(&logs, nil))}, Section{Source: src})
	if w := get(sm, "/sitemap_index.xml"); w.Code != http.StatusServiceUnavailable {
		t.Errorf("index = %d, want 503", w.Code)
	}
	select {
	case stopped := <-src.stopped:
		if n := src.yielded.Load(); !stopped || n > 1000+ctxCheckEvery {
			t.Errorf("Pages read to page %d (stopped %v), past its deadline at page 1000", n, stopped)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Pages is still read")
	}
	waitFor(t, func() bool { return sm.Stats().BuildErrors == 1 })
	if n := strings.Count(logs.String(), "build failed"); n != 1 || !strings.Contains(logs.String(), "deadline exceeded") {
		t.Errorf("%d failures logged, want 1 saying deadline exceeded:\n%s", n, logs.String())
	}
}

// TestPagesBounded: an index lists at most maxIndexPages pages (500 full
// index files); a Pages that yields more fails the index at the first page
// past it, however fast it yields, so memory stays bounded. Exactly as
// many is served.
func TestPagesBounded(t *testing.T) {
	var logs testkit.SyncBuffer
	src := newEndless(0)
	sm := newTestSitemap(t, Config{Logger: slog.New(slog.NewTextHandler(&logs, nil))}, Section{Source: src})
	sm.site.maxPages = 1000
	if w := get(sm, "/sitemap_index.xml"); w.Code != http.StatusServiceUnavailable {
		t.Errorf("index of endless pages = %d, want 503", w.Code)
	}
	if stopped := <-src.stopped; !stopped || src.yielded.Load() != 1001 {
		t.Errorf("Pages read to page %d (stopped %v), want 1001", src.yielded.Load(), stopped)
	}
	if n := strings.Count(logs.String(), "build failed"); n != 1 || !strings.Contains(logs.String(), "more than 1000 pages") {
		t.Errorf("%d failures logged, want 1 saying more than 1000 pages:\n%s", n, logs.String())
	}

	full := newTestSitemap(t, Config{}, Section{Source: FromRange(func(context.Context) (int64, error) { return 1000, nil },
		func(context.Context, int64, int64) iter.Seq2[URL, error] { return func(func(URL, error) bool) {} }, 1)})
	full.site.maxPages = 1000
	if w := get(full, "/sitemap_index.xml"); w.Code != 200 || decodeAll(t, w.Body.Bytes()) != 1000 {
		t.Errorf("an index of exactly 1000 pages = %d", w.Code)
	}
}

// TestPageOverSize: a Source that yields more URLs than the page size (here
// 200,000 for a page of 1,000) fails the page at the first URL past it:
// read no further, one log line (not one per URL), 503 on a cold page, the
// last good copy kept on a cached one, and nothing of the failure cached:
// once the Source heals, the page is built.
func TestPageOverSize(t *testing.T) {
	clk := testkit.NewClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	var size, yielded atomic.Int64 // URLs a page yields; URLs yielded
	size.Store(1000)
	src := SourceFunc{
		PagesFunc: func(context.Context) iter.Seq2[PageInfo, error] {
			return func(yield func(PageInfo, error) bool) {
				_ = yield(PageInfo{Number: 1}, nil) && yield(PageInfo{Number: 2}, nil)
			}
		},
		URLsFunc: func(_ context.Context, n int64) iter.Seq2[URL, error] {
			return func(yield func(URL, error) bool) {
				for i := range size.Load() {
					yielded.Add(1)
					if !yield(URL{Loc: "https://example.com/" + strconv.FormatInt(n, 10) + "/" + strconv.FormatInt(i, 10)}, nil) {
						return
					}
				}
			}
		},
	}
	var logs testkit.SyncBuffer
	sm := newTestSitemap(t, Config{TTL: time.Minute, Now: clk.Now, Logger: slog.New(slog.NewTextHandler(&logs, nil))},
		Section{Source: src, PageSize: 1000})
	good := get(sm, "/sitemap-1.xml.gz").Body.Bytes()

	size.Store(200_000)
	yielded.Store(0)
	if w := get(sm, "/sitemap-2.xml.gz"); w.Code != http.StatusServiceUnavailable {
		t.Errorf("a page of 200,000 URLs for 1,000 = %d, want 503", w.Code)
	}
	if n := yielded.Load(); n != 1001 {
		t.Errorf("%d URLs read, want 1,001: the first past the page size ends the page", n)
	}
	if n := strings.Count(logs.String(), "\n"); n != 1 || !strings.Contains(logs.String(), "more URLs than the section's page size, 1000") {
		t.Errorf("%d log lines, want 1 saying more URLs than the page size:\n%.2000s", n, logs.String())
	}

	clk.Add(2 * time.Minute) // page 1 is stale: its refresh fails, its last good copy stays
	for range 2 {
		if w := get(sm, "/sitemap-1.xml.gz"); w.Code != 200 || !bytes.Equal(w.Body.Bytes(), good) {
			t.Fatalf("the last good copy = %d", w.Code)
		}
		sm.docs.wg.Wait()
	}
	if n := sm.Stats().BuildErrors; n != 2 {
		t.Errorf("%d build errors, want 2", n)
	}

	size.Store(1000)
	clk.Add(61 * time.Second) // past RetryAfter, the Source healed
	if w := get(sm, "/sitemap-2.xml.gz"); w.Code != 200 || decodeAll(t, testkit.Gunzip(t, w.Body.Bytes())) != 1000 {
		t.Errorf("page 2 once the Source heals = %d", w.Code)
	}
}
