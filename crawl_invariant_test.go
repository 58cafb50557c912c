package sitemap

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

// The crawl invariant: a validator is never given for bytes that changed.
// Three replicas share a Store while the catalogue changes every 60 ms
// (Invalidate on a random replica) and crawlers behind a load balancer
// fetch the pages from random replicas with the copy they hold: every 304
// is re-checked at once by a GET to the same replica, and every response
// is compared with the copy held before. A page newer than the held copy
// (a higher revision in its URLs) under a Last-Modified not after the
// held one is a lie: a crawler asking If-Modified-Since would have been
// told 304 and kept its stale copy. Each fault runs while they crawl.

// crawlSource is three pages of four URLs each, whose locations carry
// their page's revision.
type crawlSource struct{ rev [4]atomic.Int64 }

func (s *crawlSource) Pages(context.Context) iter.Seq2[PageInfo, error] {
	return func(yield func(PageInfo, error) bool) {
		for p := int64(1); p <= 3 && yield(PageInfo{Number: p}, nil); p++ {
		}
	}
}

func (s *crawlSource) URLs(_ context.Context, page int64) iter.Seq2[URL, error] {
	return func(yield func(URL, error) bool) {
		rev := s.rev[page].Load()
		for i := range 4 {
			if !yield(URL{Loc: fmt.Sprintf("https://example.com/p/%d-%d?rev=%d", page, i, rev)}, nil) {
				return
			}
		}
	}
}

// faultStore is a memStore that can also be slow (each call waits delay,
// or fails after 250 ms as adapters/redisstore's Timeout does) and be
// flushed (every value, counter and lock gone, as after FLUSHALL or a
// restart of Redis).
type faultStore struct {
	*memStore
	delay atomic.Int64
}

var errSlow = errors.New("faultstore: timeout")

func (s *faultStore) wait(ctx context.Context) error {
	d := time.Duration(s.delay.Load())
	if d == 0 {
		return nil
	}
	t := time.NewTimer(min(d, 250*time.Millisecond))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
	}
	if d > 250*time.Millisecond {
		return errSlow
	}
	return nil
}

func (s *faultStore) flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.vals)
	clear(s.counters)
	clear(s.locks)
}

func (s *faultStore) Get(ctx context.Context, keys ...string) ([][]byte, error) {
	if err := s.wait(ctx); err != nil {
		return nil, err
	}
	return s.memStore.Get(ctx, keys...)
}

func (s *faultStore) Set(ctx context.Context, key string, v []byte) error {
	if err := s.wait(ctx); err != nil {
		return err
	}
	return s.memStore.Set(ctx, key, v)
}

func (s *faultStore) Lock(ctx context.Context, key string) (func(), error) {
	if err := s.wait(ctx); err != nil {
		return nil, err
	}
	return s.memStore.Lock(ctx, key)
}

func (s *faultStore) Incr(ctx context.Context, key string) (int64, error) {
	if err := s.wait(ctx); err != nil {
		return 0, err
	}
	return s.memStore.Incr(ctx, key)
}

func (s *faultStore) Publish(ctx context.Context, ch string, msg []byte) error {
	if err := s.wait(ctx); err != nil {
		return err
	}
	return s.memStore.Publish(ctx, ch, msg)
}

// heldCopy is a crawler's copy of a page.
type heldCopy struct {
	rev     int64
	etag    string
	lastMod string
	at      time.Time
}

func TestCrawlInvariant(t *testing.T) {
	faults := map[string]func(*faultStore, time.Duration){
		"none": func(*faultStore, time.Duration) {},
		"cut": func(st *faultStore, d time.Duration) { // Redis down for a while, then back
			time.Sleep(d / 4)
			st.setDown(true)
			time.Sleep(d / 2)
			st.setDown(false)
		},
		"slow": func(st *faultStore, d time.Duration) { // every call times out for a while
			time.Sleep(d / 4)
			st.delay.Store(int64(500 * time.Millisecond))
			time.Sleep(d / 2)
			st.delay.Store(0)
		},
		"flush": func(st *faultStore, d time.Duration) { // Redis emptied, twice
			time.Sleep(d / 3)
			st.flush()
			time.Sleep(d / 3)
			st.flush()
		},
	}
	for name, fault := range faults {
		t.Run(name, func(t *testing.T) {
			if name == "cut" || name == "slow" {
				// Measured on 2026-11-24, the same before the core re-cut
				// (commit 4160c4d) and after: 3,000-4,700 lies a run with
				// the Store cut, 180-2,100 with it slowed. Replicas that
				// build alone give one Last-Modified second to different
				// bytes. Issue 16 is to make these pass.
				t.Skip("issue 16: replicas cut off from the Store, or slowed, give one Last-Modified second to different bytes")
			}
			crawl(t, fault)
		})
	}
}

func crawl(t *testing.T, fault func(*faultStore, time.Duration)) {
	const run = 2 * time.Second
	src := &crawlSource{}
	st := &faultStore{memStore: newMemStore()}
	var sms []*Sitemap
	for range 3 {
		sms = append(sms, newTestSitemap(t, Config{BaseURL: "https://example.com", Store: st, TTL: 400 * time.Millisecond},
			Section{Source: src}))
	}
	ctx, cancel := context.WithTimeout(t.Context(), run)
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() { fault(st, run) })
	wg.Go(func() { // the catalogue changes
		for ctx.Err() == nil {
			p := rand.N(3) + 1
			src.rev[p].Add(1)
			if err := sms[rand.N(3)].Invalidate("", int64(p)); err != nil {
				t.Error(err)
			}
			time.Sleep(60 * time.Millisecond)
		}
	})
	var mu sync.Mutex
	var lies []string
	var checked, notModified atomic.Int64
	for range 2 { // crawlers behind a load balancer
		wg.Go(func() {
			copies := map[int]heldCopy{}
			for ctx.Err() == nil {
				p, sm := rand.N(3)+1, sms[rand.N(3)]
				path := "/sitemap-" + strconv.Itoa(p) + ".xml.gz"
				h, ok := copies[p]
				var w = get(sm, path)
				if ok {
					if rand.N(2) == 0 {
						w = get(sm, path, "If-None-Match", h.etag)
					} else {
						w = get(sm, path, "If-Modified-Since", h.lastMod)
					}
				}
				what := "a 200"
				if w.Code == http.StatusNotModified {
					notModified.Add(1)
					what = "a GET just after a 304"
					w = get(sm, path) // the 304, re-checked
				}
				if w.Code != http.StatusOK {
					continue // a 503 while the replica cannot build: no validator given
				}
				checked.Add(1)
				body := string(testkit.Gunzip(t, w.Body.Bytes()))
				_, rest, _ := strings.Cut(body, "?rev=")
				rev, _ := strconv.ParseInt(rest[:strings.IndexByte(rest, '<')], 10, 64)
				got := heldCopy{rev: rev, etag: w.Header().Get("Etag"), lastMod: w.Header().Get("Last-Modified")}
				got.at, _ = http.ParseTime(got.lastMod)
				if ok && rev > h.rev && !got.at.After(h.at) {
					mu.Lock()
					lies = append(lies, fmt.Sprintf("%s: %s gave rev %d under Last-Modified %s, not after %s of the held rev %d",
						path, what, rev, got.lastMod, h.lastMod, h.rev))
					mu.Unlock()
				}
				copies[p] = got
			}
		})
	}
	wg.Wait()
	t.Logf("%d responses checked, %d of them after a 304; %d lies", checked.Load(), notModified.Load(), len(lies))
	if checked.Load() == 0 || notModified.Load() == 0 {
		t.Errorf("the crawl checked %d responses and %d 304s: it tested nothing", checked.Load(), notModified.Load())
	}
	for i, l := range lies {
		if i == 10 {
			t.Errorf("and %d more", len(lies)-10)
			break
		}
		t.Error(l)
	}
}
