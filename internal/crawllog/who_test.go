package crawllog

import (
	"encoding/binary"
	"math/rand/v2"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
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

// TestIPv4Of: the hand-written IPv4 parse gives netip's address whenever
// it answers, and answers for the addresses RemoteAddr and proxies carry.
func TestIPv4Of(t *testing.T) {
	for s, want := range map[string]bool{ // with a port allowed → ipv4Of answers
		"66.249.66.1:443": true, "66.249.66.1": true, "0.0.0.0:0": true, "255.255.255.255:65535": true, "1.2.3.4:00080": true,
		"1.2.3.4:65536": false, "1.2.3.4:": false, "1.2.3.4:x": false, "1.2.3.4:123456": false,
		"01.2.3.4:1": false, "1.2.3.256:1": false, "1.2.3:1": false, "1.2.3.4.5:1": false, "1..3.4:1": false, ".1.2.3:1": false,
		"1.2.3.4%eth0:1": false, "[::1]:443": false, "::ffff:1.2.3.4": false, "": false, " 1.2.3.4": false, "1.2.3.4 ": false,
		"1.2.3.4:-1": false, "1.2.3.4:+1": false, "1.2.3.0004": false, "1.2.3.004:1": false, "1.2.3.4294967297": false, "4294967297.1.2.3": false,
	} {
		checkIPv4Of(t, s, true)
		if _, got := ipv4Of(s, true); got != want {
			t.Errorf("ipv4Of(%q) answers %v, want %v", s, got, want)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	const chars = "0123456789.:%[]af "
	for range 200_000 {
		b := make([]byte, rng.IntN(24))
		for i := range b {
			b[i] = chars[rng.IntN(len(chars))]
		}
		checkIPv4Of(t, string(b), rng.IntN(2) == 0)
	}
	for range 10_000 { // well-formed ones, which ipv4Of must answer
		var a [4]byte
		binary.BigEndian.PutUint32(a[:], rng.Uint32())
		s := netip.AddrFrom4(a).String() + ":" + strconv.Itoa(rng.IntN(65536))
		if _, ok := ipv4Of(s, true); !ok {
			t.Errorf("ipv4Of(%q) does not answer", s)
		}
		checkIPv4Of(t, s, true)
	}
}

// checkIPv4Of fails if ipv4Of(s, port) answers otherwise than addrOf.
func checkIPv4Of(t *testing.T, s string, port bool) {
	t.Helper()
	got, ok := ipv4Of(s, port)
	if !ok {
		return
	}
	want := addrOf(s)
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], got)
	if !want.Is4() || netip.AddrFrom4(b) != want {
		t.Errorf("ipv4Of(%q, %v) = %v, addrOf = %v", s, port, netip.AddrFrom4(b), want)
	}
}

func FuzzIPv4Of(f *testing.F) {
	for _, s := range []string{"66.249.66.1:443", "1.2.3.4", "01.2.3.4:1", "1.2.3.4:65536", "[::1]:1"} {
		f.Add(s, true)
	}
	f.Fuzz(checkIPv4Of)
}

// TestSlotOfMemo: the User-Agents remembered give the column crawlerOf
// and the address give, however many there are and however they share
// the memo's slots, from several goroutines (run with -race) whose
// requests share three connections (RemoteAddr strings) and change
// User-Agent on them, from second to second.
func TestSlotOfMemo(t *testing.T) {
	ids, err := newCrawlerIDs(&Options{Ranges: googleRanges()})
	if err != nil {
		t.Fatal(err)
	}
	uas := []string{googlebotUA, bingbotUA, chromeUA, "Baiduspider", "", "Googlebot-Image/1.0", strings.Repeat("z", maxUALen) + "Googlebot"}
	for i := range 2000 { // ten times the memo's size: they share slots
		uas = append(uas, "Mozilla/5.0 (compatible; bot "+strconv.Itoa(i)+")", "Mozilla/5.0 Googlebot/"+strconv.Itoa(i))
	}
	addrs := []string{"66.249.66.1:443", "203.0.113.9:443", "[2001:db8::1]:1"}
	want := func(ua, addr string) Slot {
		f := crawlerOf(ua)
		switch {
		case f == crawlerOther:
			return slotOther
		case ids.ranges[f].contains(addrOf(addr)):
			return Slot(2 * f)
		}
		return Slot(2*f + 1)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 5))
			r := httptest.NewRequest("GET", "/", nil)
			for i := range 50_000 {
				ua, addr := uas[rng.IntN(len(uas))], addrs[rng.IntN(len(addrs))]
				if rng.IntN(3) == 0 {
					ua = uas[g] // runs of one get remembered
				}
				r.Header["User-Agent"] = []string{ua}
				r.RemoteAddr = addr
				for range 1 + rng.IntN(2) {
					if got, w := ids.slotOf(r, first(r.Header["User-Agent"]), int64(i/8)), want(ua, addr); got != w { // a new second every 8 requests
						t.Errorf("slotOf(%.30q from %s) = %d, want %d", ua, addr, got, w)
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

// TestAddrMemo: the remembered verdict of an address is by family, so an
// address in one family's ranges never verifies another family's claim,
// however often either was seen; addresses far more than the memo's slots,
// spoofed and not, keep their verdicts; and an address read from a proxy's
// header is remembered apart from RemoteAddr's text.
func TestAddrMemo(t *testing.T) {
	ranges := func() map[string][]netip.Prefix {
		return map[string][]netip.Prefix{
			"Googlebot": {netip.MustParsePrefix("66.249.64.0/19"), netip.MustParsePrefix("2001:4860:4801::/48")},
			"Bingbot":   {netip.MustParsePrefix("157.55.39.0/24")}}
	}
	ids, err := newCrawlerIDs(&Options{Ranges: ranges()})
	if err != nil {
		t.Fatal(err)
	}
	slot := func(ids *crawlerIDs, ua, addr string, hdr ...string) Slot {
		r := httptest.NewRequest("GET", "/", nil)
		r.Header.Set("User-Agent", ua)
		r.RemoteAddr = addr
		for i := 0; i+1 < len(hdr); i += 2 {
			r.Header.Set(hdr[i], hdr[i+1])
		}
		return ids.slotOf(r, first(r.Header["User-Agent"]), time.Now().Unix())
	}
	for range 3 { // remembered from the second time on
		for _, c := range []struct {
			ua, addr string
			want     Slot
		}{
			{bingbotUA, "157.55.39.1:443", bingV},
			{googlebotUA, "157.55.39.1:443", googleU}, // Bing's address, Google's name
			{googlebotUA, "66.249.66.1:443", googleV},
			{bingbotUA, "66.249.66.1:443", bingU},
			{googlebotUA, "[2001:4860:4801::1]:443", googleV},
			{googlebotUA, "[2001:4860:4802::1]:443", googleU},
			{googlebotUA, "66.249.66.1:65536", googleU}, // not an address
			{googlebotUA, "66.249.66.1", googleV},       // no port
			{googlebotUA, "", googleU},
		} {
			if got := slot(ids, c.ua, c.addr); got != c.want {
				t.Errorf("%.20q from %q: column %d, want %d", c.ua, c.addr, got, c.want)
			}
		}
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range 20 * addrMemoSize { // far more than the slots: they share them
		a := [4]byte{66, 249, byte(rng.IntN(256)), byte(rng.IntN(256))}
		if i%2 == 1 {
			a[0] = 67 // spoofed
		}
		addr := netip.AddrPortFrom(netip.AddrFrom4(a), uint16(rng.IntN(4))).String()
		want := googleU
		if a[0] == 66 && a[2] >= 64 && a[2] < 96 {
			want = googleV
		}
		for range 2 {
			if got := slot(ids, googlebotUA, addr); got != want {
				t.Fatalf("Googlebot from %s: column %d, want %d", addr, got, want)
			}
		}
	}
	proxied, err := newCrawlerIDs(&Options{Ranges: ranges(), AddressHeader: "X-Forwarded-For"})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if got := slot(proxied, googlebotUA, "10.0.0.1:80", "X-Forwarded-For", "203.0.113.1, 66.249.66.1"); got != googleV {
			t.Errorf("through the proxy: column %d, want %d", got, googleV)
		}
		if got := slot(proxied, googlebotUA, "66.249.66.1:443"); got != googleU {
			t.Errorf("no proxy header: column %d, want %d (RemoteAddr is the proxy's)", got, googleU)
		}
		// A proxy that writes the client's port too (issue 30): the
		// address verifies, as RemoteAddr's does.
		for _, v := range []string{"66.249.66.1:443", "203.0.113.1, [2001:4860:4801::1]:443", "[2001:4860:4801::1]", "2001:4860:4801::1"} {
			if got := slot(proxied, googlebotUA, "10.0.0.1:80", "X-Forwarded-For", v); got != googleV {
				t.Errorf("%q in the proxy header: column %d, want %d", v, got, googleV)
			}
		}
		for _, v := range []string{"66.249.66.1:65536", "[2001:4860:4801::1", "66.249.66.1:443:1", "unknown"} {
			if got := slot(proxied, googlebotUA, "66.249.66.1:80", "X-Forwarded-For", v); got != googleU {
				t.Errorf("%q in the proxy header: column %d, want %d", v, got, googleU)
			}
		}
	}
	forwarded, err := newCrawlerIDs(&Options{Ranges: ranges(), AddressHeader: "forwarded"})
	if err != nil {
		t.Fatal(err)
	}
	for v, want := range map[string]Slot{
		`for=192.0.2.43, for="[2001:4860:4801::1]:4711";proto=https`: googleV,
		`for=66.249.66.1:443;by=203.0.113.60`:                        googleV,
		`For="66.249.66.1"`:                                          googleV,
		`for=66.249.66.1, for=192.0.2.43`:                            googleU, // the proxy's element is the last
		`by=66.249.66.1`:                                             googleU,
	} {
		if got := slot(forwarded, googlebotUA, "10.0.0.1:80", "Forwarded", v); got != want {
			t.Errorf("Forwarded: %s: column %d, want %d", v, got, want)
		}
	}
}
