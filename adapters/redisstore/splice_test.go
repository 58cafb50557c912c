package redisstore_test

import (
	"bytes"
	"context"
	"iter"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/redisstore"
	"github.com/freshmap/sitemap/internal/testkit"
	"github.com/redis/go-redis/v9"
)

// rows is a SegmentSource of one page of 4,000 rows by key, cut into four
// segments of 1,000 keys, as sqlsource cuts a table; it counts the rows
// it yields.
type rows struct {
	mu   sync.Mutex
	v    map[int64]int // each row's version
	read atomic.Int64
}

const rowsN, rowsSegs = 4000, 4

func newRows() *rows { return &rows{v: make(map[int64]int)} }

func (r *rows) set(key int64, v int) {
	r.mu.Lock()
	r.v[key] = v
	r.mu.Unlock()
}

func (r *rows) Pages(context.Context) iter.Seq2[sitemap.PageInfo, error] {
	return func(yield func(sitemap.PageInfo, error) bool) { yield(sitemap.PageInfo{Number: 1}, nil) }
}

func (r *rows) keys(lo, hi int64) iter.Seq2[sitemap.URL, error] {
	return func(yield func(sitemap.URL, error) bool) {
		for k := lo; k < hi; k++ {
			r.mu.Lock()
			v := r.v[k]
			r.mu.Unlock()
			r.read.Add(1)
			u := sitemap.URL{Loc: "https://example.com/item/" + strconv.FormatInt(k, 10) + "?v=" + strconv.Itoa(v),
				LastMod: time.Date(2025, 6, 1, 0, v, 0, 0, time.UTC)}
			if !yield(u, nil) {
				return
			}
		}
	}
}

func (r *rows) URLs(_ context.Context, page int64) iter.Seq2[sitemap.URL, error] {
	if page != 1 {
		return r.keys(0, 0)
	}
	return r.keys(0, rowsN)
}

func (r *rows) Segments() int { return rowsSegs }

func (r *rows) SegmentURLs(_ context.Context, page int64, seg int) iter.Seq2[sitemap.URL, error] {
	const w = rowsN / rowsSegs
	return r.keys(int64(seg)*w, int64(seg+1)*w)
}

func (r *rows) SegmentOf(key int64) (int64, int) {
	if key < 0 || key >= rowsN {
		return 0, 0
	}
	return 1, int(key / (rowsN / rowsSegs))
}

// TestFleetSplice: on Redis, a replica that took a page's copy from the
// Store (its segment table travels with it) splices it on InvalidateKeys:
// one segment of four read again, counted in Splices, none in
// SpliceFallbacks, and the bytes are those of a build of the whole page.
func TestFleetSplice(t *testing.T) {
	onTopologies(t, func(t *testing.T, top topology) {
		src := newRows()
		c, prefix := top.admin(t)
		replica := func(c redis.UniversalClient) *sitemap.Sitemap {
			sm, err := sitemap.New(sitemap.Config{BaseURL: "https://example.com", TTL: time.Hour,
				Store: newStore(t, c, redisstore.Options{Prefix: prefix})}, sitemap.Section{Name: "p", Source: src})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { sm.Close() })
			testkit.Fetch(sm, "/sitemap_index.xml")
			return sm
		}
		const page = "/sitemap-p-1.xml.gz"
		a := replica(c)
		built := testkit.Fetch(a, page)
		b := replica(top.client(t))
		read := src.read.Load()
		if w := testkit.Fetch(b, page); w.Code != http.StatusOK || !bytes.Equal(w.Body.Bytes(), built.Body.Bytes()) {
			t.Fatalf("the second replica: %d, or other bytes", w.Code)
		}
		if src.read.Load() != read || b.Stats().StoreHits == 0 {
			t.Fatal("the second replica did not take the stored copy")
		}
		src.set(1234, 1)
		read = src.read.Load()
		if err := b.InvalidateKeys("p", 1234); err != nil {
			t.Fatal(err)
		}
		old := built.Header().Get("Etag")
		eventually(t, func() bool { return testkit.Fetch(b, page).Header().Get("Etag") != old })
		if n := src.read.Load() - read; n != rowsN/rowsSegs {
			t.Errorf("%d rows read, want one segment's %d", n, rowsN/rowsSegs)
		}
		if st := b.Stats(); st.Splices != 1 || st.SpliceFallbacks != 0 {
			t.Errorf("%d splices, %d fallbacks; want 1, 0", st.Splices, st.SpliceFallbacks)
		}
		whole, err := sitemap.New(sitemap.Config{BaseURL: "https://example.com"}, sitemap.Section{Name: "p", Source: src})
		if err != nil {
			t.Fatal(err)
		}
		defer whole.Close()
		testkit.Fetch(whole, "/sitemap_index.xml")
		if got, want := testkit.Fetch(b, page).Body.Bytes(), testkit.Fetch(whole, page).Body.Bytes(); !bytes.Equal(got, want) {
			t.Error("the spliced page differs from a build of the whole page")
		}
	})
}
