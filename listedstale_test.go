package sitemap

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"sync/atomic"
	"testing"
	"time"
)

// listedSource has pages pages of one URL each; while blocked, its Pages
// waits for its context to end (an index build that cannot finish).
type listedSource struct {
	pages   atomic.Int64
	blocked atomic.Bool
}

func (s *listedSource) Pages(ctx context.Context) iter.Seq2[PageInfo, error] {
	return func(yield func(PageInfo, error) bool) {
		if s.blocked.Load() {
			<-ctx.Done()
			yield(PageInfo{}, ctx.Err())
			return
		}
		for p := range s.pages.Load() {
			if !yield(PageInfo{Number: p + 1}, nil) {
				return
			}
		}
	}
}

func (s *listedSource) URLs(_ context.Context, page int64) iter.Seq2[URL, error] {
	return func(yield func(URL, error) bool) {
		if page >= 1 && page <= s.pages.Load() {
			yield(URL{Loc: fmt.Sprintf("https://example.com/p/%d", page)}, nil)
		}
	}
}

// A page not cached that the cached index lists, stale or outdated as
// that index is, is built without waiting for a newer index: here that
// index cannot be built (Pages hangs), and the request gets the page, not
// a 503 after BuildTimeout. A page the stale index lists that is gone is
// a 404 all the same; one it does not list waits for the index.
func TestListedStaleIndexNoWait(t *testing.T) {
	src := &listedSource{}
	src.pages.Store(3)
	sm := newTestSitemap(t, Config{BuildTimeout: 300 * time.Millisecond, RetryAfter: time.Millisecond}, Section{Source: src})
	if w := get(sm, "/sitemap_index.xml"); w.Code != http.StatusOK {
		t.Fatalf("index: %d", w.Code)
	}
	src.blocked.Store(true)
	if err := sm.Invalidate(""); err != nil { // every page and the index outdated
		t.Fatal(err)
	}
	if w := get(sm, "/sitemap-2.xml.gz"); w.Code != http.StatusOK {
		t.Errorf("a page the outdated index lists, with the index's build hanging: %d, want 200", w.Code)
	}

	// Page 3 is gone; the outdated index still lists it.
	src.pages.Store(2)
	src.blocked.Store(false)
	if w := get(sm, "/sitemap-3.xml.gz"); w.Code != http.StatusNotFound {
		t.Errorf("a page gone that the outdated index lists: %d, want 404", w.Code)
	}

	// Page 4 is new: a request waits for the index that lists it.
	waitFor(t, func() bool { _, ok := sm.docs.cache.Peek(indexKey); return ok && idle(sm) })
	src.pages.Store(4)
	if err := sm.Invalidate(""); err != nil {
		t.Fatal(err)
	}
	if w := get(sm, "/sitemap-4.xml.gz"); w.Code != http.StatusOK {
		t.Errorf("a page new since the index was built: %d, want 200", w.Code)
	}
}
