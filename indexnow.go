package sitemap

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/freshmap/sitemap/internal/indexnow"
	"github.com/freshmap/sitemap/internal/xmlenc"
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
	indexNowCloseTimeout      = 10 * time.Second
	minIndexNowKey            = 8
	maxIndexNowKey            = 128
)

// indexNow is the IndexNow sender of a Sitemap: it checks the URLs pushed
// to it against the base URL, puts them in canonical form, and hands them
// to the sender (internal/indexnow), which queues, posts and retries them
// in the background.
type indexNow struct {
	*indexnow.Sender
	base    string
	log     *slog.Logger
	refused atomic.Int64 // URLs not under the base URL
}

// newIndexNow checks cfg and starts the sender, whose goroutines close
// stops. base is the canonical base URL.
func newIndexNow(cfg *IndexNow, base string, log *slog.Logger, now func() time.Time) (*indexNow, error) {
	n, err := prepareIndexNow(cfg, base, log, now)
	if err != nil {
		return nil, err
	}
	n.Start()
	return n, nil
}

// checkIndexNow checks cfg. Its errors do not say "sitemap:": New wraps
// them in ErrConfig, which does.
func checkIndexNow(cfg *IndexNow) error {
	if err := checkIndexNowKey(cfg.Key); err != nil {
		return err
	}
	switch {
	case cfg.QueueSize < 0:
		return fmt.Errorf("IndexNow.QueueSize %d is negative", cfg.QueueSize)
	case cfg.MaxBackoff < 0:
		return fmt.Errorf("IndexNow.MaxBackoff %v is negative", cfg.MaxBackoff)
	}
	seen := make(map[string]bool)
	for _, e := range indexNowEndpoints(cfg) {
		u, err := url.Parse(e)
		if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.Fragment != "" {
			return fmt.Errorf("IndexNow endpoint %q is not an absolute http or https URL", e)
		}
		if seen[e] {
			return fmt.Errorf("IndexNow endpoint %q is listed twice", e)
		}
		seen[e] = true
	}
	return nil
}

func indexNowEndpoints(cfg *IndexNow) []string {
	if len(cfg.Endpoints) == 0 {
		return []string{defaultIndexNowEndpoint}
	}
	return cfg.Endpoints
}

// prepareIndexNow checks cfg and returns a sender that is not started.
func prepareIndexNow(cfg *IndexNow, base string, log *slog.Logger, now func() time.Time) (*indexNow, error) {
	if err := checkIndexNow(cfg); err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	b := splitBase(base)
	return &indexNow{base: base, log: log, Sender: indexnow.New(indexnow.Options{
		Host:        b.host,
		Key:         cfg.Key,
		KeyLocation: base + cfg.Key + ".txt",
		Endpoints:   indexNowEndpoints(cfg),
		Client:      cfg.Client,
		Delay:       cmp.Or(cfg.Delay, defaultIndexNowDelay),
		MaxBackoff:  cmp.Or(cfg.MaxBackoff, defaultIndexNowMaxBackoff),
		QueueSize:   cmp.Or(cfg.QueueSize, defaultIndexNowQueue),
		Log:         log,
		Now:         now,
	})}, nil
}

// checkIndexNowKey applies the protocol's key rules, and keeps the key
// file's name apart from the sitemap files'.
func checkIndexNowKey(key string) error {
	if len(key) < minIndexNowKey || len(key) > maxIndexNowKey {
		return fmt.Errorf("IndexNow key has %d characters, not %d to %d", len(key), minIndexNowKey, maxIndexNowKey)
	}
	for i := 0; i < len(key); i++ {
		if c := key[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return fmt.Errorf("IndexNow key has %q at %d: use a-z, A-Z, 0-9 and '-'", c, i)
		}
	}
	if strings.HasPrefix(key, "sitemap-") {
		return errors.New(`IndexNow key starts with "sitemap-", the name of the sitemap files`)
	}
	return nil
}

// push checks urls and queues them for every endpoint, each once. A URL
// that is not under the base URL (or not a URL) is refused: counted and
// logged. push never blocks on the network; what does not fit a queue is
// dropped and counted.
func (n *indexNow) push(urls ...string) {
	locs := make([]string, 0, len(urls))
	var buf []byte
	for _, u := range urls {
		b, err := xmlenc.AppendURI(buf[:0], u, n.base, false)
		if err != nil {
			n.refused.Add(1)
			n.log.Warn("sitemap: indexnow: URL refused", "url", u, "err", err)
			continue
		}
		buf = b
		locs = append(locs, string(b))
	}
	n.Push(locs...)
}
