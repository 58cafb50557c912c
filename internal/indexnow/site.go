package indexnow

import (
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/freshmap/sitemap/internal/xmlenc"
)

// The site's side of IndexNow: what a key and the endpoints must be, the
// key file that proves the site's ownership, and the URLs checked against
// the site's base URL before the Sender queues them.

// DefaultEndpoint is the shared endpoint, which passes the URLs on to
// every participating search engine.
const DefaultEndpoint = "https://api.indexnow.org/indexnow"

const (
	minKey = 8
	maxKey = 128
)

// Check checks a site's IndexNow settings: the key by the protocol's
// rules, and kept apart from the sitemap files' names; the endpoints,
// each absolute http or https and listed once; the queue's size and the
// backoff's bound, not negative. Its errors name the fields of the
// sitemap's IndexNow config, and do not say "sitemap:".
func Check(key string, endpoints []string, queueSize int, maxBackoff time.Duration) error {
	if err := checkKey(key); err != nil {
		return err
	}
	switch {
	case queueSize < 0:
		return fmt.Errorf("IndexNow.QueueSize %d is negative", queueSize)
	case maxBackoff < 0:
		return fmt.Errorf("IndexNow.MaxBackoff %v is negative", maxBackoff)
	}
	seen := make(map[string]bool)
	for _, e := range endpoints {
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

// checkKey applies the protocol's key rules, and keeps the key file's
// name apart from the sitemap files'.
func checkKey(key string) error {
	if len(key) < minKey || len(key) > maxKey {
		return fmt.Errorf("IndexNow key has %d characters, not %d to %d", len(key), minKey, maxKey)
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

// KeyFile is the key file, BASE/KEY.txt, whose content is the key: the
// proof, for the search engines, that the URLs sent come from the site.
type KeyFile struct {
	Path string   // the base path, the key and ".txt"
	Body string   // the key
	ETag []string // strong, from the key
}

// NewKeyFile returns the key file of key (checked) under the base path
// basePath (ending in '/').
func NewKeyFile(basePath, key string) *KeyFile {
	h := fnv.New64a()
	h.Write([]byte(key))
	return &KeyFile{Path: basePath + key + ".txt", Body: key, ETag: []string{`"` + strconv.FormatUint(h.Sum64(), 36) + `"`}}
}

// Site is a Sender for the URLs of one site: it checks each URL pushed
// against the site's base URL, puts it in canonical form, and queues it.
type Site struct {
	*Sender
	base string
	log  *slog.Logger
	// Refused counts the URLs pushed that are not under the base URL (or
	// not URLs).
	Refused atomic.Int64
}

// NewSite returns the Site of the canonical base URL base, whose Sender
// (not started) o configures.
func NewSite(base string, o Options) *Site {
	s := &Site{Sender: New(o), base: base, log: o.Log}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s
}

// Push checks urls and queues them for every endpoint, each once. A URL
// that is not under the base URL (or not a URL) is refused: counted and
// logged. Push never blocks on the network; what does not fit a queue is
// dropped and counted.
func (s *Site) Push(urls ...string) {
	locs := make([]string, 0, len(urls))
	var buf []byte
	for _, u := range urls {
		b, err := xmlenc.AppendURI(buf[:0], u, s.base, false)
		if err != nil {
			s.Refused.Add(1)
			s.log.Warn("sitemap: indexnow: URL refused", "url", u, "err", err)
			continue
		}
		buf = b
		locs = append(locs, string(b))
	}
	s.Sender.Push(locs...)
}
