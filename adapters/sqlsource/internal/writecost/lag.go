package writecost

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/sqlsource"
)

// A Consumer starts what tells inv of the pages that changed (Watch on
// the change table, or a logical decoding feed) and returns what stops it.
type Consumer func(ctx context.Context, inv sqlsource.Invalidator, section string) (stop func() error, err error)

// WatchConsumer is Watch on the change table, with its triggers installed.
func (b *Bench) WatchConsumer(ctx context.Context, inv sqlsource.Invalidator, section string) (func() error, error) {
	if err := b.Src.InstallSummary(ctx); err != nil {
		return nil, err
	}
	w, err := b.Src.Watch(ctx, inv, section)
	if err != nil {
		return nil, err
	}
	return w.Close, nil
}

// Lag measures commit → new bytes served: a Sitemap over the table, the
// consumer telling it (the keys that changed, as Watch tells a Sitemap;
// with TellPages, their pages), the writers renaming random rows at full speed,
// and a probe that renames one random row at a time and fetches its page
// (If-None-Match, every 10 ms) until the new slug is in it (or maxLag
// passed), probes times.
// It writes the p50, p90, p99 and the largest.
func (b *Bench) Lag(ctx context.Context, name string, consumer Consumer, probes int) error {
	trace := &lagTrace{next: slog.Default().Handler()}
	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://shop.example.com", Logger: slog.New(trace.handler())},
		sitemap.Section{Name: "products", Source: b.Src})
	if err != nil {
		return err
	}
	defer sm.Close()
	srv := httptest.NewServer(sm)
	defer srv.Close()
	told := &toldAt{inv: sm, at: map[int64][]time.Time{}}
	var inv sqlsource.Invalidator = &toldKeys{told, sm, b.Src}
	if b.TellPages {
		inv = told
	}
	stopConsumer, err := consumer(ctx, inv, "products")
	if err != nil {
		return err
	}
	defer stopConsumer()
	sig := "UPDATE " + b.Table + " SET slug = " + Placeholder(b.Dialect, 1) + " WHERE id = " + Placeholder(b.Dialect, 2)
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	var wg sync.WaitGroup
	var writes int64
	var mu sync.Mutex
	for i := range b.Writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(i), 7))
			n := int64(0)
			for wctx.Err() == nil {
				if _, err := b.DB.ExecContext(wctx, sig, fmt.Sprint("w-", i, "-", n), 2*(1+r.Int64N(b.Rows))); err == nil {
					n++
				}
			}
			mu.Lock()
			writes += n
			mu.Unlock()
		}()
	}
	time.Sleep(time.Second)
	var lags, builds, tells, cold []time.Duration
	var traces []probeTrace
	late := 0
	fetched := map[int64]bool{}
	r := rand.New(rand.NewPCG(99, 1))
	began := time.Now()
	for k := range probes {
		id := 2 * (1 + r.Int64N(b.Rows))
		page := b.Src.PageOf(id)
		path := fmt.Sprintf("%s/sitemap-products-%d.xml.gz", srv.URL, page)
		etag, _, f, err := fetch(path, "", "")
		if err != nil {
			return err
		}
		if !fetched[page] { // its first request builds it
			fetched[page] = true
			cold = append(cold, f.took)
		}
		slug := fmt.Sprintf("lag-%d-%d", k, time.Now().UnixNano())
		if _, err := b.DB.ExecContext(ctx, sig, slug, id); err != nil {
			return err
		}
		committed := time.Now()
		pt := probeTrace{page: page, committed: committed}
		for {
			if time.Since(committed) > maxLag {
				late++ // counted as maxLag, and the next probe goes on
				lags, builds = append(lags, maxLag), append(builds, 0)
				tells = append(tells, told.first(page, committed).Sub(committed))
				pt.lag = maxLag
				break
			}
			var found bool
			var f traceFetch
			etag, found, f, err = fetch(path, etag, slug)
			if err != nil {
				return err
			}
			pt.fetches = append(pt.fetches, f)
			if found {
				lags = append(lags, time.Since(committed))
				pt.lag = lags[len(lags)-1]
				builds = append(builds, f.took)
				tells = append(tells, told.first(page, committed).Sub(committed))
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		traces = append(traces, pt)
	}
	elapsed := time.Since(began)
	stop()
	wg.Wait()
	slices.Sort(lags)
	slices.Sort(builds)
	slices.Sort(tells)
	slices.Sort(cold)
	q := func(s []time.Duration, f float64) time.Duration {
		return s[min(len(s)-1, int(f*float64(len(s))))].Round(time.Millisecond)
	}
	fmt.Fprintf(b.Out, "commit → new bytes served (%s), %d probes (%d not served within %v, counted as that), writers renaming at %.0f/s: p50 %v, p90 %v, p99 %v, max %v; "+
		"commit → the first Invalidate of its page after it (a lower bound of the consumer's part) p50 %v, p90 %v, max %v; "+
		"the request that first served the new bytes took p50 %v, max %v; the first request of a page (a build of its %d URLs) p50 %v, max %v (%d pages)\n",
		name, len(lags), late, maxLag, float64(writes)/(elapsed.Seconds()+1), q(lags, 0.5), q(lags, 0.9), q(lags, 0.99), lags[len(lags)-1].Round(time.Millisecond),
		q(tells, 0.5), q(tells, 0.9), tells[len(tells)-1].Round(time.Millisecond), q(builds, 0.5), builds[len(builds)-1].Round(time.Millisecond),
		PageSize, q(cold, 0.5), cold[len(cold)-1].Round(time.Millisecond), len(cold))
	fmt.Fprintf(b.Out, "the %d slowest probes, in ms from the commit:\n", min(3, len(traces)))
	trace.write(b.Out, traces, told, 3)
	return nil
}

// maxLag is how long a probe waits for its new bytes.
const maxLag = 30 * time.Second

// fetch GETs path with If-None-Match: etag, and reports the new ETag,
// whether the (new) bytes hold want, and the request: when it began, its
// status and how long it took.
func fetch(path, etag, want string) (string, bool, traceFetch, error) {
	req, err := http.NewRequest(http.MethodGet, path, nil)
	if err != nil {
		return "", false, traceFetch{}, err
	}
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	f := traceFetch{at: time.Now()}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", false, f, err
	}
	defer resp.Body.Close()
	f.status = resp.StatusCode
	if resp.StatusCode != http.StatusOK { // 304; or a rebuild under way, or a 503: ask again
		f.took = time.Since(f.at)
		return etag, false, f, nil
	}
	z, err := gzip.NewReader(resp.Body)
	if err != nil {
		return "", false, f, err
	}
	body, err := io.ReadAll(z)
	if err != nil {
		return "", false, f, err
	}
	f.took = time.Since(f.at)
	return resp.Header.Get("ETag"), want != "" && bytes.Contains(body, []byte(want)), f, nil
}

// toldAt passes Invalidate on and keeps when each page was told.
type toldAt struct {
	inv sqlsource.Invalidator
	mu  sync.Mutex
	at  map[int64][]time.Time
}

func (t *toldAt) Invalidate(section string, pages ...int64) error {
	now := time.Now()
	t.mu.Lock()
	for _, n := range pages {
		t.at[n] = append(t.at[n], now)
	}
	t.mu.Unlock()
	return t.inv.Invalidate(section, pages...)
}

// toldKeys is a toldAt that also passes InvalidateKeys on, as a Sitemap
// given to Watch is told: the keys of the rows that changed, whose
// segments alone a rebuild reads again. Their pages count as told.
type toldKeys struct {
	*toldAt
	sm  *sitemap.Sitemap
	src *sqlsource.Source
}

func (t *toldKeys) InvalidateKeys(section string, keys ...int64) error {
	now := time.Now()
	t.mu.Lock()
	for _, k := range keys {
		n := t.src.PageOf(k)
		if at := t.at[n]; len(at) == 0 || at[len(at)-1] != now {
			t.at[n] = append(at, now)
		}
	}
	t.mu.Unlock()
	return t.sm.InvalidateKeys(section, keys...)
}

// first returns when page was first told after since, or since if it was
// not (a consumer that told it in the same instant).
func (t *toldAt) first(page int64, since time.Time) time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, at := range t.at[page] {
		if !at.Before(since) {
			return at
		}
	}
	return since
}
