package sitemap

import (
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// googleSizedRanges are as many prefixes as Google publishes for
// Googlebot (about 160 IPv4 /27s and 130 IPv6 /64s), the last IPv4 one
// holding the benchmark's address.
func googleSizedRanges() (map[string][]netip.Prefix, error) {
	var p []netip.Prefix
	for i := range 160 {
		p = append(p, netip.PrefixFrom(netip.AddrFrom4([4]byte{66, 249, byte(64 + i/8), byte(i % 8 * 32)}), 27))
	}
	for i := range 130 {
		p = append(p, netip.PrefixFrom(netip.AddrFrom16([16]byte{0x20, 0x01, 0x48, 0x60, 0x48, 0x01, 0, byte(i)}), 64))
	}
	return map[string][]netip.Prefix{"Googlebot": p}, nil
}

// crawlLogClients are the clients the crawl log tells apart: a browser
// ("other"), a verified Googlebot (its address searched in Google-sized
// ranges) and a spoofed one.
var crawlLogClients = []struct{ name, ua, addr string }{
	{"other", chromeUA, "192.0.2.1:443"},
	{"googlebot", googlebotUA, "66.249.83.224:443"},
	{"spoofed", googlebotUA, "192.0.2.1:443"},
}

// cachedCrawlLogBench serves a cached 50,000-URL page (.xml.gz) with the
// crawl log as c says, and returns the Sitemap and the page's size.
func cachedCrawlLogBench(b *testing.B, c Crawlers) (*Sitemap, int64) {
	sm, e := cachedSitemap(b, Config{BaseURL: "https://shop.example.com", TTL: time.Hour, Crawlers: c}, Section{Source: benchSource(MaxURLs)})
	return sm, int64(len(e.gz))
}

// BenchmarkServeCachedCrawlLog is BenchmarkServeCached (a cached
// 50,000-URL page, .xml.gz) with the crawl log off, and on for each of
// crawlLogClients.
func BenchmarkServeCachedCrawlLog(b *testing.B) {
	off := append([]struct{ name, ua, addr string }{{"off", googlebotUA, "66.249.83.224:443"}}, crawlLogClients...)
	for i, c := range off {
		b.Run(c.name, func(b *testing.B) {
			crawlers := Crawlers{Ranges: googleSizedRanges}
			if i == 0 {
				crawlers = Crawlers{Files: -1}
			}
			sm, n := cachedCrawlLogBench(b, crawlers)
			r := mustRequest("/sitemap-1.xml.gz", "User-Agent", c.ua)
			r.RemoteAddr = c.addr
			serveLoop(b, sm, r, &discard{h: http.Header{}}, n, http.StatusOK)
			if i > 0 && len(sm.CrawlLog()) != 1 {
				b.Fatal("not logged")
			}
		})
	}
}

// pairedClients are BenchmarkServeCachedCrawlLogPaired's columns: the
// clients of crawlLogClients on one keep-alive connection (every request
// has the same RemoteAddr string, as net/http gives), and a browser and a
// verified Googlebot whose every request has a RemoteAddr string of its
// own (a new connection each time, or a proxy that rewrites RemoteAddr).
var pairedClients = []struct {
	name, ua, addr string
	freshAddr      bool
}{
	{"other", chromeUA, "192.0.2.1:443", false},
	{"googlebot", googlebotUA, "66.249.83.224:443", false},
	{"spoofed", googlebotUA, "192.0.2.1:443", false},
	{"other-fresh-addr", chromeUA, "192.0.2.1:443", true},
	{"googlebot-fresh-addr", googlebotUA, "66.249.83.224:443", true},
}

// copies returns n copies of s, each in its own memory, as a server
// reads a header afresh for each request.
func copies(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = strings.Clone(s)
	}
	return out
}

// BenchmarkServeCachedCrawlLogPaired measures the crawl log's cost on a
// cached hit as a difference within one loop, for a machine whose load
// changes faster than benchmarks take turns: each iteration serves the
// request by a Sitemap with the crawl log off and by one with it on
// (which first alternates), timing each. Each request served has a
// User-Agent string of its own (the same bytes, copied: pairedUAs
// copies, taken in turn), and, in the fresh-addr columns, a RemoteAddr
// of its own (pairedAddrs copies, too many for any memo to keep); they
// are set and read once before the clock starts, so their bytes are in
// the cache, as a server's just-parsed request's are. A pair in which
// either took over pairedOutlier (the process was descheduled, or the
// collector ran) is left out, and counted in dropped-%. It reports both
// mean times and the log's cost as a share of the hit without it; each
// time includes a monotonic clock read (time.Since), so the share is
// slightly under the true one.
func BenchmarkServeCachedCrawlLogPaired(b *testing.B) {
	for _, c := range pairedClients {
		b.Run(c.name, func(b *testing.B) {
			smOff, _ := cachedCrawlLogBench(b, Crawlers{Files: -1})
			smOn, _ := cachedCrawlLogBench(b, Crawlers{Ranges: googleSizedRanges})
			r := mustRequest("/sitemap-1.xml.gz", "User-Agent", c.ua)
			r.RemoteAddr = c.addr
			uas, addrs := copies(c.ua, pairedUAs), []string{c.addr}
			if c.freshAddr {
				addrs = copies(c.addr, pairedAddrs)
			}
			ua := r.Header["User-Agent"]
			w := &discard{h: http.Header{}}
			var spent [2]time.Duration // off, on: the pairs kept
			kept, i, n := 0, 0, 0
			var touched byte
			start := time.Now()
			b.ReportAllocs()
			for b.Loop() {
				var pair [2]time.Duration
				for j := range 2 {
					which := (i + j) % 2
					sm := smOff
					if which == 1 {
						sm = smOn
					}
					ua[0], r.RemoteAddr = uas[n%len(uas)], addrs[n%len(addrs)]
					n++
					touched += ua[0][0] + ua[0][len(ua[0])-1] + r.RemoteAddr[0]
					clear(w.h)
					t := time.Since(start)
					sm.ServeHTTP(w, r)
					pair[which] = time.Since(start) - t
				}
				i++
				if pair[0] < pairedOutlier && pair[1] < pairedOutlier {
					spent[0], spent[1] = spent[0]+pair[0], spent[1]+pair[1]
					kept++
				}
			}
			if w.code != 0 && w.code != http.StatusOK || len(smOn.CrawlLog()) != 1 || kept == 0 {
				b.Fatalf("status %d, %d files logged, %d pairs kept", w.code, len(smOn.CrawlLog()), kept)
			}
			pairedSink = touched
			b.ReportMetric(float64(spent[0])/float64(kept), "off-ns/op")
			b.ReportMetric(float64(spent[1])/float64(kept), "on-ns/op")
			b.ReportMetric(100*float64(spent[1]-spent[0])/float64(spent[0]), "cost-%")
			b.ReportMetric(100*float64(i-kept)/float64(i), "dropped-%")
		})
	}
}

// pairedUAs is the number of User-Agent copies the paired benchmark takes
// in turn (16 copies of ~110 bytes: they stay in the cache); pairedAddrs
// the number of RemoteAddr copies in its fresh-addr columns, 16 times
// as many as any memo of addresses has slots.
const (
	pairedUAs   = 16
	pairedAddrs = 4096
)

// pairedSink keeps the reads that bring a request's strings into the
// cache.
var pairedSink byte

// pairedOutlier is a time no cached hit takes unless interrupted: about
// 30 times a hit's.
const pairedOutlier = 30 * time.Microsecond
