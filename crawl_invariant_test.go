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
	delay   atomic.Int64
	garbage atomic.Bool // every Incr fails, as on a counter holding garbage
}

// Time is the Store's own time, as Redis TIME gives it.
func (s *faultStore) Time(ctx context.Context) (time.Time, error) {
	if err := s.wait(ctx); err != nil {
		return time.Time{}, err
	}
	return time.Now(), s.check()
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
	if s.garbage.Load() {
		return 0, errors.New("faultstore: ERR value is not an integer or out of range")
	}
	return s.memStore.Incr(ctx, key)
}

func (s *faultStore) Publish(ctx context.Context, ch string, msg []byte) error {
	if err := s.wait(ctx); err != nil {
		return err
	}
	return s.memStore.Publish(ctx, ch, msg)
}

// crawlFault is a fault of the Store, or of a replica, while crawlers
// crawl: it starts at a quarter of the run and lasts half of it (1.5 s
// by default; SITEMAP_CRAWL_RUN=30s gives the 15 s).
type crawlFault struct {
	start, end func(st *faultStore, sms []*Sitemap)
	now        func(i int) func() time.Time // replica i's clock, if not time.Now
}

func TestCrawlInvariant(t *testing.T) {
	faults := map[string]crawlFault{
		"none": {},
		"cut": { // Redis down for a while, then back
			start: func(st *faultStore, _ []*Sitemap) { st.setDown(true) },
			end:   func(st *faultStore, _ []*Sitemap) { st.setDown(false) },
		},
		"slow": { // every call times out for a while
			start: func(st *faultStore, _ []*Sitemap) { st.delay.Store(int64(500 * time.Millisecond)) },
			end:   func(st *faultStore, _ []*Sitemap) { st.delay.Store(0) },
		},
		"flush": { // Redis emptied, twice
			start: func(st *faultStore, _ []*Sitemap) { st.flush() },
			end:   func(st *faultStore, _ []*Sitemap) { st.flush() },
		},
		"restart": { // Redis down, then back empty
			start: func(st *faultStore, _ []*Sitemap) { st.setDown(true) },
			end:   func(st *faultStore, _ []*Sitemap) { st.flush(); st.setDown(false) },
		},
		"garbage": { // the generation's counter holds garbage: every Incr fails
			start: func(st *faultStore, _ []*Sitemap) { st.garbage.Store(true) },
			end: func(st *faultStore, _ []*Sitemap) {
				st.mu.Lock()
				clear(st.counters) // deleted by the operator: it starts again from 1
				st.mu.Unlock()
				st.garbage.Store(false)
			},
		},
		"forged": { // a message that every page changed, at a generation far ahead
			start: func(st *faultStore, sms []*Sitemap) {
				sh := sms[0].docs.tier.(*fleet).sh
				m := &message{kind: msgChanged, from: 42, gen: 1 << 50, names: []string{"sitemap-1.xml.gz", "sitemap-2.xml.gz", "sitemap-3.xml.gz"}}
				st.Publish(context.Background(), sh.channel, m.encode())
			},
			end: func(*faultStore, []*Sitemap) {},
		},
		"skew": { // one replica's clock an hour ahead, all along
			now: func(i int) func() time.Time {
				if i == 2 {
					return func() time.Time { return time.Now().Add(time.Hour) }
				}
				return nil
			},
		},
	}
	for name, fault := range faults {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			crawl(t, fault)
		})
	}
}

func crawl(t *testing.T, fault crawlFault) {
	run := testkit.CrawlRun(t)
	src := &crawlSource{}
	st := &faultStore{memStore: newMemStore()}
	var sms []*Sitemap
	for i := range 3 {
		cfg := Config{BaseURL: "https://example.com", Store: st, TTL: testkit.CrawlTTL(t)}
		if fault.now != nil {
			cfg.Now = fault.now(i)
		}
		sms = append(sms, newTestSitemap(t, cfg, Section{Source: src}))
	}
	ctx, cancel := context.WithTimeout(t.Context(), run)
	defer cancel()
	var wg sync.WaitGroup
	if fault.start != nil {
		wg.Go(func() {
			time.Sleep(run / 4)
			fault.start(st, sms)
			time.Sleep(run / 2)
			fault.end(st, sms)
		})
	}
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
	replicas := make([]http.Handler, len(sms))
	for i, sm := range sms {
		replicas[i] = sm
	}
	paths := []string{"/sitemap-1.xml.gz", "/sitemap-2.xml.gz", "/sitemap-3.xml.gz"}
	// Page 1 as plain XML too: after plainHot full GETs it is served from
	// its plain copy, whose validators must hold as the gzip file's do.
	res := testkit.Crawl(ctx, t, 2, replicas, append(paths, "/sitemap-1.xml"), testkit.Rev)
	wg.Wait()
	res.Report(t)
	testkit.Converged(t, replicas, paths, func(path string) int64 {
		n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(path, "/sitemap-"), ".xml.gz"))
		return src.rev[n].Load()
	})
}
