package crawllog

import (
	"net/http/httptest"
	"strings"
	"testing"
	"unsafe"
)

// TestConnMemo: a connection (one RemoteAddr string, as net/http gives
// every request of it) is remembered with its User-Agent and column, and
// each request of it still gets its own User-Agent's column: a browser
// after a verified Googlebot, a spoofed Googlebot after a browser, a
// Bingbot claim from Google's address. Another connection from the same
// address text is not the first one's, and a string that shares the
// first one's bytes but is shorter (another address) is not either.
func TestConnMemo(t *testing.T) {
	ids, err := newCrawlerIDs(&Options{Ranges: googleRanges()})
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest("GET", "/", nil)
	slot := func(ua, addr string, sec int64) Slot {
		r.Header["User-Agent"] = []string{strings.Clone(ua)} // each request's own string, as a server reads it
		r.RemoteAddr = addr
		return ids.slotOf(r, first(r.Header["User-Agent"]), sec)
	}
	remembered := func(ua, addr string) bool {
		_, ok := ids.conns.get(addr, ua)
		return ok
	}
	google, spoofer := strings.Clone("66.249.66.1:443"), strings.Clone("192.0.2.1:443")
	for ids.conns.slot(unsafe.StringData(spoofer)) == ids.conns.slot(unsafe.StringData(google)) {
		spoofer = strings.Clone(spoofer) // two connections in one slot of the direct-mapped table evict each other
	}
	steps := []struct {
		ua, addr string
		sec      int64
		want     Slot
	}{
		{googlebotUA, google, 1, googleV},
		{googlebotUA, google, 1, googleV}, // remembered
		{chromeUA, google, 1, slotOther},
		{chromeUA, google, 2, slotOther}, // stored: a new second
		{googlebotUA, google, 2, googleV},
		{bingbotUA, google, 3, bingU},
		{bingbotUA, google, 3, bingU},
		{chromeUA, spoofer, 3, slotOther},
		{chromeUA, spoofer, 3, slotOther},
		{googlebotUA, spoofer, 3, googleU},
		{googlebotUA, spoofer, 4, googleU},
		{googlebotUA, spoofer, 4, googleU},
	}
	for i, s := range steps {
		if got := slot(s.ua, s.addr, s.sec); got != s.want {
			t.Fatalf("step %d: %.30q from %s = %d, want %d", i, s.ua, s.addr, got, s.want)
		}
	}
	if !remembered(bingbotUA, google) || remembered(googlebotUA, google) || !remembered(googlebotUA, spoofer) {
		t.Errorf("connections not remembered with their last User-Agent stored")
	}

	// A new connection from the same address: its own string.
	again := strings.Clone(google)
	if remembered(bingbotUA, again) {
		t.Errorf("a new connection's RemoteAddr found as the old one's")
	}
	if got := slot(googlebotUA, again, 5); got != googleV {
		t.Errorf("a new connection: %d, want %d", got, googleV)
	}

	// The same bytes, shorter: "66.249.64" is no address, so not verified.
	long := strings.Clone("66.249.64.1")
	short := long[:9]
	if unsafe.StringData(short) != unsafe.StringData(long) {
		t.Fatal("not the same bytes")
	}
	for sec := range int64(2) {
		if got := slot(googlebotUA, long, 10+sec); got != googleV {
			t.Fatalf("%s: %d, want %d", long, got, googleV)
		}
	}
	if got := slot(googlebotUA, short, 12); got != googleU {
		t.Errorf("%s, sharing %s's bytes: %d, want %d", short, long, got, googleU)
	}
}

// TestConnMemoProxyHeader: with AddressHeader, the address is each
// request's header, not its connection: a proxy's one connection carries
// a verified Googlebot's request and then a spoofed one's.
func TestConnMemoProxyHeader(t *testing.T) {
	ids, err := newCrawlerIDs(&Options{Ranges: googleRanges(), AddressHeader: "X-Forwarded-For"})
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "10.0.0.1:8080" // the proxy's, one string
	r.Header.Set("User-Agent", googlebotUA)
	for sec := range int64(4) {
		for _, c := range []struct {
			from string
			want Slot
		}{{"66.249.66.1", googleV}, {"192.0.2.1", googleU}} {
			r.Header.Set("X-Forwarded-For", c.from)
			if got := ids.slotOf(r, first(r.Header["User-Agent"]), sec); got != c.want {
				t.Fatalf("second %d, from %s: %d, want %d", sec, c.from, got, c.want)
			}
		}
	}
}

// TestConnMemoFreshAddrs: RemoteAddr strings that never repeat (a
// middleware that sets RemoteAddr for each request, new connections)
// replace a slot at most once a second: once every slot was stored in
// the second, a miss allocates nothing; in the next second, a connection
// is stored again.
func TestConnMemoFreshAddrs(t *testing.T) {
	ids, err := newCrawlerIDs(&Options{Ranges: googleRanges()})
	if err != nil {
		t.Fatal(err)
	}
	addrs := copies("66.249.66.1:443", 24*connMemoSize)
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set("User-Agent", googlebotUA)
	i := 0
	next := func() {
		r.RemoteAddr = addrs[i]
		i++
		if got := ids.slotOf(r, first(r.Header["User-Agent"]), 1); got != googleV {
			t.Fatalf("%d, want %d", got, googleV)
		}
	}
	for range 20 * connMemoSize { // every slot stored, but for a chance of 256 in e^20
		next()
	}
	if n := testing.AllocsPerRun(connMemoSize, next); n != 0 {
		t.Errorf("%v allocations a miss in a second whose slots are stored, want 0", n)
	}
	r.RemoteAddr = addrs[i]
	ids.slotOf(r, first(r.Header["User-Agent"]), 2)
	if _, ok := ids.conns.get(r.RemoteAddr, googlebotUA); !ok {
		t.Errorf("a connection not remembered in a new second")
	}
}

// TestConnMemoSameUA: a new connection whose slot holds another
// connection with the same User-Agent takes only the family from it,
// never its verdict: RemoteAddr strings that never repeat, from Google's
// address and from another, each get their own address's column,
// whatever connection their slot held; a browser's get "other".
func TestConnMemoSameUA(t *testing.T) {
	ids, err := newCrawlerIDs(&Options{Ranges: googleRanges()})
	if err != nil {
		t.Fatal(err)
	}
	google, spoofer := copies("66.249.66.1:443", 4*connMemoSize), copies("192.0.2.1:443", 4*connMemoSize)
	r := httptest.NewRequest("GET", "/", nil)
	shared := 0 // requests whose slot held another connection with their User-Agent
	for sec := range int64(3) {
		for i := range google {
			for _, c := range []struct {
				ua, addr string
				want     Slot
			}{{googlebotUA, google[i], googleV}, {googlebotUA, spoofer[i], googleU}, {chromeUA, spoofer[i], slotOther}} {
				if _, e, gen := ids.conns.at(c.addr); e != nil && e.ua == c.ua && !e.holds(c.addr, gen) {
					shared++
				}
				r.RemoteAddr = c.addr
				if got := ids.slotOf(r, strings.Clone(c.ua), sec); got != c.want {
					t.Fatalf("second %d: %.30q from %s: %d, want %d", sec, c.ua, c.addr, got, c.want)
				}
			}
		}
	}
	if shared < connMemoSize {
		t.Errorf("%d requests met another connection with their User-Agent: the case is not tested", shared)
	}
}
