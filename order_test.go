package sitemap

import (
	"context"
	"iter"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

// The ordering rules of a load (documents.load), each held here on a fake
// Source, without a database: adapters/sqlsource's tests hold them too,
// through a real one.

// orderSource is one page of three URLs whose locations carry the
// catalogue's revision, so that a copy tells what it read. hook, if set,
// runs once per read, after the first URL.
type orderSource struct {
	rev     atomic.Int64
	reads   atomic.Int64
	version string
	mu      sync.Mutex
	hook    func(read int64)
}

func (s *orderSource) Pages(context.Context) iter.Seq2[PageInfo, error] {
	return func(yield func(PageInfo, error) bool) { yield(PageInfo{Number: 1, Version: s.version}, nil) }
}

func (s *orderSource) URLs(_ context.Context, page int64) iter.Seq2[URL, error] {
	return func(yield func(URL, error) bool) {
		read := s.reads.Add(1)
		rev := s.rev.Load()
		for i := range 3 {
			if !yield(URL{Loc: "https://example.com/p/" + strconv.Itoa(i) + "?rev=" + strconv.FormatInt(rev, 10)}, nil) {
				return
			}
			s.mu.Lock()
			hook := s.hook
			s.mu.Unlock()
			if i == 0 && hook != nil {
				hook(read)
			}
		}
	}
}

func (s *orderSource) setHook(f func(read int64)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hook = f
}

// revOf returns the revision a served page holds.
func revOf(t *testing.T, w *http.Response, body []byte) string {
	t.Helper()
	_, rest, ok := strings.Cut(string(testkit.Gunzip(t, body)), "?rev=")
	if !ok {
		t.Fatalf("status %d: no URL", w.StatusCode)
	}
	return rest[:strings.IndexByte(rest, '<')]
}

func getRev(t *testing.T, sm *Sitemap) string {
	t.Helper()
	w := get(sm, "/sitemap-1.xml.gz")
	return revOf(t, w.Result(), w.Body.Bytes())
}

// Step 1: a copy kept since the caller looked wins: a load that finds one
// returns it without reading the Source.
func TestOrderKeptCopyWins(t *testing.T) {
	src := &orderSource{}
	sm := newTestSitemap(t, Config{BaseURL: "https://example.com"}, Section{Source: src})
	getRev(t, sm)
	kept, _ := cachedEntry(sm, pageKey(0, 1))
	e, err := sm.docs.load(pageKey(0, 1), nil) // as a caller that looked before the copy was kept
	if err != nil || e != kept || src.reads.Load() != 1 {
		t.Errorf("load = %p, %v after %d reads; want the kept copy %p and 1 read", e, err, src.reads.Load(), kept)
	}
}

// Step 4: the index that revalidation needs is loaded before the page
// takes a build slot. With one slot, taking it first would leave the index
// waiting for the slot the page holds, until BuildTimeout.
func TestOrderIndexBeforeSlot(t *testing.T) {
	clk := testkit.NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	src := &orderSource{version: "v1"}
	sm := newTestSitemap(t, Config{BaseURL: "https://example.com", MaxBuilds: 1, TTL: time.Minute,
		BuildTimeout: 20 * time.Second, Now: clk.Now}, Section{Source: src})
	getRev(t, sm)
	old, _ := cachedEntry(sm, pageKey(0, 1))
	clk.Add(2 * time.Minute) // the page and the index are stale
	start := time.Now()
	e, err := sm.docs.load(pageKey(0, 1), old)
	if took := time.Since(start); err != nil || took > 10*time.Second {
		t.Fatalf("load = %v after %v", err, took)
	}
	if src.reads.Load() != 1 || e.hash != old.hash || sm.Stats().Revalidated != 1 {
		t.Errorf("%d reads, revalidated %d: the page was not renewed by the fresh index's Version", src.reads.Load(), sm.Stats().Revalidated)
	}
}

// Step 6: the stamp is taken before the Source is read, so a change said
// while it is read is after the stamp: the copy that read the data from
// before the change is served to the request that waited for it, and
// never kept. Taken after the read, the stamp would let it be kept and
// served as current.
func TestOrderStampBeforeRead(t *testing.T) {
	src := &orderSource{}
	sm := newTestSitemap(t, Config{BaseURL: "https://example.com"}, Section{Source: src})
	src.setHook(func(read int64) {
		if read == 1 { // the catalogue changes while the first read is under way
			src.rev.Add(1)
			if err := sm.Invalidate("", 1); err != nil {
				t.Error(err)
			}
		}
	})
	if got := getRev(t, sm); got != "0" {
		t.Fatalf("first request: rev %s, want 0 (what its build read)", got)
	}
	sm.docs.wg.Wait()
	if got := getRev(t, sm); got != "1" || src.reads.Load() != 2 {
		t.Errorf("after the change: rev %s after %d reads; want rev 1 from a second read", got, src.reads.Load())
	}
}

// Step 7: a copy is never kept over a newer change. A slow build that
// started before an Invalidate ends after a build that started after it:
// the newer copy stays.
func TestOrderNeverKeepOverNewerChange(t *testing.T) {
	src := &orderSource{}
	clk := testkit.NewClock(time.Now())
	sm := newTestSitemap(t, Config{BaseURL: "https://example.com", Now: clk.Now}, Section{Source: src})
	get(sm, "/sitemap_index.xml")
	clk.Add(10 * time.Second) // past the first clocks' floor: every build may get a clock
	reading, release := make(chan struct{}), make(chan struct{})
	src.setHook(func(read int64) {
		if read == 1 {
			close(reading)
			<-release
		}
	})
	slow := make(chan string)
	slowMod := make(chan string, 1)
	go func() {
		w := get(sm, "/sitemap-1.xml.gz")
		slowMod <- w.Header().Get("Last-Modified")
		slow <- revOf(t, w.Result(), w.Body.Bytes())
	}()
	<-reading
	src.rev.Add(1)
	if err := sm.Invalidate("", 1); err != nil {
		t.Fatal(err)
	}
	if got := getRev(t, sm); got != "1" { // a new build: the slow one's flight was forgotten
		t.Fatalf("after the change: rev %s, want 1", got)
	}
	close(release)
	if got := <-slow; got != "0" {
		t.Errorf("the slow build served rev %s, want 0", got)
	}
	// Its clock, given after the newer copy's, would make a client holding
	// it get 304 for the newer bytes: it is served without one.
	if lm := <-slowMod; lm != "" {
		t.Errorf("the slow build's outdated copy was served under Last-Modified %s, want none", lm)
	}
	if e, _ := cachedEntry(sm, pageKey(0, 1)); e == nil || getRev(t, sm) != "1" || src.reads.Load() != 2 {
		t.Errorf("the slow build's copy replaced the newer one (%d reads)", src.reads.Load())
	}
}

// orderStore records the order of a Store's writes: each Set's key and
// each published message's kind and names.
type orderStore struct {
	*memStore
	mu  sync.Mutex
	ops []string
}

func (s *orderStore) add(op string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ops = append(s.ops, op)
}

func (s *orderStore) Set(ctx context.Context, key string, value []byte) error {
	s.add("set " + strings.NewReplacer("{https://example.com/", "", "}", "").Replace(key)) // "NAME:clock"
	return s.memStore.Set(ctx, key, value)
}

func (s *orderStore) Publish(ctx context.Context, channel string, msg []byte) error {
	if m, err := decodeMessage(msg); err == nil {
		s.add("publish " + strconv.Itoa(int(m.kind)) + " " + strings.Join(m.names, " "))
	}
	return s.memStore.Publish(ctx, channel, msg)
}

// Step 7: a copy built here is shared in three writes, in this order:
// the page's clock (which an index build on any replica reads), then the
// copy, then the message that tells the others it is there.
func TestOrderClockCopyMessage(t *testing.T) {
	st := &orderStore{memStore: newMemStore()}
	sm := newTestSitemap(t, Config{BaseURL: "https://example.com", Store: st}, Section{Source: &orderSource{}})
	getRev(t, sm)
	st.mu.Lock()
	ops := slices.Clone(st.ops)
	st.mu.Unlock()
	at := func(op string) int {
		i := slices.Index(ops, op)
		if i < 0 {
			t.Fatalf("no %q in %q", op, ops)
		}
		return i
	}
	clock, copy, msg := at("set sitemap-1.xml.gz:clock"), at("set sitemap-1.xml.gz:copy"), at("publish 2 sitemap-1.xml.gz")
	if !(clock < copy && copy < msg) {
		t.Errorf("writes %q: want the clock, then the copy, then the message", ops)
	}
}
