package sitemap

import (
	"bytes"
	"context"
	"iter"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// stuckSegments is a keyedSource whose segment reads, once armed, wait
// until released: a segment query that takes as long as the test likes.
type stuckSegments struct {
	*keyedSource
	armed   atomic.Bool
	once    sync.Once
	started chan struct{} // closed when the first armed read begins
	release chan struct{}
}

func (s *stuckSegments) SegmentURLs(ctx context.Context, page int64, seg int) iter.Seq2[URL, error] {
	inner := s.keyedSource.SegmentURLs(ctx, page, seg)
	if !s.armed.Load() {
		return inner
	}
	return func(yield func(URL, error) bool) {
		s.once.Do(func() { close(s.started) })
		select {
		case <-s.release:
		case <-ctx.Done():
			yield(URL{}, ctx.Err())
			return
		}
		for u, err := range inner {
			if !yield(u, err) {
				return
			}
		}
	}
}

// promptly runs f and fails t if it has not returned within d (f may
// then still be running: a stuck request, which the test ends by
// releasing the Source).
func promptly[T any](t *testing.T, d time.Duration, what string, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(d):
		t.Fatalf("%s: still waiting after %v", what, d)
		panic("unreachable")
	}
}

// TestSpliceServesWhileReading: InvalidateKeys returns at once, and while
// the segment it named is being read again (a read that does not end
// until the test says so), every request is answered at once from the
// copy held: the page's old bytes (a 304 to their ETag), the index; no
// request waits on the splice. Once the read ends, the page is spliced
// and equals a full build.
func TestSpliceServesWhileReading(t *testing.T) {
	src := &stuckSegments{keyedSource: newKeyedSource(2, 4000, 4), started: make(chan struct{}), release: make(chan struct{})}
	for k := range int64(8000) {
		src.set(k, keyedURL(k, 0))
	}
	var released sync.Once
	unstick := func() { released.Do(func() { close(src.release) }) }
	t.Cleanup(unstick) // before the Sitemap is closed
	sm := newTestSitemap(t, Config{TTL: time.Hour}, Section{Name: "p", Source: src})
	const page = "/sitemap-p-1.xml.gz"
	get(sm, "/sitemap_index.xml")
	k := pageKey(0, 1)
	settle(t, sm, k, page)
	settle(t, sm, pageKey(0, 2), "/sitemap-p-2.xml.gz")
	old := get(sm, page)
	if old.Code != http.StatusOK {
		t.Fatalf("GET %s: %d", page, old.Code)
	}
	before, _ := cachedEntry(sm, k)

	src.armed.Store(true)
	src.set(1500, keyedURL(1500, 7))
	if err := promptly(t, time.Second, "InvalidateKeys", func() error { return sm.InvalidateKeys("p", 1500) }); err != nil {
		t.Fatal(err)
	}
	select {
	case <-src.started:
	case <-time.After(10 * time.Second):
		t.Fatal("InvalidateKeys read no segment within 10 s")
	}
	for i := range 20 {
		w := promptly(t, time.Second, "GET "+page+" while its segment is read", func() *httptest.ResponseRecorder { return get(sm, page) })
		if w.Code != http.StatusOK || !bytes.Equal(w.Body.Bytes(), old.Body.Bytes()) {
			t.Fatalf("GET %d of %s while its segment is read: %d, %d bytes; want the %d bytes held", i, page, w.Code, w.Body.Len(), old.Body.Len())
		}
		w = promptly(t, time.Second, "conditional GET "+page, func() *httptest.ResponseRecorder {
			return get(sm, page, "If-None-Match", old.Header().Get("ETag"))
		})
		if w.Code != http.StatusNotModified {
			t.Fatalf("GET %s with the ETag held, while its segment is read: %d, want 304", page, w.Code)
		}
		for _, p := range []string{"/sitemap_index.xml", "/sitemap-p-2.xml.gz"} {
			if w := promptly(t, time.Second, "GET "+p, func() *httptest.ResponseRecorder { return get(sm, p) }); w.Code != http.StatusOK {
				t.Fatalf("GET %s while a segment of page 1 is read: %d", p, w.Code)
			}
		}
	}
	if e, _ := cachedEntry(sm, k); e != before {
		t.Fatal("the page changed before its segment was read")
	}

	unstick()
	for start := time.Now(); ; time.Sleep(time.Millisecond) {
		if e, _ := cachedEntry(sm, k); e != before {
			break
		}
		if time.Since(start) > 10*time.Second {
			t.Fatal("no new copy 10 s after the segment's read ended")
		}
	}
	src.armed.Store(false)
	if got := get(sm, page).Body.Bytes(); !bytes.Equal(got, fullBytes(t, src.keyedSource, 1)) {
		t.Fatal("the spliced page differs from a full build")
	}
	if st := sm.Stats(); st.Splices != 1 {
		t.Errorf("%d splices, want 1", st.Splices)
	}
}
