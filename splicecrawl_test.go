package sitemap

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"hash/maphash"
	"io"
	"iter"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

// The crawl invariant (crawl_invariant_test.go) over spliced pages: the
// Source cuts its pages into segments, and the catalogue changes a few
// rows at a time, told mostly by InvalidateKeys (the page spliced: its
// other segments' compressed bytes kept, units with their dictionaries
// too on the large page), sometimes by Invalidate, and on one replica
// sometimes not at all (the index sees the page's Version move). Every
// 304 is re-checked by a GET, no Last-Modified moves back for the same
// bytes, and every body is valid gzip and XML; at the end every replica
// serves each page as a whole build of the last rows makes it.

// spliceCrawlSource is three pages cut into four segments each: two of
// 16 rows and one of 12,000 (each segment of 3,000 rows several
// compressed units, each after its dictionary).
// Row k's location carries its revision, which only grows, so the sum
// of a file's revisions (revSum) grows with every change it shows.
type spliceCrawlSource struct {
	rev     []atomic.Int64 // by key
	version [4]atomic.Int64
}

const spliceCrawlSegs = 4

// spliceCrawlPages are the pages' key ranges [lo, hi); page 3 has 4,000
// rows under the race detector, which slows the crawlers' reading of it.
var spliceCrawlPages = func() (p [4][2]int64) {
	big := int64(12000)
	if testkit.Race {
		big = 4000
	}
	p[1], p[2], p[3] = [2]int64{0, 16}, [2]int64{16, 32}, [2]int64{32, 32 + big}
	return p
}()

func newSpliceCrawlSource() *spliceCrawlSource {
	return &spliceCrawlSource{rev: make([]atomic.Int64, spliceCrawlPages[3][1])}
}

func (s *spliceCrawlSource) Pages(context.Context) iter.Seq2[PageInfo, error] {
	return func(yield func(PageInfo, error) bool) {
		for p := int64(1); p <= 3; p++ {
			if !yield(PageInfo{Number: p, Version: strconv.FormatInt(s.version[p].Load(), 10)}, nil) {
				return
			}
		}
	}
}

func (s *spliceCrawlSource) bounds(page int64, seg int) (lo, hi int64) {
	r := spliceCrawlPages[page]
	w := (r[1] - r[0]) / spliceCrawlSegs
	lo = r[0] + int64(seg)*w
	if seg == spliceCrawlSegs-1 {
		return lo, r[1]
	}
	return lo, lo + w
}

func (s *spliceCrawlSource) rows(ctx context.Context, lo, hi int64) iter.Seq2[URL, error] {
	return func(yield func(URL, error) bool) {
		for k := lo; k < hi; k++ {
			if ctx.Err() != nil {
				yield(URL{}, ctx.Err())
				return
			}
			if !yield(URL{Loc: "https://example.com/k/" + strconv.FormatInt(k, 10) + "?rev=" + strconv.FormatInt(s.rev[k].Load(), 10)}, nil) {
				return
			}
		}
	}
}

func (s *spliceCrawlSource) URLs(ctx context.Context, page int64) iter.Seq2[URL, error] {
	if page < 1 || page > 3 {
		return s.rows(ctx, 0, 0)
	}
	return s.rows(ctx, spliceCrawlPages[page][0], spliceCrawlPages[page][1])
}

func (s *spliceCrawlSource) Segments() int { return spliceCrawlSegs }

func (s *spliceCrawlSource) SegmentURLs(ctx context.Context, page int64, seg int) iter.Seq2[URL, error] {
	if page < 1 || page > 3 || seg < 0 || seg >= spliceCrawlSegs {
		return s.rows(ctx, 0, 0)
	}
	lo, hi := s.bounds(page, seg)
	return s.rows(ctx, lo, hi)
}

func (s *spliceCrawlSource) SegmentOf(key int64) (int64, int) {
	for p := int64(1); p <= 3; p++ {
		for seg := range spliceCrawlSegs {
			if lo, hi := s.bounds(p, seg); key >= lo && key < hi {
				return p, seg
			}
		}
	}
	return 0, 0
}

// change moves the revisions of n random rows of page p (in one or more
// segments), and the page's Version, and returns their keys.
func (s *spliceCrawlSource) change(p int64, n int) []int64 {
	keys := make([]int64, n)
	for i := range keys {
		r := spliceCrawlPages[p]
		keys[i] = r[0] + rand.Int64N(r[1]-r[0])
		s.rev[keys[i]].Add(1)
	}
	s.version[p].Add(1)
	return keys
}

// revSum is the sum of the revisions of a file's rows, from its XML; -1
// if it is not a well-formed <urlset>.
func revSum(doc []byte) int64 {
	if !isURLSet(doc) {
		return -1
	}
	return revs(doc)
}

// revs is revSum without the check of the XML.
func revs(doc []byte) int64 {
	var sum int64
	for rest := doc; ; {
		i := bytes.Index(rest, []byte("?rev="))
		if i < 0 {
			return sum
		}
		rest = rest[i+len("?rev="):]
		end := bytes.IndexByte(rest, '<')
		if end < 0 {
			return -1
		}
		v, err := strconv.ParseInt(string(rest[:end]), 10, 64)
		if err != nil {
			return -1
		}
		sum += v
		rest = rest[end:]
	}
}

// isURLSet reports whether b is well-formed XML whose root is <urlset>.
func isURLSet(b []byte) bool {
	dec := xml.NewDecoder(bytes.NewReader(b))
	root := ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return root == "urlset"
		}
		if err != nil {
			return false
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
}

func TestSpliceCrawlInvariant(t *testing.T) {
	for name, tc := range map[string]struct {
		replicas int
		fault    crawlFault
	}{
		"one":       {replicas: 1},
		"two":       {replicas: 2},
		"two-cut":   {replicas: 2, fault: crawlFault{start: func(st *faultStore, _ []*Sitemap) { st.setDown(true) }, end: func(st *faultStore, _ []*Sitemap) { st.setDown(false) }}},
		"two-slow":  {replicas: 2, fault: crawlFault{start: func(st *faultStore, _ []*Sitemap) { st.delay.Store(int64(500 * time.Millisecond)) }, end: func(st *faultStore, _ []*Sitemap) { st.delay.Store(0) }}},
		"two-flush": {replicas: 2, fault: crawlFault{start: func(st *faultStore, _ []*Sitemap) { st.flush() }, end: func(st *faultStore, _ []*Sitemap) { st.flush() }}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			spliceCrawl(t, tc.replicas, tc.fault)
		})
	}
}

func spliceCrawl(t *testing.T, replicas int, fault crawlFault) {
	run := testkit.CrawlRun(t)
	src := newSpliceCrawlSource()
	st := &faultStore{memStore: newMemStore()}
	var sms []*Sitemap
	for range replicas {
		// A TTL beyond the run: a page is spliced until a change
		// nobody told would be seen (plan), not read whole every 400 ms.
		cfg := Config{TTL: 10 * time.Second}
		if replicas > 1 {
			cfg.Store = st
		}
		sms = append(sms, newTestSitemap(t, cfg, Section{Name: "p", Source: src}))
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
	var told, whole, untold atomic.Int64
	wg.Go(func() { // the catalogue changes
		for ctx.Err() == nil {
			p := rand.Int64N(3) + 1
			keys := src.change(p, 1+rand.N(3))
			sm := sms[rand.N(len(sms))]
			switch r := rand.N(20); {
			case r == 0 && len(sms) == 1:
				// Told to no one: the index sees the Version move. (With
				// two replicas each could then serve other bytes as the
				// same revision, which the checks cannot tell apart.)
				untold.Add(1)
			case r < 3:
				whole.Add(1)
				if err := sm.Invalidate("p", p); err != nil {
					t.Error(err)
				}
			default:
				told.Add(1)
				if err := sm.InvalidateKeys("p", keys...); err != nil {
					t.Error(err)
				}
			}
			time.Sleep(30 * time.Millisecond)
		}
	})
	hs := make([]http.Handler, len(sms))
	for i, sm := range sms {
		hs[i] = sm
	}
	paths := []string{"/sitemap-p-1.xml.gz", "/sitemap-p-2.xml.gz", "/sitemap-p-3.xml.gz"}
	var mu sync.Mutex
	seed := maphash.MakeSeed()
	parsed := map[uint64]bool{} // bodies found well-formed, by hash: each is parsed once
	rev := func(doc []byte) int64 {
		h := maphash.Bytes(seed, doc)
		mu.Lock()
		ok := parsed[h]
		mu.Unlock()
		if !ok && !isURLSet(doc) {
			t.Errorf("a body that is not a well-formed <urlset>: %.200q", doc)
			return -1
		}
		mu.Lock()
		parsed[h] = true
		mu.Unlock()
		return revs(doc)
	}
	res := testkit.Crawl(ctx, t, 2, hs, append(paths, "/sitemap-p-1.xml"), rev)
	wg.Wait()
	var splices int64
	for _, sm := range sms {
		splices += sm.Stats().Splices
	}
	t.Logf("%d changes told by InvalidateKeys, %d by Invalidate, %d untold; %d splices", told.Load(), whole.Load(), untold.Load(), splices)
	res.Report(t)
	if splices == 0 {
		t.Error("no page was spliced: the crawl tested nothing of splicing")
	}
	spliceConverged(t, sms, src, paths)
}

// spliceConverged waits until every replica serves each page as a whole
// build of the Source makes it now, under one Last-Modified; it fails t
// if that takes more than 4 s (20 s under the race detector), or does
// not happen in 20 s.
func spliceConverged(t *testing.T, sms []*Sitemap, src *spliceCrawlSource, paths []string) {
	t.Helper()
	want := make([][]byte, len(paths))
	for i := range paths {
		want[i] = fullBytes(t, src, int64(i+1))
	}
	// A change heard from the other replica may wait a second for its
	// turn (hearing), then the page is built again: 4 s, as testkit's
	// bound on the clocks agreeing (Converged); a change lost (a copy that
	// lacks it taken as current) shows until the TTL.
	fresh := 4 * time.Second
	if testkit.Race {
		fresh *= 5
	}
	start := time.Now()
	last, atFresh := "", ""
	for time.Since(start) < 20*time.Second {
		last = ""
		took := time.Since(start) // before the look that finds them converged
	check:
		for i, path := range paths {
			lm := ""
			for r, sm := range sms {
				w := get(sm, path)
				switch at := w.Header().Get("Last-Modified"); {
				case w.Code != http.StatusOK:
					last = fmt.Sprintf("replica %d: %s: %d", r, path, w.Code)
				case !bytes.Equal(w.Body.Bytes(), want[i]):
					last = fmt.Sprintf("replica %d: %s: not the bytes of a whole build (rev sum %d, want %d; %s)",
						r, path, revSum(testkit.GunzipMember(t, w.Body.Bytes())), revSum(testkit.GunzipMember(t, want[i])), undated(sm, int64(i+1)))
				case at == "":
					last = fmt.Sprintf("replica %d: %s: the whole build's bytes, without Last-Modified (%s)", r, path, undated(sm, int64(i+1)))
				case lm != "" && at != lm:
					last = fmt.Sprintf("replica %d: %s: Last-Modified %q, another's %q", r, path, at, lm)
				default:
					lm = at
					continue
				}
				break check
			}
		}
		if last == "" {
			t.Logf("every replica served the whole build's bytes after %v", took.Round(time.Millisecond))
			if took > fresh {
				t.Errorf("the replicas served the last rows after %v, want %v at most; at %v: %s", took, fresh, fresh, atFresh)
			}
			return
		}
		if atFresh == "" && time.Since(start) > fresh {
			atFresh = last
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("the replicas did not converge in 20 s: %s", last)
}

// undated describes the copy of page p that sm has cached, for a failure.
func undated(sm *Sitemap, p int64) string {
	d := sm.docs
	k := pageKey(0, p)
	sl, ok := d.cache.Peek(k)
	if !ok {
		return "not cached"
	}
	e := sl.e
	s := fmt.Sprintf("alone %v, unclocked %v, built %v ago, current %v, fresh %v, store down %v, refreshing %v, failed recently %v, stamp %+v, gen %d, superseded %v, unsynced %v",
		e.alone, e.unclocked, time.Since(e.built).Round(time.Millisecond), d.ledger.current(k, e.stamp), d.fresh(k, sl, d.now()),
		d.tier.stats().down, sl.refreshing.Load(), d.failures.recent(k, d.now()), e.stamp, e.gen, sl.superseded.Load(), d.tier.unsynced(sl))
	d.ledger.mu.Lock()
	m, marked := d.ledger.marks[k]
	d.ledger.mu.Unlock()
	s += fmt.Sprintf(", mark %+v (%v), hearing waits %v", m, marked, d.hearing.waiting(k))
	if f, ok := d.tier.(*fleet); ok {
		if rec, _, _, err := f.sh.get(context.Background(), k, f.site.storeName(k)); err == nil && rec != nil {
			s += fmt.Sprintf(", stored copy: same bytes %v, built %v ago, gen %d", rec.hash == e.hash, time.Since(rec.built).Round(time.Millisecond), rec.gen)
		}
	}
	return s
}
