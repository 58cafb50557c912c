// Package indexnow sends URLs to IndexNow endpoints
// (https://www.indexnow.org) in the background: one lane per endpoint,
// each with a bounded, deduplicated queue and a goroutine that gathers a
// batch, posts it and retries what failed. A Sender takes URLs already
// checked and in canonical form; a Site (site.go) checks them against
// the site's base URL first, and the key and its file are there too.
package indexnow

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Options configure a Sender. Every field is required but Client, Log,
// Now and Sleep.
type Options struct {
	Host, Key, KeyLocation string // the request's fields
	Endpoints              []string
	// Client sends the requests. Nil means a client with a 30-second
	// timeout that does not follow redirects (a redirected POST would
	// lose its body), on a transport of its own.
	Client     *http.Client
	Delay      time.Duration // how long URLs are gathered before a batch; 0 or less for none
	QueueSize  int           // the most URLs queued per endpoint
	MaxBackoff time.Duration // the longest wait before a retry
	Log        *slog.Logger
	Now        func() time.Time
	// Sleep waits d before a retry, or returns false when ctx ends first.
	// Nil means a timer.
	Sleep func(ctx context.Context, d time.Duration) bool
}

const (
	clientTimeout = 30 * time.Second
	firstBackoff  = 10 * time.Second
	// Batch is the most URLs a POST carries.
	Batch = 10_000
)

// Sender sends the URLs pushed to it to the endpoints. Its counters are
// summed over the endpoints: a URL counts once per endpoint.
type Sender struct {
	host, key, keyLocation string
	client                 *http.Client
	ownTransport           *http.Transport // the default client's; nil with Options'
	delay, maxBackoff      time.Duration
	queueSize              int
	log                    *slog.Logger
	now                    func() time.Time
	sleep                  func(ctx context.Context, d time.Duration) bool

	lanes     []*lane
	closing   chan struct{} // closed by Close: flush without delay, end when empty
	ctx       context.Context
	cancel    context.CancelFunc // aborts requests and waits
	wg        sync.WaitGroup
	closeOnce sync.Once

	// Sent counts URLs accepted (a 2xx); Dropped, URLs dropped (a full
	// queue, or Close); Failed, batches refused; Retried, posts retried.
	Sent, Dropped, Failed, Retried atomic.Int64
}

// New returns a Sender that is not started.
func New(o Options) *Sender {
	n := &Sender{
		host: o.Host, key: o.Key, keyLocation: o.KeyLocation,
		client: o.Client, delay: o.Delay, maxBackoff: o.MaxBackoff, queueSize: o.QueueSize,
		log: o.Log, now: o.Now, sleep: o.Sleep,
		closing: make(chan struct{}),
	}
	if n.log == nil {
		n.log = slog.New(slog.DiscardHandler)
	}
	if n.now == nil {
		n.now = time.Now
	}
	if n.sleep == nil {
		n.sleep = sleep
	}
	if n.client == nil {
		// A transport of its own, whose idle connections Close can end
		// without touching the application's.
		n.ownTransport = http.DefaultTransport.(*http.Transport).Clone()
		n.client = &http.Client{
			Transport:     n.ownTransport,
			Timeout:       clientTimeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
	for _, e := range o.Endpoints {
		n.lanes = append(n.lanes, &lane{endpoint: e, queued: make(map[string]struct{}), wake: make(chan struct{}, 1)})
	}
	n.ctx, n.cancel = context.WithCancel(context.Background())
	return n
}

// Endpoints returns the endpoints, in order.
func (n *Sender) Endpoints() []string {
	var es []string
	for _, l := range n.lanes {
		es = append(es, l.endpoint)
	}
	return es
}

// Start starts one goroutine per endpoint; Close stops them.
func (n *Sender) Start() {
	for _, l := range n.lanes {
		n.wg.Add(1)
		go n.run(l)
	}
}

// lane is the queue of one endpoint: URLs in the order pushed, each once.
// The batch being sent stays at its head until it is accepted or refused.
type lane struct {
	endpoint string
	wake     chan struct{} // a push happened

	mu       sync.Mutex
	queue    []string
	queued   map[string]struct{}
	overflow int  // URLs dropped since the queue became full; 0 when it has room
	closed   bool // close has counted what was left: drop what comes
}

// Push queues locs for every endpoint, each once: a URL already queued
// for an endpoint is not added again. It never blocks on the network:
// what does not fit a queue is dropped and counted.
func (n *Sender) Push(locs ...string) {
	if len(locs) == 0 {
		return
	}
	for _, l := range n.lanes {
		dropped, first, closed := l.add(locs, n.queueSize)
		n.Dropped.Add(int64(dropped))
		if first {
			n.log.Warn("sitemap: indexnow: queue full, dropping URLs until it has room",
				"endpoint", l.endpoint, "queue", n.queueSize)
		}
		if !closed {
			select {
			case l.wake <- struct{}{}:
			default:
			}
		}
	}
}

// add queues the locations not yet queued, up to size. It reports the
// number dropped, whether this began an overflow, and whether the lane is
// closed (everything dropped).
func (l *lane) add(locs []string, size int) (dropped int, first, closed bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return len(locs), false, true
	}
	for _, u := range locs {
		if _, dup := l.queued[u]; dup {
			continue
		}
		if len(l.queue) >= size {
			dropped++
			continue
		}
		l.queue = append(l.queue, u)
		l.queued[u] = struct{}{}
	}
	first = dropped > 0 && l.overflow == 0
	l.overflow += dropped
	return dropped, first, false
}

func (l *lane) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.queue)
}

// peek returns a copy of the first max URLs queued.
func (l *lane) peek(max int) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.queue[:min(max, len(l.queue))]...)
}

// remove takes the first k URLs off the queue, and returns how many were
// dropped in the overflow this ends, if it ends one.
func (l *lane) remove(k int) (overflow int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, u := range l.queue[:k] {
		delete(l.queued, u)
	}
	l.queue = append(l.queue[:0], l.queue[k:]...)
	overflow, l.overflow = l.overflow, 0
	return overflow
}

// Close stops the sender: it sends what is queued, without waiting for
// the batch delay, until ctx ends, then aborts what is in flight and drops
// the rest (counted in Dropped and logged). It returns the
// URLs accepted and dropped meanwhile, summed over the endpoints. URLs
// pushed afterwards are dropped. Calls after the first return 0, 0.
func (n *Sender) Close(ctx context.Context) (sent, dropped int) {
	first := false
	n.closeOnce.Do(func() { first = true })
	if !first {
		return 0, 0
	}
	before := n.Sent.Load()
	close(n.closing)
	done := make(chan struct{})
	go func() { n.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		n.cancel()
		<-done
	}
	n.cancel()
	if n.ownTransport != nil {
		n.ownTransport.CloseIdleConnections()
	}
	for _, l := range n.lanes {
		l.mu.Lock()
		dropped += len(l.queue)
		l.queue, l.queued, l.closed = nil, nil, true
		l.mu.Unlock()
	}
	n.Dropped.Add(int64(dropped))
	sent = int(n.Sent.Load() - before)
	if dropped > 0 {
		n.log.Warn("sitemap: indexnow: closed with URLs unsent", "dropped", dropped, "sent", sent, "err", context.Cause(ctx))
	}
	return sent, dropped
}

// SetSleep replaces the wait before a retry; call it before Start.
func (n *Sender) SetSleep(f func(ctx context.Context, d time.Duration) bool) { n.sleep = f }
