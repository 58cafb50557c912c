package testkit

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The crawl invariant: a validator is never given for bytes that changed.
// Crawlers behind a load balancer fetch files from random replicas with
// the copy they hold (If-None-Match or If-Modified-Since); every 304 is
// re-checked at once by a GET to the same replica, and every response is
// compared with the copy held before. A newer revision of a file (as rev
// reads it from the bytes) under a Last-Modified not after the held one
// is a lie: a crawler asking If-Modified-Since would have been told 304
// and kept its stale copy. So is the same revision under an earlier
// Last-Modified, and a Last-Modified more than two seconds ahead.

// CrawlRun is how long a crawl lasts: 3 s, or SITEMAP_CRAWL_RUN (such as
// 30s, for the faults of 15 s).
func CrawlRun(t testing.TB) time.Duration { return envDuration(t, "SITEMAP_CRAWL_RUN", 3*time.Second) }

// CrawlTTL is the replicas' TTL in a crawl: 400 ms, or SITEMAP_CRAWL_TTL
// (such as 1m: copies then stay cached across the faults).
func CrawlTTL(t testing.TB) time.Duration {
	return envDuration(t, "SITEMAP_CRAWL_TTL", 400*time.Millisecond)
}

func envDuration(t testing.TB, name string, def time.Duration) time.Duration {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return d
}

// CrawlResult is what a crawl saw.
type CrawlResult struct {
	Checked, NotModified int64
	Lies                 []string
}

// heldCopy is a crawler's copy of a file.
type heldCopy struct {
	rev     int64
	etag    string
	lastMod string
	at      time.Time
}

// Crawl runs crawlers crawlers on replicas until ctx ends, each fetching
// random paths, and returns what they saw; rev reads a file's revision
// from its XML (gunzipped for a .gz path). A crawl that has had no 304
// to check when ctx ends (a Store slowed to 500 ms a command, on a
// loaded machine: 12 responses in 3 s) goes on until it has one, for at
// most as long again as ctx's deadline gave it, so that Report's "tested
// nothing" says the invariant was never tested, not that the machine was
// slow.
func Crawl(ctx context.Context, t testing.TB, crawlers int, replicas []http.Handler, paths []string, rev func(xml []byte) int64) CrawlResult {
	var res CrawlResult
	var mu sync.Mutex
	var checked, notModified atomic.Int64
	var wg sync.WaitGroup
	until := time.Now()
	if d, ok := ctx.Deadline(); ok {
		until = d.Add(time.Until(d))
	}
	crawling := func() bool { return ctx.Err() == nil || notModified.Load() == 0 && time.Now().Before(until) }
	for range crawlers {
		wg.Go(func() {
			copies := map[string]heldCopy{}
			for crawling() {
				path, h := paths[rand.N(len(paths))], replicas[rand.N(len(replicas))]
				held, ok := copies[path]
				var w *httptest.ResponseRecorder
				switch {
				case !ok:
					w = Fetch(h, path)
				case rand.N(2) == 0:
					w = Fetch(h, path, "If-None-Match", held.etag)
				default:
					w = Fetch(h, path, "If-Modified-Since", held.lastMod)
				}
				what := "a 200"
				if w.Code == http.StatusNotModified {
					notModified.Add(1)
					what = "a GET just after a 304"
					w = Fetch(h, path) // the 304, re-checked
				}
				if w.Code != http.StatusOK {
					continue // a 503 while the replica cannot build: no validator given
				}
				checked.Add(1)
				body := w.Body.Bytes()
				if strings.HasSuffix(path, ".gz") {
					body = Gunzip(t, body)
				}
				got := heldCopy{rev: rev(body), etag: w.Header().Get("Etag"), lastMod: w.Header().Get("Last-Modified")}
				got.at, _ = http.ParseTime(got.lastMod)
				lie := ""
				switch {
				case got.at.After(time.Now().Add(2 * time.Second)):
					lie = fmt.Sprintf("%s: Last-Modified %s in the future", path, got.lastMod)
				case !ok || got.at.IsZero() || held.at.IsZero():
					// No Last-Modified: only the ETag validates, and it
					// names the bytes.
				case got.rev > held.rev && !got.at.After(held.at):
					lie = fmt.Sprintf("%s: %s gave rev %d under Last-Modified %s, not after %s of the held rev %d",
						path, what, got.rev, got.lastMod, held.lastMod, held.rev)
				case got.rev == held.rev && got.at.Before(held.at):
					lie = fmt.Sprintf("%s: %s gave rev %d under Last-Modified %s, back from %s", path, what, got.rev, got.lastMod, held.lastMod)
				}
				if lie != "" {
					mu.Lock()
					res.Lies = append(res.Lies, lie)
					mu.Unlock()
				}
				copies[path] = got
			}
		})
	}
	wg.Wait()
	res.Checked, res.NotModified = checked.Load(), notModified.Load()
	return res
}

// Report logs what the crawl saw, and fails t for each lie (the first
// ten) or if it tested nothing.
func (r CrawlResult) Report(t testing.TB) {
	t.Helper()
	t.Logf("%d responses checked, %d of them after a 304; %d lies", r.Checked, r.NotModified, len(r.Lies))
	if r.Checked == 0 || r.NotModified == 0 {
		t.Errorf("the crawl checked %d responses and %d 304s: it tested nothing", r.Checked, r.NotModified)
	}
	for i, l := range r.Lies {
		if i == 10 {
			t.Errorf("and %d more", len(r.Lies)-10)
			break
		}
		t.Error(l)
	}
}

// Fetch serves a GET of path by h, with the request headers given as
// name, value pairs.
func Fetch(h http.Handler, path string, header ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// Rev reads the revision a test catalogue writes in its locations
// ("…?rev=N<"), from a file's XML.
func Rev(xml []byte) int64 {
	_, rest, _ := strings.Cut(string(xml), "?rev=")
	end := strings.IndexByte(rest, '<')
	if end < 0 {
		return -1
	}
	rev, err := strconv.ParseInt(rest[:end], 10, 64)
	if err != nil {
		return -1
	}
	return rev
}

// Converged waits, after a crawl, until every replica serves the revision
// want gives for each of paths (.xml.gz files), then until they serve
// each under one Last-Modified, which each replica's index
// (/sitemap_index.xml) lists. It fails t if the first (staleness) takes
// more than 2 s, or the second (the clocks agreed: a change within a
// second of another waits for the next second, rule 1 of the clock) more
// than 4 s; five times that under the race detector, which slows
// everything; or if either does not happen in 20 s.
func Converged(t testing.TB, replicas []http.Handler, paths []string, want func(path string) int64) {
	t.Helper()
	fresh, agreed := 2*time.Second, 4*time.Second
	if Race {
		fresh, agreed = 5*fresh, 5*agreed
	}
	start := time.Now()
	var last string
	var tookFresh time.Duration
	for time.Since(start) < 20*time.Second {
		last = converged(t, replicas, paths, want, tookFresh == 0)
		if tookFresh == 0 && !strings.HasPrefix(last, "stale: ") {
			tookFresh = time.Since(start)
			last = converged(t, replicas, paths, want, false)
		}
		if last == "" {
			took := time.Since(start)
			t.Logf("every replica served the last revision after %v, under one Last-Modified its index lists after %v",
				tookFresh.Round(time.Millisecond), took.Round(time.Millisecond))
			if tookFresh > fresh {
				t.Errorf("the replicas served the last revision after %v, want %v at most", tookFresh, fresh)
			}
			if took > agreed {
				t.Errorf("the replicas agreed on its clock after %v, want %v at most", took, agreed)
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("the replicas did not converge in 20 s: %s", last)
}

// converged returns what keeps the replicas from having converged, or "";
// with revOnly, only whether each serves the last revision (what keeps
// them from it starts with "stale: ").
func converged(t testing.TB, replicas []http.Handler, paths []string, want func(path string) int64, revOnly bool) string {
	for _, path := range paths {
		lm := ""
		for i, h := range replicas {
			w := Fetch(h, path)
			if w.Code != http.StatusOK {
				return fmt.Sprintf("stale: replica %d: %s: %d", i, path, w.Code)
			}
			rev, at := Rev(Gunzip(t, w.Body.Bytes())), w.Header().Get("Last-Modified")
			lmt, _ := http.ParseTime(at)
			switch {
			case rev != want(path):
				return fmt.Sprintf("stale: replica %d: %s: rev %d, want %d", i, path, rev, want(path))
			case revOnly:
				continue
			case at == "" || lm != "" && at != lm:
				return fmt.Sprintf("replica %d: %s: Last-Modified %q, another's %q", i, path, at, lm)
			case !strings.Contains(Fetch(h, "/sitemap_index.xml").Body.String(), path+"</loc><lastmod>"+lmt.Format("2006-01-02T15:04:05Z")+"</lastmod>"):
				return fmt.Sprintf("replica %d: the index does not list %s at its Last-Modified %s", i, path, at)
			}
			lm = at
		}
	}
	return ""
}
