package sitemap

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/indexnow"
	"github.com/freshmap/sitemap/internal/testkit"
)

const (
	testKey = "a1b2C3d4-e5f6"
	inBase  = "https://example.com/shop/"
)

// endpoint is a local IndexNow endpoint that checks every request against
// the protocol and records its URL list. respond answers request i (from
// 0); nil answers 200.
type endpoint struct {
	t       *testing.T
	srv     *httptest.Server
	respond func(i int, w http.ResponseWriter, r *http.Request)
	events  *events

	mu    sync.Mutex
	posts [][]string
}

// events is the order of what happened: posts and waits.
type events struct {
	mu   sync.Mutex
	list []string
}

func (e *events) add(s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.list = append(e.list, s)
}

func (e *events) get() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.list)
}

func newEndpoint(t *testing.T, ev *events, respond func(i int, w http.ResponseWriter, r *http.Request)) *endpoint {
	e := &endpoint{t: t, respond: respond, events: ev}
	e.srv = httptest.NewServer(http.HandlerFunc(e.serve))
	t.Cleanup(e.srv.Close)
	return e
}

func (e *endpoint) serve(w http.ResponseWriter, r *http.Request) {
	t := e.t
	if r.Method != http.MethodPost || r.URL.Path != "/indexnow" {
		t.Errorf("%s %s, want POST /indexnow", r.Method, r.URL.Path)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	var fields map[string]json.RawMessage
	if err := json.NewDecoder(r.Body).Decode(&fields); err != nil {
		t.Errorf("body: %v", err)
	}
	if len(fields) != 4 {
		t.Errorf("%d fields, want host, key, keyLocation and urlList: %v", len(fields), fields)
	}
	var host, key, keyLoc string
	var list []string
	for name, v := range map[string]any{"host": &host, "key": &key, "keyLocation": &keyLoc, "urlList": &list} {
		if err := json.Unmarshal(fields[name], v); err != nil {
			t.Errorf("field %s: %v", name, err)
		}
	}
	if host != "example.com" || key != testKey || keyLoc != inBase+testKey+".txt" {
		t.Errorf("host %q, key %q, keyLocation %q", host, key, keyLoc)
	}
	if len(list) == 0 || len(list) > indexnow.Batch {
		t.Errorf("%d URLs in one POST", len(list))
	}
	seen := make(map[string]bool)
	for _, u := range list {
		if seen[u] || !strings.HasPrefix(u, inBase) {
			t.Errorf("URL %q twice or not under the base", u)
		}
		seen[u] = true
	}
	e.mu.Lock()
	i := len(e.posts)
	e.posts = append(e.posts, list)
	e.mu.Unlock()
	if e.respond != nil {
		e.respond(i, w, r)
	}
	if e.events != nil {
		e.events.add(fmt.Sprintf("post %d", len(list)))
	}
}

func (e *endpoint) url() string { return e.srv.URL + "/indexnow" }

func (e *endpoint) got() [][]string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.posts)
}

// startSender starts a sender whose retry waits are recorded in ev and end
// at once. It is closed when the test ends.
func startSender(t *testing.T, cfg IndexNow, ev *events, now func() time.Time, start bool) (*indexnow.Site, *testkit.SyncBuffer) {
	t.Helper()
	var logs testkit.SyncBuffer
	n, err := prepareIndexNow(&cfg, inBase, slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})), now)
	if err != nil {
		t.Fatal(err)
	}
	n.SetSleep(func(ctx context.Context, d time.Duration) bool {
		if ev != nil {
			ev.add("wait " + d.String())
		}
		return ctx.Err() == nil
	})
	if start {
		n.Start()
	}
	t.Cleanup(func() { n.Close(context.Background()) })
	return n, &logs
}

func urls(from, to int) []string {
	var us []string
	for i := from; i < to; i++ {
		us = append(us, fmt.Sprintf("%sp/%d", inBase, i))
	}
	return us
}

// 25,001 distinct URLs, pushed with duplicates and a non-canonical
// spelling, leave in three POSTs, each URL once.
func TestIndexNowBatches(t *testing.T) {
	ep := newEndpoint(t, nil, nil)
	n, _ := startSender(t, IndexNow{Key: testKey, Endpoints: []string{ep.url()}, Delay: time.Millisecond}, nil, nil, true)
	all := urls(0, 25_001)
	n.Push(append(append(slices.Clone(all), all[:100]...), "HTTPS://EXAMPLE.COM/shop/p/7")...)
	waitFor(t, func() bool { return n.Sent.Load() == 25_001 })
	posts := ep.got()
	if len(posts) != 3 {
		t.Fatalf("%d POSTs, want 3", len(posts))
	}
	var got []string
	for _, p := range posts {
		got = append(got, p...)
	}
	slices.Sort(got)
	slices.Sort(all)
	if !slices.Equal(got, all) {
		t.Errorf("%d URLs received, want the %d pushed, each once", len(got), len(all))
	}
}

// A 429 or a 5xx keeps the batch and retries it after the endpoint's
// Retry-After (seconds or a date), or a backoff; it is delivered once.
func TestIndexNowRetry(t *testing.T) {
	t0 := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	for name, tc := range map[string]struct {
		status     int
		retryAfter string
		wait       func(d time.Duration) bool
	}{
		"429 seconds": {429, "120", func(d time.Duration) bool { return d == 120*time.Second }},
		"429 date":    {429, t0.Add(90 * time.Second).Format(http.TimeFormat), func(d time.Duration) bool { return d == 90*time.Second }},
		"429 capped":  {429, "86400", func(d time.Duration) bool { return d == 10*time.Minute }},
		"503 backoff": {503, "", func(d time.Duration) bool { return d >= 5*time.Second && d <= 10*time.Second }},
		"500 garbage": {500, "soon", func(d time.Duration) bool { return d >= 5*time.Second && d <= 10*time.Second }},
	} {
		t.Run(name, func(t *testing.T) {
			var ev events
			ep := newEndpoint(t, &ev, func(i int, w http.ResponseWriter, r *http.Request) {
				if i == 0 {
					if tc.retryAfter != "" {
						w.Header().Set("Retry-After", tc.retryAfter)
					}
					w.WriteHeader(tc.status)
				}
			})
			n, logs := startSender(t, IndexNow{Key: testKey, Endpoints: []string{ep.url()}, Delay: -1}, &ev, func() time.Time { return t0 }, true)
			n.Push(urls(0, 3)...)
			waitFor(t, func() bool { return n.Sent.Load() == 3 })
			got := ev.get()
			if len(got) != 3 || got[0] != "post 3" || !strings.HasPrefix(got[1], "wait ") || got[2] != "post 3" {
				t.Fatalf("events %q, want a post, a wait and the post again", got)
			}
			d, _ := time.ParseDuration(strings.TrimPrefix(got[1], "wait "))
			if !tc.wait(d) {
				t.Errorf("waited %v", d)
			}
			if n.Retried.Load() != 1 || n.Failed.Load() != 0 || !strings.Contains(logs.String(), "will be retried") {
				t.Errorf("retried %d, failed %d; log:\n%s", n.Retried.Load(), n.Failed.Load(), logs.String())
			}
		})
	}
}

// The waits grow, jittered, up to MaxBackoff; a network error is retried
// like a 5xx.
func TestIndexNowBackoff(t *testing.T) {
	var ev events
	ep := newEndpoint(t, &ev, func(i int, w http.ResponseWriter, r *http.Request) {
		switch i {
		case 0:
			panic(http.ErrAbortHandler) // the connection drops: a network error
		case 1, 2, 3:
			w.WriteHeader(http.StatusBadGateway)
		}
	})
	n, _ := startSender(t, IndexNow{Key: testKey, Endpoints: []string{ep.url()}, Delay: -1, MaxBackoff: 30 * time.Second}, &ev, nil, true)
	n.Push(urls(0, 1)...)
	waitFor(t, func() bool { return n.Sent.Load() == 1 })
	var waits []time.Duration
	for _, e := range ev.get() {
		if d, ok := strings.CutPrefix(e, "wait "); ok {
			w, _ := time.ParseDuration(d)
			waits = append(waits, w)
		}
	}
	bounds := [][2]time.Duration{{5 * time.Second, 10 * time.Second}, {10 * time.Second, 20 * time.Second},
		{15 * time.Second, 30 * time.Second}, {15 * time.Second, 30 * time.Second}}
	if len(waits) != len(bounds) {
		t.Fatalf("waits %v, want %d", waits, len(bounds))
	}
	for i, w := range waits {
		if w < bounds[i][0] || w > bounds[i][1] {
			t.Errorf("wait %d: %v, want %v to %v", i+1, w, bounds[i][0], bounds[i][1])
		}
	}
}

// 400, 403 and 422 (and any other refusal) are logged with the body, and
// the batch is dropped, not retried.
func TestIndexNowRefused(t *testing.T) {
	for _, status := range []int{400, 403, 422, 404} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			ep := newEndpoint(t, nil, func(i int, w http.ResponseWriter, r *http.Request) {
				if i == 0 {
					w.WriteHeader(status)
					fmt.Fprint(w, "key not valid: "+strings.Repeat("x", 2000))
				}
			})
			n, logs := startSender(t, IndexNow{Key: testKey, Endpoints: []string{ep.url()}, Delay: -1}, nil, nil, true)
			n.Push(urls(0, 2)...)
			waitFor(t, func() bool { return n.Failed.Load() == 1 })
			n.Push(urls(2, 3)...) // sent alone: the refused batch is gone
			waitFor(t, func() bool { return n.Sent.Load() == 1 })
			if posts := ep.got(); len(posts) != 2 || len(posts[1]) != 1 || posts[1][0] != inBase+"p/2" {
				t.Errorf("posts %q, want the refused batch once, then the new URL alone", posts)
			}
			log := logs.String()
			if !strings.Contains(log, "batch refused") || !strings.Contains(log, fmt.Sprintf("status=%d", status)) ||
				!strings.Contains(log, "key not valid: xxx") || strings.Contains(log, strings.Repeat("x", indexnow.LogBody)) {
				t.Errorf("log lacks the status and the start of the body, or holds all of it:\n%.600s", log)
			}
			if n.Retried.Load() != 0 {
				t.Errorf("retried %d", n.Retried.Load())
			}
		})
	}
}

// URLs that are not under the base URL are refused and counted.
func TestIndexNowOtherHosts(t *testing.T) {
	ep := newEndpoint(t, nil, nil)
	n, logs := startSender(t, IndexNow{Key: testKey, Endpoints: []string{ep.url()}, Delay: -1}, nil, nil, true)
	n.Push("https://other.example/shop/p/1", "https://example.com/elsewhere", "http://example.com/shop/p/1",
		"/shop/p/1", "not a url", "https://example.com:8443/shop/p/1")
	n.Push(inBase + "ok")
	waitFor(t, func() bool { return n.Sent.Load() == 1 })
	if posts := ep.got(); len(posts) != 1 || !slices.Equal(posts[0], []string{inBase + "ok"}) {
		t.Errorf("posts %q", posts)
	}
	if got := n.Refused.Load(); got != 6 || strings.Count(logs.String(), "URL refused") != 6 {
		t.Errorf("refused %d, want 6; log:\n%s", got, logs.String())
	}
}

// A full queue drops what does not fit without blocking, counts it, and
// logs once per overflow; Close sends the queue at once, without the batch
// delay.
func TestIndexNowOverflowAndFlush(t *testing.T) {
	ep := newEndpoint(t, nil, nil)
	n, logs := startSender(t, IndexNow{Key: testKey, Endpoints: []string{ep.url()}, Delay: time.Hour, QueueSize: 10}, nil, nil, false)
	n.Push(urls(0, 25)...) // no sender runs: nothing drains
	n.Push(urls(0, 30)...)
	if got := n.Dropped.Load(); got != 15+20 {
		t.Errorf("dropped %d, want 35", got)
	}
	if c := strings.Count(logs.String(), "queue full"); c != 1 {
		t.Errorf("%d queue-full lines, want 1:\n%s", c, logs.String())
	}
	n.Start()
	start := time.Now()
	sent, dropped := n.Close(context.Background())
	if sent != 10 || dropped != 0 || time.Since(start) > 5*time.Second {
		t.Errorf("close: sent %d, dropped %d in %v", sent, dropped, time.Since(start))
	}
	if posts := ep.got(); len(posts) != 1 || !slices.Equal(posts[0], urls(0, 10)) {
		t.Errorf("posts %q, want the first 10", posts)
	}
	if !strings.Contains(logs.String(), "queue has room again") {
		t.Errorf("the end of the overflow is not logged:\n%s", logs.String())
	}
	n.Push(urls(100, 103)...) // after close: dropped
	if got := n.Dropped.Load(); got != 38 {
		t.Errorf("dropped %d after close, want 38", got)
	}
}

// Close gives up on an endpoint that hangs when its context ends, and
// drops the queue with a count.
func TestIndexNowCloseDrops(t *testing.T) {
	posted := make(chan struct{}, 1)
	ep := newEndpoint(t, nil, func(i int, w http.ResponseWriter, r *http.Request) {
		posted <- struct{}{}
		<-r.Context().Done()
	})
	n, logs := startSender(t, IndexNow{Key: testKey, Endpoints: []string{ep.url()}, Delay: -1}, nil, nil, true)
	n.Push(urls(0, 5)...)
	<-posted
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	sent, dropped := n.Close(ctx)
	if sent != 0 || dropped != 5 || time.Since(start) > 5*time.Second {
		t.Errorf("close: sent %d, dropped %d in %v; want 0, 5, bounded by ctx", sent, dropped, time.Since(start))
	}
	if !strings.Contains(logs.String(), "closed with URLs unsent") || !strings.Contains(logs.String(), "dropped=5") {
		t.Errorf("log:\n%s", logs.String())
	}
}

// With several endpoints, each gets every URL and is retried on its own.
func TestIndexNowEveryEndpoint(t *testing.T) {
	busy := newEndpoint(t, nil, func(i int, w http.ResponseWriter, r *http.Request) {
		if i == 0 {
			w.WriteHeader(http.StatusTooManyRequests)
		}
	})
	fine := newEndpoint(t, nil, func(i int, w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusAccepted) })
	n, _ := startSender(t, IndexNow{Key: testKey, Endpoints: []string{busy.url(), fine.url()}, Delay: -1}, nil, nil, true)
	n.Push(urls(0, 4)...)
	waitFor(t, func() bool { return n.Sent.Load() == 8 })
	if b, f := busy.got(), fine.got(); len(b) != 2 || len(f) != 1 || !slices.Equal(b[1], urls(0, 4)) || !slices.Equal(f[0], urls(0, 4)) {
		t.Errorf("busy got %q, fine got %q", b, f)
	}
}
