package sitemap

import (
	"bytes"
	"context"
	"iter"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

// versionedSource is a keyedSource whose Pages give each page a Version,
// moved by bump, as adapters/sqlsource's page summary does.
type versionedSource struct {
	*keyedSource
	version [3]atomic.Int64
}

func (s *versionedSource) Pages(context.Context) iter.Seq2[PageInfo, error] {
	return func(yield func(PageInfo, error) bool) {
		for n := int64(1); n <= 2; n++ {
			if !yield(PageInfo{Number: n, Version: strconv.FormatInt(s.version[n].Load(), 10)}, nil) {
				return
			}
		}
	}
}

// TestSpliceAfterVersionMoved: a change nobody told, which an index build
// sees as page 1's Version moving, is in no segment InvalidateKeys names
// next: the build that the index's refresh starts, here held back by the
// page's lock in the Store, reads the page whole, not only the segment a
// change told meanwhile names, and serves a whole build's bytes.
func TestSpliceAfterVersionMoved(t *testing.T) {
	src := &versionedSource{keyedSource: newKeyedSource(2, 400, 4)}
	for k := range int64(800) {
		src.set(k, keyedURL(k, 0))
	}
	clk := testkit.NewClock(time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC))
	sm := newTestSitemap(t, Config{Store: newMemStore(), TTL: time.Hour, Now: clk.Now}, Section{Name: "p", Source: src})
	get(sm, "/sitemap_index.xml")
	settle(t, sm, pageKey(0, 1), "/sitemap-p-1.xml.gz")
	settle(t, sm, pageKey(0, 2), "/sitemap-p-2.xml.gz")
	c0, _ := cachedEntry(sm, pageKey(0, 1))

	// Page 1's row 5 (segment 0) changes, told to no one: its Version moves.
	src.set(5, keyedURL(5, 1))
	src.version[1].Add(1)
	// Its rebuild is held back: another replica, as it were, holds its lock.
	sh := sm.docs.tier.(*fleet).sh
	unlock, err := sh.lock(t.Context(), sm.site.storeName(pageKey(0, 1)))
	if err != nil {
		t.Fatal(err)
	}
	// Page 2 changes, told: its clock moves, so the index is built again,
	// and sees page 1's Version move.
	idx, _ := cachedEntry(sm, indexKey)
	src.set(405, keyedURL(405, 1))
	src.version[2].Add(1)
	if err := sm.Invalidate("p", 2); err != nil {
		t.Fatal(err)
	}
	settle(t, sm, pageKey(0, 2), "/sitemap-p-2.xml.gz")
	for start := time.Now(); ; time.Sleep(time.Millisecond) {
		if e, _ := cachedEntry(sm, indexKey); e != idx && !sm.docs.ledger.current(pageKey(0, 1), c0.stamp) {
			break // built again, and page 1 said changed
		}
		if time.Since(start) > 5*time.Second {
			t.Fatal("the index was not built again, or did not see page 1's Version move, in 5 s")
		}
		get(sm, "/sitemap_index.xml")
	}
	// Row 205 (segment 2) changes, told by InvalidateKeys; then the lock
	// is free.
	src.set(205, keyedURL(205, 1))
	if err := sm.InvalidateKeys("p", 205); err != nil {
		t.Fatal(err)
	}
	unlock()
	for start := time.Now(); ; time.Sleep(time.Millisecond) {
		if e, _ := cachedEntry(sm, pageKey(0, 1)); e != c0 {
			break
		}
		if time.Since(start) > 5*time.Second {
			t.Fatal("page 1 was not built again in 5 s")
		}
	}
	settle(t, sm, pageKey(0, 1), "/sitemap-p-1.xml.gz")
	if !bytes.Equal(get(sm, "/sitemap-p-1.xml.gz").Body.Bytes(), fullBytes(t, src, 1)) {
		t.Errorf("page 1 is not a whole build's bytes: it misses the change its Version told (%d splices)", sm.Stats().Splices)
	}
}
