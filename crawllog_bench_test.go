package sitemap

import (
	"net/http"
	"net/netip"
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

// BenchmarkServeCachedCrawlLog is BenchmarkServeCached (a cached
// 50,000-URL page, .xml.gz) with the crawl log off, and on for the
// clients it tells apart: a browser ("other"), a verified Googlebot (its
// address searched in Google-sized ranges) and a spoofed one.
func BenchmarkServeCachedCrawlLog(b *testing.B) {
	for _, c := range []struct {
		name, ua, addr string
		crawlers       Crawlers
	}{
		{"off", googlebotUA, "66.249.83.224:443", Crawlers{Files: -1}},
		{"other", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", "192.0.2.1:443", Crawlers{Ranges: googleSizedRanges}},
		{"googlebot", googlebotUA, "66.249.83.224:443", Crawlers{Ranges: googleSizedRanges}},
		{"spoofed", googlebotUA, "192.0.2.1:443", Crawlers{Ranges: googleSizedRanges}},
	} {
		b.Run(c.name, func(b *testing.B) {
			sm, err := New(Config{BaseURL: "https://shop.example.com", TTL: time.Hour, Crawlers: c.crawlers}, Section{Source: benchSource(MaxURLs)})
			if err != nil {
				b.Fatal(err)
			}
			defer sm.Close()
			r := mustRequest("/sitemap-1.xml.gz", "User-Agent", c.ua)
			r.RemoteAddr = c.addr
			w := &discard{h: http.Header{}}
			sm.ServeHTTP(w, r)
			e, ok := cachedEntry(sm, pageKey(0, 1))
			if !ok {
				b.Fatal("not cached")
			}
			serveLoop(b, sm, r, w, int64(len(e.gz)), http.StatusOK)
			if c.crawlers.Files >= 0 && len(sm.CrawlLog()) != 1 {
				b.Fatal("not logged")
			}
		})
	}
}

const chromeUA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"

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
// in Google-sized ranges) and the store into its cell. The clock reading
// is the serving path's own (documents.get's), read with the log off too.
func BenchmarkCrawlLogRecord(b *testing.B) {
	for name, c := range map[string]struct{ ua, addr string }{
		"other":     {chromeUA, "192.0.2.1:443"},
		"googlebot": {googlebotUA, "66.249.83.224:443"},
		"spoofed":   {googlebotUA, "192.0.2.1:443"},
	} {
		b.Run(name, func(b *testing.B) {
			sm, err := New(Config{BaseURL: "https://shop.example.com", Crawlers: Crawlers{Ranges: googleSizedRanges}}, Section{Source: benchSource(1)})
			if err != nil {
				b.Fatal(err)
			}
			defer sm.Close()
			r := mustRequest("/sitemap-1.xml.gz", "User-Agent", c.ua)
			r.RemoteAddr = c.addr
			l, k := sm.crawls, pageKey(0, 1)
			at := time.Now()
			l.record(k, slotOther, at, false, 200, 1, true)
			b.ReportAllocs()
			for b.Loop() {
				l.record(k, l.ids.slotOf(r), at, false, 200, 141358, true)
			}
		})
	}
}
