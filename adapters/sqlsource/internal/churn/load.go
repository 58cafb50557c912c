package churn

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"
)

// The load: renames at a fixed rate, spread over every page, and probes
// that read a renamed row's page until its new bytes are served.

// MaxLag is how long a probe waits for its new bytes; a probe not served
// by then counts as MaxLag.
const MaxLag = 30 * time.Second

// writers is how many renames may be under way at once, so that a slow
// commit does not slow the rate.
const writers = 8

// LoadSpec is a load: what the command hands its child process.
type LoadSpec struct {
	Table    string
	Rows     int64
	PageSize int
	URL      string        // the server
	Rate     float64       // renames a second
	Dur      time.Duration // for how long
	Probes   float64       // probed renames a second (some of the renames)
	Seed     uint64        // makes the new slugs new
}

// LoadResult is what a load measured.
type LoadResult struct {
	Writes      int             // renames committed
	Late        int             // renames started over 250 ms after their time (the writers could not keep up)
	Lags        []time.Duration // commit → new bytes served, per probe (MaxLag if not served)
	Probed      []Probed        // each probe's page and commit time, in the order of Lags
	Unserved    int             // probes not served within MaxLag
	Told        int             // set by Run: probes served whose page's telling was seen
	ServerCores float64         // set by Run: this process's CPU over the load's span, in cores
	// PostgresCores and MachineCores are, set by Run on Linux, the CPU of
	// the PostgreSQL server's processes (for every client) and of the
	// whole machine over that span.
	PostgresCores, MachineCores float64
}

// Load renames rows of spec's table at spec.Rate a second for spec.Dur,
// the i-th in page i mod pages (a random row of it), and probes every
// k-th (k = Rate / Probes): after its commit, its page is read until the
// new slug is in it. It returns once every probe is served or gave up.
func Load(ctx context.Context, db *sql.DB, spec LoadSpec) (LoadResult, error) {
	if spec.Rate <= 0 || spec.Dur <= 0 || spec.Rows < 1 || spec.PageSize < 1 {
		return LoadResult{}, fmt.Errorf("churn: load: want a rate, a duration, rows and a page size, not %v, %v, %d, %d", spec.Rate, spec.Dur, spec.Rows, spec.PageSize)
	}
	pages := (spec.Rows + int64(spec.PageSize) - 1) / int64(spec.PageSize)
	every := 1
	if spec.Probes > 0 && spec.Probes < spec.Rate {
		every = int(spec.Rate/spec.Probes + 0.5)
	}
	period := time.Duration(float64(time.Second) / spec.Rate)
	update := "UPDATE " + spec.Table + " SET slug = $1 WHERE id = $2"
	pr := &prober{base: spec.URL, pending: map[int64][]probe{}, etag: map[int64]string{}}
	pctx, stopProbes := context.WithCancel(ctx)
	defer stopProbes()

	var (
		res   LoadResult
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
	)
	jobs := make(chan int)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(spec.Seed, uint64(w)))
			for i := range jobs {
				page := int64(i) % pages
				id := min(1+page*int64(spec.PageSize)+r.Int64N(int64(spec.PageSize)), spec.Rows)
				slug := fmt.Sprintf("c%d-%d", spec.Seed, i)
				_, err := db.ExecContext(ctx, update, slug, id)
				committed := time.Now()
				mu.Lock()
				if err != nil {
					if first == nil {
						first = err
					}
					mu.Unlock()
					continue
				}
				res.Writes++
				mu.Unlock()
				if i%every == 0 {
					pr.add(pctx, page+1, probe{want: []byte("/p/" + slug + "</loc>"), committed: committed})
				}
			}
		}()
	}
	start := time.Now()
	for i := 0; ; i++ {
		at := start.Add(time.Duration(i) * period)
		if at.Sub(start) >= spec.Dur {
			break
		}
		if d := time.Until(at); d > 0 {
			time.Sleep(d)
		}
		select {
		case jobs <- i:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		if time.Since(at) > 250*time.Millisecond {
			res.Late++
		}
	}
	close(jobs)
	wg.Wait()
	if first != nil {
		return res, fmt.Errorf("churn: rename: %w", first)
	}
	pr.wait()
	res.Lags, res.Probed, res.Unserved = pr.lags, pr.probed, pr.unserved
	if pr.failed != nil {
		return res, fmt.Errorf("churn: probe: %w", pr.failed)
	}
	return res, ctx.Err()
}

// Probed is a probed rename: its page and when it committed.
type Probed struct {
	Page      int64
	Committed time.Time
}

// probe is a rename waiting to be served.
type probe struct {
	want      []byte // its loc, as the page's XML holds it
	committed time.Time
}

// prober reads the pages of probes that wait, one reader a page.
type prober struct {
	base string

	mu       sync.Mutex
	pending  map[int64][]probe // page → its probes waiting
	etag     map[int64]string  // page → the ETag of the bytes read last ("" to read them whole)
	running  int               // readers under way
	idle     chan struct{}     // closed when running drops to 0 (wait)
	lags     []time.Duration
	probed   []Probed
	unserved int
	failed   error // the first request that failed, not for ctx's end
}

// add starts waiting for p on page, and a reader of the page if none runs.
func (pr *prober) add(ctx context.Context, page int64, p probe) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	pr.pending[page] = append(pr.pending[page], p)
	pr.etag[page] = "" // bytes read before the commit may hold it already: read them whole again
	if len(pr.pending[page]) == 1 {
		pr.running++
		go pr.read(ctx, page)
	}
}

// read polls page until none of its probes waits: more often while the
// oldest is young (every tenth of its age, 20 ms to 250 ms).
func (pr *prober) read(ctx context.Context, page int64) {
	for {
		pr.mu.Lock()
		ps, etag := pr.pending[page], pr.etag[page]
		if len(ps) == 0 {
			pr.running--
			if pr.running == 0 && pr.idle != nil {
				close(pr.idle)
				pr.idle = nil
			}
			pr.mu.Unlock()
			return
		}
		pr.mu.Unlock()
		body, tag, err := fetch(ctx, pr.base+PagePath(page), etag)
		now := time.Now()
		pr.mu.Lock()
		if err == nil && body != nil && pr.etag[page] == etag {
			pr.etag[page] = tag
		}
		if err != nil && ctx.Err() == nil && pr.failed == nil {
			pr.failed = err
		}
		var left []probe
		for _, p := range pr.pending[page] {
			switch age := now.Sub(p.committed); {
			case body != nil && bytes.Contains(body, p.want):
				pr.lags = append(pr.lags, age)
				pr.probed = append(pr.probed, Probed{page, p.committed})
			case age > MaxLag || ctx.Err() != nil:
				pr.lags = append(pr.lags, MaxLag)
				pr.probed = append(pr.probed, Probed{page, p.committed})
				pr.unserved++
			default:
				left = append(left, p)
			}
		}
		pr.pending[page] = left
		wait := 20 * time.Millisecond
		if len(left) > 0 {
			wait = min(max(now.Sub(left[0].committed)/10, 20*time.Millisecond), 250*time.Millisecond)
		}
		pr.mu.Unlock()
		if ctx.Err() == nil {
			time.Sleep(wait)
		}
	}
}

// wait returns once no reader runs.
func (pr *prober) wait() {
	pr.mu.Lock()
	if pr.running == 0 {
		pr.mu.Unlock()
		return
	}
	idle := make(chan struct{})
	pr.idle = idle
	pr.mu.Unlock()
	<-idle
}

// fetch GETs url with If-None-Match: etag, and returns the decompressed
// bytes and their ETag; nil bytes if they did not change (a 304) or the
// server could not serve them now (a 503: a build under way).
func fetch(ctx context.Context, url, etag string) ([]byte, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, "", err
	}
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusNotModified, http.StatusServiceUnavailable:
		io.Copy(io.Discard, resp.Body)
		return nil, etag, nil
	default:
		return nil, "", fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	z, err := gzip.NewReader(resp.Body)
	if err != nil {
		return nil, "", err
	}
	body, err := io.ReadAll(z)
	if err != nil {
		return nil, "", err
	}
	if len(body) == 0 {
		return nil, "", errors.New("GET " + url + ": no bytes")
	}
	return body, resp.Header.Get("ETag"), nil
}
