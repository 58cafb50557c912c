package crawllog

import (
	"net/netip"
	"testing"
	"time"
)

// BenchmarkCrawlerOf is the User-Agent match alone.
func BenchmarkCrawlerOf(b *testing.B) {
	for name, ua := range map[string]string{"chrome": chromeUA, "googlebot": googlebotUA, "baiduspider": "Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)"} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				crawlerOf(ua)
			}
		})
	}
}

// BenchmarkCrawlLogRecord is what the crawl log adds to a request for a
// file already logged and not conditional: who asks (User-Agent, address
// in Google-sized ranges) and the store into its cell. Each call has a
// User-Agent string of its own (copies of the same bytes) and the same
// RemoteAddr string (one keep-alive connection). The clock reading
// is the serving path's own, read with the log off too.
func BenchmarkCrawlLogRecord(b *testing.B) {
	for _, c := range []struct{ name, ua, addr string }{
		{"other", chromeUA, "192.0.2.1:443"},
		{"googlebot", googlebotUA, "66.249.83.224:443"},
		{"spoofed", googlebotUA, "192.0.2.1:443"},
	} {
		b.Run(c.name, func(b *testing.B) {
			l := newLog(b, Options{Ranges: googleSizedRanges()})
			r := requestFrom(c.ua, c.addr)
			k := File{N: 1}
			at := time.Now()
			l.Record(k, slotOther, at.Unix(), false, 200, 1, true)
			uas, ua := copies(c.ua, 16), r.Header["User-Agent"]
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				ua[0] = uas[i%len(uas)] // a User-Agent string of its own, as each request has
				i++
				l.Record(k, l.Who(r, ua[0], at.Unix()), at.Unix(), false, 200, 141358, true)
			}
		})
	}
}

// googleSizedRanges are as many prefixes as Google publishes for
// Googlebot (about 160 IPv4 /27s and 130 IPv6 /64s), the last IPv4 one
// holding the benchmark's address.
func googleSizedRanges() map[string][]netip.Prefix {
	var p []netip.Prefix
	for i := range 160 {
		p = append(p, netip.PrefixFrom(netip.AddrFrom4([4]byte{66, 249, byte(64 + i/8), byte(i % 8 * 32)}), 27))
	}
	for i := range 130 {
		p = append(p, netip.PrefixFrom(netip.AddrFrom16([16]byte{0x20, 0x01, 0x48, 0x60, 0x48, 0x01, 0, byte(i)}), 64))
	}
	return map[string][]netip.Prefix{"Googlebot": p}
}
