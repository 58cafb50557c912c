package sitemap

import (
	"cmp"
	"log/slog"
	"net/http"
	"time"

	"github.com/freshmap/sitemap/internal/indexnow"
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
	defaultIndexNowDelay      = 10 * time.Second
	defaultIndexNowQueue      = 100_000
	defaultIndexNowMaxBackoff = 10 * time.Minute
	indexNowCloseTimeout      = 10 * time.Second
)

// newIndexNow checks cfg and starts the sender (internal/indexnow), whose
// goroutines its Close stops. base is the canonical base URL.
func newIndexNow(cfg *IndexNow, base string, log *slog.Logger, now func() time.Time) (*indexnow.Site, error) {
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
	return indexnow.Check(cfg.Key, indexNowEndpoints(cfg), cfg.QueueSize, cfg.MaxBackoff)
}

func indexNowEndpoints(cfg *IndexNow) []string {
	if len(cfg.Endpoints) == 0 {
		return []string{indexnow.DefaultEndpoint}
	}
	return cfg.Endpoints
}

// prepareIndexNow checks cfg and returns a sender that is not started.
func prepareIndexNow(cfg *IndexNow, base string, log *slog.Logger, now func() time.Time) (*indexnow.Site, error) {
	if err := checkIndexNow(cfg); err != nil {
		return nil, err
	}
	return indexnow.NewSite(base, indexnow.Options{
		Host:        splitBase(base).host,
		Key:         cfg.Key,
		KeyLocation: base + cfg.Key + ".txt",
		Endpoints:   indexNowEndpoints(cfg),
		Client:      cfg.Client,
		Delay:       cmp.Or(cfg.Delay, defaultIndexNowDelay),
		MaxBackoff:  cmp.Or(cfg.MaxBackoff, defaultIndexNowMaxBackoff),
		QueueSize:   cmp.Or(cfg.QueueSize, defaultIndexNowQueue),
		Log:         log,
		Now:         now,
	}), nil
}
