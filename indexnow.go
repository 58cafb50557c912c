package sitemap

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// IndexNow configures IndexNow notifications (https://www.indexnow.org):
// the URLs the application says changed ([Sitemap.Notify]) are posted, in
// batches and in the background, to the IndexNow endpoints, which pass them
// on to the search engines that take part. The key file that proves the
// site's ownership is served by the Sitemap at the base URL's path.
type IndexNow struct {
	// Key is the site's IndexNow key: 8 to 128 characters of a-z, A-Z,
	// 0-9 and '-', not starting with "sitemap-" (a sitemap file name).
	// Required. The Sitemap serves it as BASE/KEY.txt (BASE the base
	// URL, with its path), the keyLocation of every request.
	Key string
	// Endpoints are the URLs every batch is posted to, each absolute http
	// or https. Nil means the shared "https://api.indexnow.org/indexnow",
	// which passes the URLs on to every participating search engine; with
	// several, each gets every batch, and is retried on its own.
	Endpoints []string
	// Client sends the requests. Nil means a client with a 30-second
	// timeout that does not follow redirects (a redirected POST would
	// lose its body).
	Client *http.Client
	// Delay is how long URLs are gathered before a batch is sent: the
	// first URL to arrive with none queued starts it, and 10,000 queued
	// URLs end it early. Zero means 10 seconds; negative means none (a
	// batch leaves as soon as the sender is free).
	Delay time.Duration
	// QueueSize bounds the URLs waiting for each endpoint, including the
	// batch being sent or retried. Zero means 100,000. A URL pushed
	// while the queue is full is dropped, counted in
	// Stats.IndexNowDropped and logged (once per overflow): pushing never
	// blocks.
	QueueSize int
	// MaxBackoff bounds the wait before a batch is retried after a 429, a
	// 5xx or a network error, and a Retry-After honoured. Zero means 10
	// minutes. The first wait is about 10 seconds, doubling each time.
	MaxBackoff time.Duration
}

const (
	defaultIndexNowEndpoint   = "https://api.indexnow.org/indexnow"
	defaultIndexNowDelay      = 10 * time.Second
	defaultIndexNowQueue      = 100_000
	defaultIndexNowMaxBackoff = 10 * time.Minute
	indexNowClientTimeout     = 30 * time.Second
	indexNowFirstBackoff      = 10 * time.Second
	indexNowBatch             = 10_000 // URLs a POST may carry
	indexNowCloseTimeout      = 10 * time.Second
	minIndexNowKey            = 8
	maxIndexNowKey            = 128
)

// indexNow sends the URLs pushed to it to the IndexNow endpoints: one lane
// per endpoint, each with its bounded, deduplicated queue and a goroutine
// that gathers, posts and retries (indexnow_send.go).
type indexNow struct {
	base, host, key, keyLocation string
	client                       *http.Client
	ownTransport                 *http.Transport // the default client's; nil with Config's
	delay, maxBackoff            time.Duration
	queueSize                    int
	log                          *slog.Logger
	now                          func() time.Time
	// sleep waits d, or returns false when ctx ends first: the wait
	// before a retry. Tests replace it before start.
	sleep func(ctx context.Context, d time.Duration) bool

	lanes     []*lane
	closing   chan struct{} // closed by close: flush without delay, end when empty
	ctx       context.Context
	cancel    context.CancelFunc // aborts requests and waits
	wg        sync.WaitGroup
	closeOnce sync.Once

	sent, dropped, failed, retried, refused atomic.Int64
}

// newIndexNow checks cfg and starts the sender, whose goroutines close
// stops. base is the canonical base URL.
func newIndexNow(cfg *IndexNow, base string, log *slog.Logger, now func() time.Time) (*indexNow, error) {
	n, err := prepareIndexNow(cfg, base, log, now)
	if err != nil {
		return nil, err
	}
	n.start()
	return n, nil
}

// prepareIndexNow checks cfg and returns a sender that is not started.
func prepareIndexNow(cfg *IndexNow, base string, log *slog.Logger, now func() time.Time) (*indexNow, error) {
	if err := checkIndexNowKey(cfg.Key); err != nil {
		return nil, err
	}
	switch {
	case cfg.QueueSize < 0:
		return nil, fmt.Errorf("sitemap: IndexNow.QueueSize %d is negative", cfg.QueueSize)
	case cfg.MaxBackoff < 0:
		return nil, fmt.Errorf("sitemap: IndexNow.MaxBackoff %v is negative", cfg.MaxBackoff)
	}
	endpoints := cfg.Endpoints
	if len(endpoints) == 0 {
		endpoints = []string{defaultIndexNowEndpoint}
	}
	seen := make(map[string]bool)
	for _, e := range endpoints {
		u, err := url.Parse(e)
		if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.Fragment != "" {
			return nil, fmt.Errorf("sitemap: IndexNow endpoint %q is not an absolute http or https URL", e)
		}
		if seen[e] {
			return nil, fmt.Errorf("sitemap: IndexNow endpoint %q is listed twice", e)
		}
		seen[e] = true
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if now == nil {
		now = time.Now
	}
	rest := base[strings.Index(base, "://")+len("://"):]
	n := &indexNow{
		base:        base,
		host:        rest[:strings.IndexByte(rest, '/')],
		key:         cfg.Key,
		keyLocation: base + cfg.Key + ".txt",
		client:      cfg.Client,
		delay:       orDefault(cfg.Delay, defaultIndexNowDelay),
		maxBackoff:  orDefault(cfg.MaxBackoff, defaultIndexNowMaxBackoff),
		queueSize:   orDefault(cfg.QueueSize, defaultIndexNowQueue),
		log:         log,
		now:         now,
		sleep:       sleep,
		closing:     make(chan struct{}),
	}
	if n.client == nil {
		// A transport of its own, whose idle connections close can end
		// without touching the application's.
		n.ownTransport = http.DefaultTransport.(*http.Transport).Clone()
		n.client = &http.Client{
			Transport:     n.ownTransport,
			Timeout:       indexNowClientTimeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
	for _, e := range endpoints {
		n.lanes = append(n.lanes, &lane{endpoint: e, queued: make(map[string]struct{}), wake: make(chan struct{}, 1)})
	}
	n.ctx, n.cancel = context.WithCancel(context.Background())
	return n, nil
}

// checkIndexNowKey applies the protocol's key rules, and keeps the key
// file's name apart from the sitemap files'.
func checkIndexNowKey(key string) error {
	if len(key) < minIndexNowKey || len(key) > maxIndexNowKey {
		return fmt.Errorf("sitemap: IndexNow key has %d characters, not %d to %d", len(key), minIndexNowKey, maxIndexNowKey)
	}
	for i := 0; i < len(key); i++ {
		if c := key[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return fmt.Errorf("sitemap: IndexNow key has %q at %d: use a-z, A-Z, 0-9 and '-'", c, i)
		}
	}
	if strings.HasPrefix(key, "sitemap-") {
		return errors.New(`sitemap: IndexNow key starts with "sitemap-", the name of the sitemap files`)
	}
	return nil
}

func (n *indexNow) start() {
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

// push queues urls for every endpoint, each once: a URL already queued for
// an endpoint is not added again. A URL that is not under the base URL (or
// not a URL) is refused: counted and logged. push never blocks on the
// network; what does not fit a queue is dropped and counted.
func (n *indexNow) push(urls ...string) {
	locs := make([]string, 0, len(urls))
	var buf []byte
	for _, u := range urls {
		b, err := appendURI(buf[:0], u, n.base, false)
		if err != nil {
			n.refused.Add(1)
			n.log.Warn("sitemap: indexnow: URL refused", "url", u, "err", err)
			continue
		}
		buf = b
		locs = append(locs, string(b))
	}
	if len(locs) == 0 {
		return
	}
	for _, l := range n.lanes {
		dropped, first, closed := l.add(locs, n.queueSize)
		n.dropped.Add(int64(dropped))
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

// close stops the sender: it sends what is queued, without waiting for
// the batch delay, until ctx ends, then aborts what is in flight and drops
// the rest (counted in Stats.IndexNowDropped and logged). It returns the
// URLs accepted and dropped meanwhile, summed over the endpoints. URLs
// pushed afterwards are dropped. Calls after the first return 0, 0.
func (n *indexNow) close(ctx context.Context) (sent, dropped int) {
	first := false
	n.closeOnce.Do(func() { first = true })
	if !first {
		return 0, 0
	}
	before := n.sent.Load()
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
	n.dropped.Add(int64(dropped))
	sent = int(n.sent.Load() - before)
	if dropped > 0 {
		n.log.Warn("sitemap: indexnow: closed with URLs unsent", "dropped", dropped, "sent", sent, "err", context.Cause(ctx))
	}
	return sent, dropped
}

// Notify says that the pages at urls changed, were added or were removed,
// for what the Sitemap cannot see by itself (a page whose sitemap entry
// did not change). The URLs join the change stream: Config.OnChange is
// told them (as Changed, with Page 0), and the IndexNow endpoints
// (Config.IndexNow) get them. It returns at once: for IndexNow the URLs
// are queued, each once, and sent in the background in batches
// (IndexNow.Delay); a URL that is not under the base URL is refused
// (logged, Stats.IndexNowRefused), one that does not fit the queue is
// dropped (Stats.IndexNowDropped). It is safe for concurrent use, and does
// nothing on a nil Sitemap.
func (s *Sitemap) Notify(urls ...string) {
	if s == nil || len(urls) == 0 {
		return
	}
	s.emit(Change{Changed: urls})
}
