package crawllog

import (
	"context"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Verification by reverse DNS (Options.Resolver), for the families whose
// vendors document it: the address's name (PTR) must end in one of the
// vendor's domains, and that name must resolve back to the address
// (forward-confirmed). The lookups are made off the serving path, by one
// goroutine, started on the first lookup asked and stopped by Close: a
// request whose address has no answer yet asks for one and is counted as
// not verified; the answers are remembered by address, so each address
// costs one lookup (a failed lookup is tried again after dnsRetry). The
// work a stranger can cause is bounded: one lookup at a time, a queue of
// dnsQueue addresses (an address that finds it full is not queued and is
// asked for again by its next request), at most dnsAnswers answers kept
// (past that they are forgotten all at once).

// Resolver is what verification by reverse DNS asks of DNS;
// *net.Resolver (net.DefaultResolver) is one.
type Resolver interface {
	LookupAddr(ctx context.Context, addr string) (names []string, err error)
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// dnsDomains are the domains each vendor documents for reverse DNS
// verification of its crawlers. Google's user-triggered fetchers resolve
// under googleusercontent.com, where anyone's cloud machine does too, so
// Google-Agent is verified by its ranges alone.
var dnsDomains = map[crawler][]string{
	crawlerGoogle:    {"googlebot.com", "google.com"},
	crawlerBing:      {"search.msn.com"},
	crawlerYandex:    {"yandex.ru", "yandex.net", "yandex.com"},
	crawlerApple:     {"applebot.apple.com"},
	crawlerBaidu:     {"baidu.com", "baidu.jp"},
	crawlerAmazonbot: {"crawl.amazonbot.amazon"},
}

const (
	dnsQueue   = 64
	dnsAnswers = 4096
	dnsTimeout = 5 * time.Second
	dnsRetry   = time.Minute
	dnsNames   = 4 // the names of an address that are looked up forward, at most
)

// dnsVerifier owns the reverse DNS lookups and their answers.
type dnsVerifier struct {
	r       Resolver
	now     func() time.Time
	timeout time.Duration // of one lookup: dnsTimeout
	changed func()        // called when an address is found verified: the columns remembered by connection are stale

	mu      sync.Mutex
	answers map[netip.Addr]dnsAnswer

	queue  chan netip.Addr
	start  sync.Once
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
	closed atomic.Bool
}

// dnsAnswer is what is known of an address: asked (queued or being looked
// up), or answered with the families whose domains it is confirmed in;
// a failed lookup's answer (err) expires at retry.
type dnsAnswer struct {
	answered bool
	fams     familySet
	retry    time.Time // zero for an answer that stays
}

func newDNSVerifier(r Resolver, changed func()) *dnsVerifier {
	ctx, cancel := context.WithCancel(context.Background())
	return &dnsVerifier{r: r, now: time.Now, timeout: dnsTimeout, changed: changed, answers: map[netip.Addr]dnsAnswer{},
		queue: make(chan netip.Addr, dnsQueue), ctx: ctx, cancel: cancel, done: make(chan struct{})}
}

// verifies reports whether reverse DNS can verify family f.
func (d *dnsVerifier) verifies(f crawler) bool { return d != nil && dnsDomains[f] != nil }

// verified reports whether a, claiming family f, is confirmed in f's
// domains; without an answer yet, it asks for one and reports false.
func (d *dnsVerifier) verified(f crawler, a netip.Addr) bool {
	if !a.IsValid() || d.closed.Load() {
		return false
	}
	a = a.Unmap()
	d.mu.Lock()
	ans, ok := d.answers[a]
	if ok && (!ans.answered || ans.retry.IsZero() || d.now().Before(ans.retry)) {
		d.mu.Unlock()
		return ans.fams&(1<<f) != 0
	}
	if len(d.answers) >= dnsAnswers {
		clear(d.answers)
	}
	queued := false
	select {
	case d.queue <- a:
		d.answers[a] = dnsAnswer{} // asked: not asked again until answered
		queued = true
	default: // full: the next request asks again
	}
	d.mu.Unlock()
	if queued {
		d.start.Do(func() { go d.run() })
	}
	return false
}

// run looks up the queued addresses, one at a time, until close.
func (d *dnsVerifier) run() {
	defer close(d.done)
	for {
		select {
		case <-d.ctx.Done():
			return
		case a := <-d.queue:
			ans := d.lookup(a)
			d.mu.Lock()
			d.answers[a] = ans
			if ans.fams != 0 {
				d.changed() // before the answer can be read: none sees it with the old columns still remembered
			}
			d.mu.Unlock()
		}
	}
}

// lookup confirms a's names: the families whose domains a name of a ends
// in, that name resolving back to a.
func (d *dnsVerifier) lookup(a netip.Addr) dnsAnswer {
	ctx, cancel := context.WithTimeout(d.ctx, d.timeout)
	defer cancel()
	names, err := d.r.LookupAddr(ctx, a.String())
	if err != nil && len(names) == 0 {
		return dnsAnswer{answered: true, retry: d.now().Add(dnsRetry)}
	}
	ans := dnsAnswer{answered: true}
	for _, name := range names[:min(len(names), dnsNames)] {
		name = strings.ToLower(strings.TrimSuffix(name, "."))
		fams := domainFamilies(name)
		if fams == 0 {
			continue
		}
		addrs, err := d.r.LookupNetIP(ctx, "ip", name)
		if err != nil {
			ans.retry = d.now().Add(dnsRetry)
			continue
		}
		if slices.ContainsFunc(addrs, func(b netip.Addr) bool { return b.Unmap() == a }) {
			ans.fams |= fams
		}
	}
	if ans.fams != 0 {
		ans.retry = time.Time{}
	}
	return ans
}

// domainFamilies returns the families in one of whose domains the host
// name is (the domain itself or a name under it).
func domainFamilies(name string) familySet {
	var fams familySet
	for f, domains := range dnsDomains {
		for _, dom := range domains {
			if name == dom || strings.HasSuffix(name, "."+dom) {
				fams |= 1 << f
			}
		}
	}
	return fams
}

// close stops the lookups and waits for the goroutine, if it started.
func (d *dnsVerifier) close() {
	if d == nil {
		return
	}
	d.closed.Store(true)
	d.cancel()
	started := true
	d.start.Do(func() { started = false })
	if started {
		<-d.done
	}
}
