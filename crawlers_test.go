package sitemap

import (
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

func TestCrawlerOf(t *testing.T) {
	for ua, want := range map[string]crawler{
		"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)": crawlerGoogle,
		"Googlebot-Image/1.0": crawlerGoogle,
		"GOOGLEBOT":           crawlerOther, // not as Google spells it
		"googlebot/2.1":       crawlerGoogle,
		"Mozilla/5.0 (compatible; YandexImages/3.0)": crawlerYandex,
		"Mozilla/5.0 (Linux; Android 6.0.1) Chrome/W.X.Y.Z Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)":   crawlerGoogle,
		"Mozilla/5.0 AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)": crawlerApple,
		"robot":           crawlerOther,
		"AppleWebKit bot": crawlerOther,
		"Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)": crawlerBing,
		"msnbot/2.0b": crawlerBing,
		"Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)":                           crawlerYandex,
		"Mozilla/5.0 (Macintosh) AppleWebKit/605.1.15 (KHTML, like Gecko) Applebot/0.1":              crawlerApple,
		"DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)":                                 crawlerDuckDuck,
		"Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)":        crawlerBaidu,
		"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari": crawlerOther,
		"":            crawlerOther,
		"googlebo":    crawlerOther,
		"Apple":       crawlerOther,
		"curl/8.5.0":  crawlerOther,
		"Google-Read": crawlerOther,
		strings.Repeat("x", maxUALen) + "Googlebot": crawlerOther, // past the part searched
	} {
		if got := crawlerOf(ua); got != want {
			t.Errorf("crawlerOf(%.40q) = %s, want %s", ua, crawlerNames[got], crawlerNames[want])
		}
	}
}

func TestRangeSet(t *testing.T) {
	rs := newRangeSet([]netip.Prefix{
		netip.MustParsePrefix("66.249.64.0/27"),
		netip.MustParsePrefix("66.249.64.16/28"), // inside the one above: merged
		netip.MustParsePrefix("10.0.0.1/32"),
		netip.MustParsePrefix("2001:4860:4801:10::/64"),
		netip.MustParsePrefix("2001:db8::/20"), // not masked: masked to 2001::/20
	})
	for addr, want := range map[string]bool{
		"66.249.64.0":                           true,
		"66.249.64.31":                          true,
		"66.249.64.32":                          false,
		"66.249.63.255":                         false,
		"10.0.0.1":                              true,
		"10.0.0.2":                              false,
		"10.0.0.0":                              false,
		"::ffff:66.249.64.5":                    true, // IPv4-mapped
		"2001:4860:4801:10::1":                  true,
		"2001:4860:4801:10:ffff:ffff:ffff:ffff": true,
		"2001:4860:4801:11::":                   false,
		"2001:0fff::1":                          true,
		"2001:1000::":                           false,
		"::1":                                   false,
		"66.249.64.0.1":                         false, // does not parse: invalid
	} {
		a, _ := netip.ParseAddr(addr)
		if got := rs.contains(a); got != want {
			t.Errorf("contains(%s) = %v, want %v", addr, got, want)
		}
	}
	if len(rs.all) != 4 {
		t.Errorf("%d ranges, want 4 (two merged): %v", len(rs.all), rs.all)
	}
	all := newRangeSet([]netip.Prefix{netip.MustParsePrefix("::/0"), netip.MustParsePrefix("0.0.0.0/0")})
	for _, addr := range []string{"::", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "1.2.3.4", "255.255.255.255"} {
		if !all.contains(netip.MustParseAddr(addr)) {
			t.Errorf("the whole space does not contain %s", addr)
		}
	}
}

func TestReadCrawlerRanges(t *testing.T) {
	json := `{"creationTime": "2026-11-20T00:00:00.000000", "prefixes": [
		{"ipv6Prefix": "2001:4860:4801:10::/64"}, {"ipv4Prefix": "66.249.64.0/27"}]}`
	got, err := ReadCrawlerRanges(strings.NewReader(json))
	if err != nil || len(got) != 2 || got[1] != netip.MustParsePrefix("66.249.64.0/27") {
		t.Errorf("JSON: %v, %v", got, err)
	}
	got, err = ReadCrawlerRanges(strings.NewReader("# Applebot\n17.0.0.0/8\n\n  17.58.1.2 # one address\n2620:149::/32\n"))
	if err != nil || len(got) != 3 || got[1] != netip.MustParsePrefix("17.58.1.2/32") {
		t.Errorf("lines: %v, %v", got, err)
	}
	for _, bad := range []string{"", "  \n", "17.0.0.0/33\n", "not an address\n", `{"prefixes": [{"ipv4Prefix": "x"}]}`, `{"prefixes": `} {
		if got, err := ReadCrawlerRanges(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: %v, want an error", bad, got)
		} else if !strings.HasPrefix(err.Error(), "sitemap: crawler ranges: ") {
			t.Errorf("%q: error %q", bad, err)
		}
	}
}

func TestClientAddr(t *testing.T) {
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "[2001:db8::1]:443"
	r.Header.Set("X-Forwarded-For", "1.1.1.1, 66.249.64.1")
	if got := (&crawlerIDs{}).addr(r); got != netip.MustParseAddr("2001:db8::1") {
		t.Errorf("RemoteAddr: %v", got)
	}
	ids := &crawlerIDs{header: "X-Forwarded-For"}
	if got := ids.addr(r); got != netip.MustParseAddr("66.249.64.1") {
		t.Errorf("the proxy's header: %v, want the last address", got)
	}
	r.Header.Del("X-Forwarded-For")
	if got := ids.addr(r); got.IsValid() {
		t.Errorf("no header: %v, want none (RemoteAddr is the proxy's)", got)
	}
}
