package crawllog

import (
	"fmt"
	"net/http"
	"net/netip"
	"slices"
	"strings"

	"github.com/freshmap/sitemap/internal/strmemo"
)

// Who asks for a file: the crawler family a User-Agent names, and whether
// the request's address is in that family's published ranges. Nothing
// here allocates per request (but a User-Agent remembered, once), and
// nothing is fetched over the network: the ranges are the owner's
// (Options.Ranges).
//
// On a cached hit this is most of what the crawl log costs, so the common
// cases are short: a request on a keep-alive connection whose User-Agent
// is the connection's last one takes the column remembered for the
// connection (conns.go); otherwise a User-Agent sent over and over
// (every crawler's, the common browsers') is looked up in a fixed-size
// memo of User-Agents (internal/strmemo) rather than matched again; an
// address is read only for a claim that can be verified, and its verdict
// remembered by its text; an IPv4 address is parsed by hand and searched
// among 32-bit ranges (BenchmarkServeCachedCrawlLogPaired, BENCHMARKS.md).

// maxUALen bounds the part of a User-Agent searched: the crawlers' tokens
// come early, and a long header costs no more than this.
const maxUALen = 512

// crawlerOf returns the family a User-Agent claims: a word of it (a run
// of letters, digits, '-' and '_') starts with a family's token, in any
// case. One pass over the bytes: only a word whose first letter starts a
// token is compared.
func crawlerOf(ua string) crawler {
	if len(ua) > maxUALen {
		ua = ua[:maxUALen]
	}
	if !mayClaim(ua) {
		return crawlerOther
	}
	inWord := false
	for i := 0; i < len(ua); i++ {
		c := ua[i]
		class := byteClass[c]
		if class == 0 {
			inWord = false
			continue
		}
		if inWord {
			continue
		}
		inWord = true
		if class == 1 {
			continue // starts no token
		}
		for _, t := range tokensByFirst[lower(c)-'a'] {
			if len(ua)-i >= len(t.token) && hasPrefixFold(ua[i:], t.token) {
				return t.family
			}
		}
	}
	return crawlerOther
}

// crawlerMarks are parts of every token as the crawlers write them; a UA
// with none of them (a browser's) is told apart by a few vectorised
// searches, without the byte-by-byte pass. So a claim must spell the
// mark as the crawler does ("Googlebot", "googlebot", not "GOOGLEBOT";
// "ChatGPT-User"; Meta's "meta-externalagent" in either case).
var crawlerMarks = [...]string{"bot", "Bot", "spider", "Yandex", "BingPreview", "Agent", "-User", "xternal"}

// mayClaim reports whether ua contains a mark of crawlerMarks.
func mayClaim(ua string) bool {
	for _, m := range crawlerMarks {
		if strings.Contains(ua, m) {
			return true
		}
	}
	return false
}

// byteClass is 0 for a byte that is no part of a word, 2 for the first
// letter of a token (in either case), and 1 for the other word bytes.
var byteClass [256]uint8

// tokensByFirst are the tokens by their first letter.
var tokensByFirst [26][]struct {
	token  string
	family crawler
}

func init() {
	for c := range 256 {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_':
			byteClass[c] = 1
		}
	}
	for f, fam := range families {
		for _, t := range fam.tokens {
			i := t[0] - 'a'
			tokensByFirst[i] = append(tokensByFirst[i], struct {
				token  string
				family crawler
			}{t, crawler(f)})
			byteClass[t[0]], byteClass[t[0]-'a'+'A'] = 2, 2
		}
	}
}

// hasPrefixFold reports whether s starts with the lower-case ASCII token
// t, in any case.
func hasPrefixFold(s, t string) bool {
	for j := range len(t) {
		if lower(s[j]) != t[j] {
			return false
		}
	}
	return true
}

// Slot is a column of the crawl log: a family as claimed, and,
// for the named families, verified apart. slotOf gives 2f for family f
// verified, 2f+1 for a claim not verified, and slotOther for the rest.
type Slot uint8

const (
	slotOther = Slot(2 * crawlerOther)
	numSlots  = int(slotOther) + 1
)

func (c Slot) family() crawler { return crawler(c / 2) }
func (c Slot) verified() bool  { return c < slotOther && c%2 == 0 }
func (c Slot) purpose() Purpose {
	if c >= slotOther {
		return purposeNone
	}
	return families[c.family()].purpose
}

// crawlerIDs tells who asks: the families' ranges (empty for a family
// whose ranges the owner did not give) and where the address is read.
type crawlerIDs struct {
	ranges [crawlerOther]rangeSet
	header string                   // a trusted proxy's header with the client address; "" for RemoteAddr
	uas    *strmemo.Memo[crawler]   // the families of the User-Agents sent over and over
	addrs  *strmemo.Memo[familySet] // the families whose ranges hold the address texts sent over and over (inRanges)
	conns  connMemo                 // the columns of keep-alive connections, by RemoteAddr (not used with header)
	dns    *dnsVerifier             // reverse DNS (Options.Resolver); nil when off
}

// familySet is a set of crawler families, a bit each.
type familySet uint32

var _ [32 - int(crawlerOther)]struct{} // every family has its bit

// uaMemoSize is the number of User-Agents remembered: more than the
// crawlers send and the common browsers; 4 KiB of slots, and at most
// maxUALen bytes for each one stored.
const uaMemoSize = 256

// addrMemoSize is the number of address texts remembered (a crawler's
// RemoteAddr, "ip:port", comes back on every request of a keep-alive
// connection): 4 KiB of slots, and at most maxAddrLen bytes for each one
// stored. A longer text (which no address needs) is read each time.
const (
	addrMemoSize = 256
	maxAddrLen   = 64
)

// newCrawlerIDs reads the ranges the owner gives, once. A family name
// that is not one of crawlerNames is an error.
func newCrawlerIDs(o *Options) (*crawlerIDs, error) {
	ids := &crawlerIDs{header: http.CanonicalHeaderKey(o.AddressHeader), uas: strmemo.New[crawler](uaMemoSize, maxUALen),
		addrs: strmemo.New[familySet](addrMemoSize, maxAddrLen)}
	if o.Resolver != nil {
		ids.dns = newDNSVerifier(o.Resolver, ids.conns.forget)
	}
	for name, prefixes := range o.Ranges {
		f := slices.Index(crawlerNames[:crawlerOther], name)
		if f < 0 {
			return nil, fmt.Errorf("unknown crawler %q (want one of %s)", name, strings.Join(crawlerNames[:crawlerOther], ", "))
		}
		ids.ranges[f] = newRangeSet(prefixes)
	}
	return ids, nil
}

// slotOf returns the column of the request r, whose User-Agent is ua
// (its first), made at the Unix second sec. With the address in
// RemoteAddr, r's connection's slot (conns.go) answers first: a request
// of the connection remembered there with the same User-Agent takes its
// column; a request of another connection with the same User-Agent
// takes the family from it (a pure function of the User-Agent), so that
// a new connection (no keep-alive) costs no User-Agent memo, and a claim
// of no family no more. Otherwise the family comes from the memo of
// User-Agents. An address is read only for a family with ranges, and a
// claim without ranges is never verified.
func (ids *crawlerIDs) slotOf(r *http.Request, ua string, sec int64) Slot {
	if len(ua) > maxUALen {
		ua = ua[:maxUALen] // as crawlerOf: a longer one is remembered by this part
	}
	if ids.header != "" {
		return ids.column(ids.family(ua), r)
	}
	addr := r.RemoteAddr
	sl, e, gen := ids.conns.at(addr)
	var f crawler
	if e != nil && e.ua == ua {
		if e.holds(addr, gen) {
			return e.c // remembered for this connection
		}
		if f = e.c.family(); f == crawlerOther {
			return slotOther // nothing to verify; the slot is left to a claim
		}
	} else {
		f = ids.family(ua)
	}
	c := ids.column(f, r)
	ids.conns.miss(sl, e, gen, addr, ua, c, sec)
	return c
}

// family returns the family the User-Agent ua claims, from the memo of
// User-Agents.
func (ids *crawlerIDs) family(ua string) crawler {
	if ua == "" {
		return crawlerOther
	}
	return ids.uas.Get(ua, crawlerOf)
}

// column returns the column of a request from r's address claiming the
// family f.
func (ids *crawlerIDs) column(f crawler, r *http.Request) Slot {
	if f == crawlerOther {
		return slotOther
	}
	if ids.verified(f, r) {
		return Slot(2 * f)
	}
	return Slot(2*f + 1)
}

// verified reports whether r's address is in the ranges of the family f,
// or else confirmed in its vendor's domains by reverse DNS
// (dns.go). The ranges' answer is remembered by the address's
// text, for every family at once (inRanges); the ranges never change
// after New, so it never goes stale.
func (ids *crawlerIDs) verified(f crawler, r *http.Request) bool {
	if !ids.ranges[f].empty() && ids.addrs.Get(ids.addrText(r), ids.inRanges)&(1<<f) != 0 {
		return true
	}
	return ids.dns.verifies(f) && ids.dns.verified(f, ids.addr(r))
}

// verifiable reports whether a claim of family f can be checked: its
// ranges were given, or reverse DNS verifies it.
func (ids *crawlerIDs) verifiable(f crawler) bool {
	return !ids.ranges[f].empty() || ids.dns.verifies(f)
}

// inRanges returns the families in whose ranges the address s (the text
// addrText gives) is: a pure function of s, as the memo needs. An IPv4
// address, the common case, is parsed by hand (ipv4Of) and searched as a
// number; any other goes through netip.
func (ids *crawlerIDs) inRanges(s string) familySet {
	var in familySet
	if a, ok := ipv4Of(s, true); ok {
		for f := range ids.ranges {
			if rs := &ids.ranges[f]; !rs.empty() && rs.containsV4(a) {
				in |= 1 << f
			}
		}
		return in
	}
	a := addrOf(s)
	for f := range ids.ranges {
		if rs := &ids.ranges[f]; !rs.empty() && rs.contains(a) {
			in |= 1 << f
		}
	}
	return in
}

// addr returns the client's address: the host of RemoteAddr, or, with a
// trusted proxy header, the last address in it (the one the proxy added;
// those before it are the client's to write). Invalid if none parses.
func (ids *crawlerIDs) addr(r *http.Request) netip.Addr { return addrOf(ids.addrText(r)) }

// addrText returns the text of the client's address (addr): RemoteAddr,
// or the last element of the proxy's header (of the last such field),
// which may end in a port as RemoteAddr does ("66.249.66.1:443",
// "[2001:db8::1]:443"). In a Forwarded header (RFC 7239) it is the
// element's "for" parameter, unquoted.
func (ids *crawlerIDs) addrText(r *http.Request) string {
	if ids.header == "" {
		return r.RemoteAddr
	}
	v := r.Header[ids.header]
	if len(v) == 0 {
		return ""
	}
	last := v[len(v)-1]
	if i := strings.LastIndexByte(last, ','); i >= 0 {
		last = last[i+1:]
	}
	if ids.header == "Forwarded" {
		last = forwardedFor(last)
	}
	return strings.TrimSpace(last)
}

// forwardedFor returns the value of the "for" parameter of a Forwarded
// element ("for=192.0.2.60;proto=http", `for="[2001:db8::1]:443"`),
// unquoted; "" if it has none.
func forwardedFor(elem string) string {
	for p := range strings.SplitSeq(elem, ";") {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		if strings.EqualFold(k, "for") {
			return strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	return ""
}

// addrOf parses an address as RemoteAddr and proxies write it: bare,
// followed by a port ("host:port", "[v6]:port"), or a bracketed IPv6
// address without a port.
func addrOf(s string) netip.Addr {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr()
	}
	if len(s) > 2 && s[0] == '[' && s[len(s)-1] == ']' {
		s = s[1 : len(s)-1]
	}
	a, _ := netip.ParseAddr(s)
	return a
}

// ipv4Of parses s as addrOf does when it is a dotted-quad IPv4 address,
// with a plain port ("66.249.66.1:443") if port is set. It reports false
// for anything else, which addrOf then parses (TestIPv4Of holds them to
// the same answers).
func ipv4Of(s string, port bool) (uint32, bool) {
	var a, field uint32
	dots, digits := 0, 0
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		if d := uint32(c) - '0'; d <= 9 {
			if digits != 0 && field == 0 { // a leading zero, which netip refuses
				return 0, false
			}
			field = field*10 + d
			digits++
			continue
		}
		if c != '.' {
			break
		}
		if digits == 0 || digits > 3 || field > 255 || dots == 3 {
			return 0, false
		}
		a, field, digits = a<<8|field, 0, 0
		dots++
	}
	if dots != 3 || digits == 0 || digits > 3 || field > 255 {
		return 0, false
	}
	a = a<<8 | field
	if i == len(s) {
		return a, true
	}
	if !port || s[i] != ':' || !plainPort(s[i+1:]) {
		return 0, false
	}
	return a, true
}

// plainPort reports whether p is a port number of 1 to 5 digits, at most
// 65535.
func plainPort(p string) bool {
	if len(p) == 0 || len(p) > 5 {
		return false
	}
	n := 0
	for i := range len(p) {
		if p[i] < '0' || p[i] > '9' {
			return false
		}
		n = n*10 + int(p[i]-'0')
	}
	return n <= 65535
}

// lower is the ASCII lower case of c.
func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
