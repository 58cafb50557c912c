package crawllog

import (
	"context"
	"errors"
	"net/netip"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

var _ Resolver = (*fakeResolver)(nil)

// fakeResolver answers from its tables: names by address, addresses by
// name; it counts the reverse lookups, and holds each until gate is
// closed, if set.
type fakeResolver struct {
	ptr     map[string][]string
	forward map[string][]netip.Addr
	gate    chan struct{}
	reverse atomic.Int64
}

func (f *fakeResolver) LookupAddr(ctx context.Context, addr string) ([]string, error) {
	f.reverse.Add(1)
	if f.gate != nil {
		select {
		case <-f.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if names, ok := f.ptr[addr]; ok {
		return names, nil
	}
	return nil, errors.New("no such host")
}

func (f *fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := f.forward[host]; ok {
		return a, nil
	}
	return nil, errors.New("no such host")
}

func dnsTestResolver() *fakeResolver {
	a := netip.MustParseAddr
	return &fakeResolver{
		ptr: map[string][]string{
			"192.0.2.50":     {"crawl-192-0-2-50.googlebot.com."},
			"192.0.2.51":     {"crawl.googlebot.com.attacker.example."}, // the domain is not at the end
			"192.0.2.52":     {"crawl-52.googlebot.com."},               // does not resolve back
			"192.0.2.53":     {"fakegooglebot.com."},
			"192.0.2.60":     {"x-60.crawl.amazonbot.amazon."},
			"2001:db8:5::1":  {"msnbot-5.search.msn.com."},
			"198.51.100.200": {"crawl-200.googlebot.com."}, // a Googlebot name, claimed as Bingbot
		},
		forward: map[string][]netip.Addr{
			"crawl-192-0-2-50.googlebot.com":       {a("192.0.2.50")},
			"crawl.googlebot.com.attacker.example": {a("192.0.2.51")},
			"crawl-52.googlebot.com":               {a("203.0.113.52")},
			"fakegooglebot.com":                    {a("192.0.2.53")},
			"x-60.crawl.amazonbot.amazon":          {a("192.0.2.60")},
			"msnbot-5.search.msn.com":              {a("2001:db8:5::1")},
			"crawl-200.googlebot.com":              {a("198.51.100.200")},
		},
	}
}

// TestCrawlDNS: with a Resolver, a claim from an address outside the
// family's ranges is verified when its name is in the vendor's domains
// and resolves back to it, once the background lookup has answered;
// every other name (a domain not at the end, not resolving back, a
// look-alike, another vendor's) leaves it spoofed. Each address is
// looked up once, and the requests of a keep-alive connection counted as
// not verified before the answer are counted verified after it.
func TestCrawlDNS(t *testing.T) {
	res := dnsTestResolver()
	l := newLog(t, Options{Resolver: res})
	file := File{N: 1}
	amazonUA := testkit.AIClients[5].UA
	for _, c := range []struct {
		ua, addr string
		verified bool
	}{
		{googlebotUA, "192.0.2.50:443", true},
		{googlebotUA, "192.0.2.51:443", false},
		{googlebotUA, "192.0.2.52:443", false},
		{googlebotUA, "192.0.2.53:443", false},
		{googlebotUA, "192.0.2.99:443", false}, // no name
		{amazonUA, "192.0.2.60:443", true},
		{bingbotUA, "[2001:db8:5::1]:443", true},
		{bingbotUA, "198.51.100.200:443", false},
	} {
		addr := c.addr // one string: one keep-alive connection
		fetched(l, file, c.ua, addr, 1)
		waitFor(t, func() bool { // answered
			a := addrOf(addr).Unmap()
			l.ids.dns.mu.Lock()
			defer l.ids.dns.mu.Unlock()
			return l.ids.dns.answers[a].answered
		})
		for range 3 {
			fetched(l, file, c.ua, addr, 1)
		}
		s := l.Who(requestFrom(c.ua, addr), c.ua, 1)
		if s.verified() != c.verified {
			t.Errorf("%.30q from %s: verified %v, want %v", c.ua, addr, s.verified(), c.verified)
		}
	}
	if n := res.reverse.Load(); n != 8 {
		t.Errorf("%d reverse lookups, want one an address (8)", n)
	}
	n := map[string]int64{}
	for _, f := range l.Fetches(file) {
		n[f.Crawler+"/"+strconv.FormatBool(f.Verified)+"/"+strconv.FormatBool(f.Spoofed)] = f.Fetches
	}
	want := map[string]int64{
		"Googlebot/true/false": 3, "Googlebot/false/true": 4*4 + 1, // the first fetch of 192.0.2.50, before the answer
		"Amazonbot/true/false": 3, "Amazonbot/false/true": 1,
		"Bingbot/true/false": 3, "Bingbot/false/true": 4 + 1,
	}
	for k, w := range want {
		if n[k] != w {
			t.Errorf("%s: %d fetches, want %d (all: %v)", k, n[k], w, n)
		}
	}
	// Without a Resolver, nothing verifies these, and no family but
	// those with ranges is spoofed.
	plain := newLog(t, Options{})
	fetched(plain, file, googlebotUA, "192.0.2.50:443", 1)
	if f := plain.Fetches(file)[0]; f.Verified || f.Spoofed {
		t.Errorf("without a Resolver: %+v, want unverifiable", f)
	}
}

// TestCrawlDNSBounded: 100,000 claims from addresses that never repeat,
// while the resolver hangs, make at most one lookup at a time and queue
// at most dnsQueue; the answers kept stay under dnsAnswers; one goroutine
// runs the lookups, and Close ends it.
func TestCrawlDNSBounded(t *testing.T) {
	before := runtime.NumGoroutine()
	res := dnsTestResolver()
	res.gate = make(chan struct{})
	l, err := New(Options{Resolver: res, Groups: 1})
	if err != nil {
		t.Fatal(err)
	}
	// The resolver hangs for the whole test, however long a loaded
	// machine makes it: a lookup that timed out would let the next one in.
	l.ids.dns.timeout = time.Hour
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 25_000 {
				a := netip.AddrFrom4([4]byte{10, byte(g), byte(i >> 8), byte(i)})
				l.Who(requestFrom(googlebotUA, a.String()+":1"), googlebotUA, int64(i))
			}
		})
	}
	wg.Wait()
	if n := res.reverse.Load(); n > 1 {
		t.Errorf("%d lookups while the resolver hangs, want at most 1", n)
	}
	d := l.ids.dns
	d.mu.Lock()
	kept := len(d.answers)
	d.mu.Unlock()
	if kept > dnsQueue+1 || kept > dnsAnswers {
		t.Errorf("%d answers kept, want at most %d (queued and looked up)", kept, dnsQueue+1)
	}
	// The writers' goroutines have called Done, and may not have exited
	// yet: wait for them, then only the lookup goroutine is left.
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > before+1 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > before+1 {
		t.Errorf("%d goroutines, %d before: want one more", g, before)
	}
	close(res.gate)
	l.Close()
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > before; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines left after Close, %d before", runtime.NumGoroutine(), before)
		}
	}
	if l.Who(requestFrom(googlebotUA, "192.0.2.50:1"), googlebotUA, 1).verified() {
		t.Error("verified after Close")
	}
}
