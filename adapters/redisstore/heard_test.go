package redisstore_test

import (
	"bytes"
	"context"
	"fmt"
	"iter"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/redisstore"
	"github.com/freshmap/sitemap/internal/testkit"
)

// TestFleetHeardChangeStaysHeard: a replica that has heard of a change
// serves the new copy on its first request however long after the message
// it comes, never the old one as current.
func TestFleetHeardChangeStaysHeard(t *testing.T) {
	for _, tc := range []struct {
		quiet time.Duration
		all   bool
	}{{500 * time.Millisecond, false}, {2 * time.Second, false}, {2 * time.Second, true}, {4 * time.Second, true}} {
		quiet := tc.quiet
		for _, top := range topologies {
			t.Run(fmt.Sprint(top.name, "/", quiet, tc.all), func(t *testing.T) {
				t.Parallel()
				src := newCatalogue(500)
				sms, _ := fleet(t, top, src)
				for _, p := range files(500) {
					for _, sm := range sms {
						testkit.Fetch(sm, p)
					}
				}
				before := testkit.Fetch(sms[1], "/sitemap-4.xml.gz").Header()
				first, _ := http.ParseTime(before.Get("Last-Modified"))
				time.Sleep(time.Until(first.Add(time.Second)))
				src.rev.Add(1)
				if err := sms[0].Invalidate("", 4); err != nil {
					t.Fatal(err)
				}
				if tc.all { // every replica watches the database, as the demo's do
					for _, sm := range sms[1:] {
						if err := sm.Invalidate("", 4); err != nil {
							t.Fatal(err)
						}
					}
				}
				for _, wait := range []time.Duration{500 * time.Millisecond, quiet} {
					time.Sleep(wait)
					for i, sm := range sms {
						w := testkit.Fetch(sm, "/sitemap-4.xml.gz")
						if !bytes.Contains(testkit.Gunzip(t, w.Body.Bytes()), []byte("rev=1")) {
							t.Errorf("replica %d, first GET %v after the last: the old bytes", i, wait)
						}
					}
				}
			})
		}
	}
}

// versioned is a Source of 10 pages of 50 URLs whose pages say their
// Version and LastMod, as adapters/sqlsource's do: page 4's follow rev.
type versioned struct {
	rev   atomic.Int64
	base  time.Time
	reads atomic.Int64
}

func (v *versioned) Pages(ctx context.Context) iter.Seq2[sitemap.PageInfo, error] {
	return func(yield func(sitemap.PageInfo, error) bool) {
		for p := int64(1); p <= 10; p++ {
			rev := int64(0)
			if p == 4 {
				rev = v.rev.Load()
			}
			at := v.base.Add(time.Duration(rev) * time.Minute)
			if !yield(sitemap.PageInfo{Number: p, LastMod: at, Version: strconv.FormatInt(rev, 10)}, nil) {
				return
			}
		}
	}
}

func (v *versioned) URLs(ctx context.Context, page int64) iter.Seq2[sitemap.URL, error] {
	v.reads.Add(1)
	time.Sleep(5 * time.Millisecond)
	return func(yield func(sitemap.URL, error) bool) {
		rev := int64(0)
		if page == 4 {
			rev = v.rev.Load()
		}
		at := v.base.Add(time.Duration(rev) * time.Minute)
		for i := (page - 1) * 50; i < page*50; i++ {
			u := sitemap.URL{Loc: "https://example.com/p/" + strconv.FormatInt(i, 10) + "?rev=" + strconv.FormatInt(rev, 10), LastMod: at}
			if !yield(u, nil) {
				return
			}
		}
	}
}

func (v *versioned) PageSize() int { return 50 }

func TestFleetHeardChangeVersioned(t *testing.T) {
	for _, all := range []bool{false, true} {
		for _, top := range topologies {
			t.Run(fmt.Sprint(top.name, "/", all), func(t *testing.T) {
				t.Parallel()
				src := &versioned{base: time.Now().Add(-time.Hour).Truncate(time.Second)}
				sms, _ := fleet(t, top, src)
				for _, p := range files(500) {
					for _, sm := range sms {
						testkit.Fetch(sm, p)
					}
				}
				time.Sleep(1100 * time.Millisecond)
				src.rev.Add(1)
				for i, sm := range sms {
					if i == 0 || all {
						if err := sm.Invalidate("", 4); err != nil {
							t.Fatal(err)
						}
					}
				}
				for _, wait := range []time.Duration{500 * time.Millisecond, 2 * time.Second, 10 * time.Second} {
					time.Sleep(wait)
					for i, sm := range sms {
						w := testkit.Fetch(sm, "/sitemap-4.xml.gz")
						if !bytes.Contains(testkit.Gunzip(t, w.Body.Bytes()), []byte("rev=1")) {
							t.Errorf("replica %d, first GET %v after the last: the old bytes", i, wait)
						}
					}
				}
			})
		}
	}
}

// TestFleetHeardChangePastTTL: the first GET on a replica that heard of a
// change comes after the TTL, when the new copy in the Store has expired
// too: it is still the copy to serve (while it is rebuilt, once for the
// fleet), not the old one this replica holds. It failed before newer
// took a current copy past its TTL: replicas 2 and 3 served the old
// bytes.
func TestFleetHeardChangePastTTL(t *testing.T) {
	const ttl = 2 * time.Second
	for _, top := range topologies {
		t.Run(top.name, func(t *testing.T) {
			t.Parallel()
			src := newCatalogue(500)
			c, prefix := top.admin(t)
			var sms []*sitemap.Sitemap
			for i := range 3 {
				client := c
				if i > 0 {
					client = top.client(t)
				}
				sm, err := sitemap.New(sitemap.Config{BaseURL: "https://example.com", TTL: ttl,
					Store: newStore(t, client, redisstore.Options{Prefix: prefix})}, sitemap.Section{Source: src})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { sm.Close() })
				sms = append(sms, sm)
			}
			for _, p := range files(500) {
				for _, sm := range sms {
					testkit.Fetch(sm, p)
				}
			}
			src.rev.Add(1)
			if err := sms[0].Invalidate("", 4); err != nil {
				t.Fatal(err)
			}
			eventually(t, func() bool { return src.reads.Load() == 11 }) // replica 1's rebuild
			time.Sleep(ttl + time.Second)
			for i, sm := range sms[1:] {
				w := testkit.Fetch(sm, "/sitemap-4.xml.gz")
				if !bytes.Contains(testkit.Gunzip(t, w.Body.Bytes()), []byte("rev=1")) {
					t.Errorf("replica %d, first GET %v after the change: the old bytes", i+2, ttl+time.Second)
				}
			}
			// The copy served past its TTL is rebuilt, once for the fleet.
			eventually(t, func() bool { return src.reads.Load() >= 12 })
			time.Sleep(500 * time.Millisecond)
			if got := src.reads.Load(); got != 12 {
				t.Errorf("%d page reads, want 12: 10, replica 1's rebuild, and one refresh of the expired copy", got)
			}
		})
	}
}

// envLongQuiet, set (as .ci/run does), adds a minute's quiet to
// TestFleetHeardChangeDuringRebuild.
const envLongQuiet = "SITEMAP_TEST_LONG_QUIET"

// TestFleetHeardChangeDuringRebuild: Invalidate on replica 1, whose
// rebuild of the page takes long (its Source blocks until released). A
// GET on any replica meanwhile waits for the new copy, however it heard
// of the change, and gets the new bytes once the build ends, within
// BuildTimeout, with no Source read of its own; then the first GET on each
// replica after 0.5, 2 and 10 s of quiet (and 60 s with
// SITEMAP_TEST_LONG_QUIET set) serves the new bytes. It failed before
// documents.catchUp: the GETs during the rebuild served the old bytes at
// once, as if current.
func TestFleetHeardChangeDuringRebuild(t *testing.T) {
	onTopologies(t, func(t *testing.T, top topology) {
		src := newCatalogue(500)
		started, release := make(chan struct{}), make(chan struct{})
		var armed atomic.Bool
		src.block = func(ctx context.Context, page int64) {
			if page == 4 && armed.CompareAndSwap(true, false) {
				close(started)
				select {
				case <-release:
				case <-ctx.Done():
				}
			}
		}
		sms, _ := fleet(t, top, src)
		for _, p := range files(500) {
			for _, sm := range sms {
				testkit.Fetch(sm, p)
			}
		}
		armed.Store(true)
		src.rev.Add(1)
		if err := sms[0].Invalidate("", 4); err != nil {
			t.Fatal(err)
		}
		<-started                          // replica 1 rebuilds the page, holding its lock
		time.Sleep(200 * time.Millisecond) // the others hear of the change
		type answer struct {
			i    int
			body []byte
			at   time.Time
		}
		answers := make(chan answer, 3*len(sms))
		for range 3 {
			for i, sm := range sms {
				go func() {
					w := testkit.Fetch(sm, "/sitemap-4.xml.gz")
					answers <- answer{i, w.Body.Bytes(), time.Now()}
				}()
			}
		}
		time.Sleep(500 * time.Millisecond)
		released := time.Now()
		close(release)
		var slowest time.Duration
		for range 3 * len(sms) {
			a := <-answers
			slowest = max(slowest, a.at.Sub(released))
			switch {
			case a.at.Before(released):
				t.Errorf("replica %d answered during the rebuild", a.i+1)
			case !bytes.Contains(testkit.Gunzip(t, a.body), []byte("rev=1")):
				t.Errorf("replica %d: the old bytes after the rebuild", a.i+1)
			case a.at.Sub(released) > 5*time.Second:
				t.Errorf("replica %d answered %v after the rebuild ended", a.i+1, a.at.Sub(released))
			}
		}
		t.Logf("%d GETs during the rebuild answered at most %v after it ended", 3*len(sms), slowest)
		if got := src.reads.Load(); got != 11 {
			t.Errorf("page reads = %d, want 11 (10 pages, and one rebuild for the fleet)", got)
		}
		quiets := []time.Duration{500 * time.Millisecond, 2 * time.Second, 10 * time.Second}
		if os.Getenv(envLongQuiet) != "" {
			quiets = append(quiets, time.Minute)
		}
		for _, quiet := range quiets {
			time.Sleep(quiet)
			for i, sm := range sms {
				w := testkit.Fetch(sm, "/sitemap-4.xml.gz")
				if !bytes.Contains(testkit.Gunzip(t, w.Body.Bytes()), []byte("rev=1")) {
					t.Errorf("replica %d, first GET after %v of quiet: the old bytes", i+1, quiet)
				}
			}
		}
	})
}
