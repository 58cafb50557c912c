package sitemap

import (
	"bytes"
	"encoding/hex"
	"slices"
	"testing"
	"time"
)

// The golden tests of the Store's wire format: the bytes of a stored
// record, a stored clock and each message, and the names of the keys and
// the channel. Replicas of two versions share one Store during a rolling
// deploy, so these must not change unless the format's version changes
// (record.Magic, record.ClockMagic in internal/record) and the deploy is planned for it. Each golden
// value is a hex literal; a mismatch prints the bytes now produced.

// Fixed gzip files (stored blocks, as compress writes data this small):
// the XML they hold is in the comments. The record does not look inside
// them, but they are valid, so that the entries are like built ones.
const (
	// "<urlset><url><loc>https://example.com/shop/p/1</loc></url></urlset>\n"
	wireGzPage = "1f8b080000096e8800ff004400bbff3c75726c7365743e3c75726c3e3c6c6f633e68747470733a2f2f6578616d706c652e636f6d2f73686f702f702f313c2f6c6f633e3c2f75726c3e3c2f75726c7365743e0a03009264bc3a44000000"
	// "<sitemapindex><sitemap><loc>https://example.com/shop/sitemap-1.xml.gz</loc></sitemap></sitemapindex>\n"
	wireGzIndex1 = "1f8b080000096e8800ff0065009aff3c736974656d6170696e6465783e3c736974656d61703e3c6c6f633e68747470733a2f2f6578616d706c652e636f6d2f73686f702f736974656d61702d312e786d6c2e677a3c2f6c6f633e3c2f736974656d61703e3c2f736974656d6170696e6465783e0a03003a545a1c65000000"
	// "<sitemapindex><sitemap><loc>https://example.com/shop/sitemap-2.xml.gz</loc></sitemap></sitemapindex>\n"
	wireGzIndex2 = "1f8b080000096e8800ff0065009aff3c736974656d6170696e6465783e3c736974656d61703e3c6c6f633e68747470733a2f2f6578616d706c652e636f6d2f73686f702f736974656d61702d322e786d6c2e677a3c2f6c6f633e3c2f736974656d61703e3c2f736974656d6170696e6465783e0a0300b2e4e63665000000"
)

// wireHex decodes a golden hex literal.
func wireHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("bad golden hex: %v", err)
	}
	return b
}

// wireGolden fails t if got is not the golden value want (hex).
func wireGolden(t *testing.T, what string, got []byte, want string) {
	t.Helper()
	if g := hex.EncodeToString(got); g != want {
		t.Errorf("%s: the wire bytes changed; replicas of the old and new version would not understand each other\n got: %s\nwant: %s", what, g, want)
	}
}

// wireSameClock fails t if clock got is not want.
func wireSameClock(t *testing.T, what string, got, want fileClock) {
	t.Helper()
	if !got.at.Equal(want.at) || !got.served.Equal(want.served) || got.hash != want.hash ||
		got.built != want.built || got.ungiven != want.ungiven || got.version != want.version {
		t.Errorf("%s: decoded clock %+v, want %+v", what, got, want)
	}
}

// wireSameInfo fails t if PageInfo got is not want.
func wireSameInfo(t *testing.T, what string, got, want PageInfo) {
	t.Helper()
	if got.Number != want.Number || !got.LastMod.Equal(want.LastMod) || got.Version != want.Version {
		t.Errorf("%s: decoded %+v, want %+v", what, got, want)
	}
}

// wireSameFile fails t if the file got (its bytes, validators and times)
// is not want.
func wireSameFile(t *testing.T, what string, got, want *entry) {
	t.Helper()
	if !bytes.Equal(got.gz, want.gz) {
		t.Errorf("%s: decoded gz %x, want %x", what, got.gz, want.gz)
	}
	if got.hash != want.hash || got.level != want.level || got.size != want.size {
		t.Errorf("%s: decoded hash %x level %d size %d, want %x %d %d", what, got.hash, got.level, got.size, want.hash, want.level, want.size)
	}
	if !got.lastMod.Equal(want.lastMod) || !got.built.Equal(want.built) {
		t.Errorf("%s: decoded lastMod %v built %v, want %v %v", what, got.lastMod, got.built, want.lastMod, want.built)
	}
	if !slices.Equal(got.etagFile, want.etagFile) || !slices.Equal(got.gzLen, want.gzLen) {
		t.Errorf("%s: decoded etag %v length %v, want %v %v", what, got.etagFile, got.gzLen, want.etagFile, want.gzLen)
	}
}

// wireSameClocks fails t if the clocks a record carried are not want, in
// order.
func wireSameClocks(t *testing.T, got, want []keyClock) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("decoded %d clocks, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i].k != want[i].k {
			t.Errorf("clock %d: decoded key %v, want %v", i, got[i].k, want[i].k)
		}
		wireSameClock(t, "clock of "+want[i].k.String(), got[i].c, want[i].c)
	}
}

// wireClockFunc returns the clock function of a record's encoding: the
// clock of each key of clocks, and a failure for any other.
func wireClockFunc(t *testing.T, clocks []keyClock) func(docKey) fileClock {
	return func(k docKey) fileClock {
		for _, kc := range clocks {
			if kc.k == k {
				return kc.c
			}
		}
		t.Errorf("encodeRecord asked for the clock of %v, which the record should not carry", k)
		return fileClock{}
	}
}

// The fixed times of the records: whole seconds, as clocks are, and one
// with nanoseconds, as a built time is.
var (
	wireT1 = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	wireT2 = time.Date(2024, 5, 1, 12, 3, 4, 567_890_123, time.UTC)
	wireT3 = time.Date(2024, 4, 30, 8, 0, 0, 0, time.UTC)
	wireT4 = time.Date(2024, 5, 1, 11, 59, 59, 0, time.UTC)
)

// wirePageEntry is a page's entry, every field a record keeps set, but
// sums.
func wirePageEntry(t *testing.T) *entry {
	e := newEntry(wireHex(t, wireGzPage), 0xbec8920c7645895a, 6, wireT1, wireT2)
	e.info = PageInfo{Number: 3, LastMod: wireT3, Version: "v17"}
	e.gen, e.era = 12, wireT3
	return e
}

// TestWireRecordPage pins the stored record of a page. These bytes are
// the Store's wire format, shared by old and new replicas during a
// deploy: they must not change. The URL sums of change tracking are no
// longer stored (a replica reads them back from the gzip bytes, sumsOf):
// a page with sums is stored as one without; a record that an older
// replica stored with sums still decodes, sums and all.
func TestWireRecordPage(t *testing.T) {
	k := pageKey(0, 3)
	clock := fileClock{at: wireT1, served: wireT4, hash: 0xbec8920c7645895a, built: true, version: "v17"}
	clocks := []keyClock{{k, clock}}
	const without = "534d52025a8945760c92c8be060180bb91e30c0001f0bd91e30ccba1e58e020180bb91e30c0001feba91e30c005a8945760c92c8be01037631375d1f8b080000096e8800ff004400bbff3c75726c7365743e3c75726c3e3c6c6f633e68747470733a2f2f6578616d706c652e636f6d2f73686f702f702f313c2f6c6f633e3c2f75726c3e3c2f75726c7365743e0a03009264bc3a440000001801809485e30c000601809485e30c0003763137000000170e074705ca0448"
	const withSums = "534d52025a8945760c92c8be060180bb91e30c0001f0bd91e30ccba1e58e020180bb91e30c0001feba91e30c005a8945760c92c8be01037631375d1f8b080000096e8800ff004400bbff3c75726c7365743e3c75726c3e3c6c6f633e68747470733a2f2f6578616d706c652e636f6d2f73686f702f702f313c2f6c6f633e3c2f75726c3e3c2f75726c7365743e0a03009264bc3a440000001801809485e30c000601809485e30c000376313702efcdab89674523011032547698badcfe01000000000000000200000000000000000013cd0501bb644672"
	sums := []urlSum{{loc: 0x0123456789abcdef, entry: 0xfedcba9876543210}, {loc: 1, entry: 2}}
	for _, tc := range []struct {
		name    string
		sums    []urlSum // the entry's, in memory
		golden  string   // what is stored
		decoded string   // a record to decode: the golden one, or an older replica's
		want    []urlSum // the sums it decodes with
	}{
		{"without sums", nil, without, without, nil},
		{"with sums", sums, without, without, nil},
		{"stored with sums by an older replica", nil, without, withSums, sums},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := wirePageEntry(t)
			e.sums = tc.sums
			b := encodeRecord(k, e, wireClockFunc(t, clocks))
			wireGolden(t, "page record", b, tc.golden)
			got, gotClocks, err := decodeRecord(k, wireHex(t, tc.decoded))
			if err != nil {
				t.Fatalf("the golden record does not decode: %v", err)
			}
			wireSameFile(t, "page", got, e)
			wireSameInfo(t, "info", got.info, e.info)
			if got.gen != e.gen || !got.era.Equal(e.era) {
				t.Errorf("decoded gen %d era %v, want %d %v", got.gen, got.era, e.gen, e.era)
			}
			if !slices.Equal(got.sums, tc.want) {
				t.Errorf("decoded sums %x, want %x", got.sums, tc.want)
			}
			if got.pages != nil || got.more != nil {
				t.Errorf("a page decoded with pages %v, more %v", got.pages, got.more)
			}
			wireSameClocks(t, gotClocks, clocks)
		})
	}
}

// TestWireRecordIndex pins the stored record of an index of two files
// listing two sections' pages, which carries the clock of each file and
// of every page it lists. These bytes are the Store's wire format, shared
// by old and new replicas during a deploy: they must not change.
func TestWireRecordIndex(t *testing.T) {
	const golden = "534d5202653bf2957309066a090180bb91e30c0001f0bd91e30ccba1e58e020180bb91e30c000180bb91e30c00653bf2957309066a01007e1f8b080000096e8800ff0065009aff3c736974656d6170696e6465783e3c736974656d61703e3c6c6f633e68747470733a2f2f6578616d706c652e636f6d2f73686f702f736974656d61702d312e786d6c2e677a3c2f6c6f633e3c2f736974656d61703e3c2f736974656d6170696e6465783e0a03003a545a1c650000000e01809485e30c000000000002020201809485e30c0002613101809485e30c0001809485e30c0011110000000000000102613104000001f0bd91e30ccba1e58e020000000000000000000000010a01feba91e30c0000000000000000000000000000017bbf65b29cb01e130901feba91e30c0001f0bd91e30ccba1e58e0201feba91e30c0001feba91e30c007bbf65b29cb01e1301007e1f8b080000096e8800ff0065009aff3c736974656d6170696e6465783e3c736974656d61703e3c6c6f633e68747470733a2f2f6578616d706c652e636f6d2f73686f702f736974656d61702d322e786d6c2e677a3c2f6c6f633e3c2f736974656d61703e3c2f736974656d6170696e6465783e0a0300b2e4e63665000000bcd6fa66a9700b1e"
	e := newEntry(wireHex(t, wireGzIndex1), 0x6a06097395f23b65, 9, wireT1, wireT2)
	e.gen, e.era = 7, wireT3
	e.pages = [][]PageInfo{
		{{Number: 1, LastMod: wireT3, Version: "a1"}, {Number: 2}},
		{{Number: 5, LastMod: wireT4, Version: ""}},
	}
	e.more = []*entry{newEntry(wireHex(t, wireGzIndex2), 0x131eb09cb265bf7b, 9, wireT4, wireT2)}
	// In the order the record carries them: the first file, the pages,
	// the other files.
	clocks := []keyClock{
		{indexKey, fileClock{at: wireT1, served: wireT1, hash: 0x6a06097395f23b65, built: true}},
		{pageKey(0, 1), fileClock{at: wireT3, served: wireT3, hash: 0x1111, built: true, version: "a1"}},
		{pageKey(0, 2), fileClock{at: wireT2}},
		{pageKey(1, 5), fileClock{}},
		{indexFileKey(2), fileClock{at: wireT4, served: wireT4, hash: 0x131eb09cb265bf7b, built: true}},
	}
	b := encodeRecord(indexKey, e, wireClockFunc(t, clocks))
	wireGolden(t, "index record", b, golden)
	got, gotClocks, err := decodeRecord(indexKey, wireHex(t, golden))
	if err != nil {
		t.Fatalf("the golden record does not decode: %v", err)
	}
	wireSameFile(t, "index file 1", got, e)
	wireSameInfo(t, "info", got.info, e.info)
	if got.gen != e.gen || !got.era.Equal(e.era) || got.sums != nil {
		t.Errorf("decoded gen %d sums %v, want %d and none", got.gen, got.sums, e.gen)
	}
	if len(got.pages) != len(e.pages) {
		t.Fatalf("decoded %d sections, want %d", len(got.pages), len(e.pages))
	}
	for i := range e.pages {
		if len(got.pages[i]) != len(e.pages[i]) {
			t.Fatalf("section %d: decoded %d pages, want %d", i, len(got.pages[i]), len(e.pages[i]))
		}
		for j := range e.pages[i] {
			wireSameInfo(t, "page", got.pages[i][j], e.pages[i][j])
		}
	}
	if len(got.more) != 1 {
		t.Fatalf("decoded %d more files, want 1", len(got.more))
	}
	wireSameFile(t, "index file 2", got.more[0], e.more[0])
	wireSameClocks(t, gotClocks, clocks)
}

// TestWireClock pins the clock of a page as it is stored apart from its
// copy ("clock:" keys), with every field set and zero. These bytes are
// the Store's wire format, shared by old and new replicas during a
// deploy: they must not change.
func TestWireClock(t *testing.T) {
	for _, tc := range []struct {
		name   string
		c      fileClock
		golden string
	}{
		{"full", fileClock{at: wireT1, served: wireT2, hash: 0x0123456789abcdef, built: true, version: "rows=42;max=2024-05-01"}, "534d4b010180bb91e30c0001f0bd91e30ccba1e58e02efcdab89674523010116726f77733d34323b6d61783d323032342d30352d3031cdd6ccc21bdd4ef8"},
		{"zero", fileClock{}, "534d4b01000000000000000000000000dc8dfd2204fa1a65"},
		{"ungiven", fileClock{at: wireT1, hash: 0x0123456789abcdef, built: true, ungiven: true}, "534d4b010180bb91e30c0000efcdab89674523010300cc2836c3adb10aca"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wireGolden(t, "clock", encodeClock(tc.c), tc.golden)
			got, err := decodeClock(wireHex(t, tc.golden))
			if err != nil {
				t.Fatalf("the golden clock does not decode: %v", err)
			}
			wireSameClock(t, "clock", got, tc.c)
		})
	}
}

// TestWireStoredClock pins a page's clock as a Store keeps it apart from
// its copy, with the era it was given in (shared.setClock).
func TestWireStoredClock(t *testing.T) {
	c := fileClock{at: wireT1, served: wireT2, hash: 0x0123456789abcdef, built: true, version: "v3"}
	const golden = "534d450101809485e30c000180bb91e30c0001f0bd91e30ccba1e58e02efcdab89674523010102763311bab54e4d2614cb"
	wireGolden(t, "stored clock", encodeStoredClock(wireT3, c), golden)
	era, got, err := decodeStoredClock(wireHex(t, golden))
	if err != nil {
		t.Fatalf("the golden stored clock does not decode: %v", err)
	}
	if !era.Equal(wireT3) {
		t.Errorf("decoded era %v, want %v", era, wireT3)
	}
	wireSameClock(t, "stored clock", got, c)
	b := encodeStoredClock(wireT3, c)
	if _, _, err := decodeStoredClock(append(b[:len(b)-1:len(b)-1], b[len(b)-1]^1)); err == nil {
		t.Error("a damaged stored clock decodes")
	}
}

// TestWireMessages pins each kind of message on the channel. These bytes
// are the Store's wire format, shared by old and new replicas during a
// deploy: they must not change.
func TestWireMessages(t *testing.T) {
	const from = 0x0807060504030201
	for _, tc := range []struct {
		name   string
		m      message
		golden string
	}{
		{"changed", message{kind: msgChanged, from: from, gen: 42, names: []string{"sitemap-products-3.xml.gz", "sitemap_index.xml"}}, "0101020304050607085400000000000000000219736974656d61702d70726f64756374732d332e786d6c2e677a11736974656d61705f696e6465782e786d6c"},
		{"built", message{kind: msgBuilt, from: from, hash: 0xbec8920c7645895a, names: []string{"sitemap-products-1.xml.gz"}}, "020102030405060708005a8945760c92c8be0119736974656d61702d70726f64756374732d312e786d6c2e677a"},
		{"lost", message{kind: msgLost, from: from}, "03010203040506070800000000000000000000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if msgChanged != 1 || msgBuilt != 2 || msgLost != 3 {
				t.Fatalf("message kinds changed: msgChanged %d, msgBuilt %d, msgLost %d; want 1, 2 and 3", msgChanged, msgBuilt, msgLost)
			}
			wireGolden(t, "message", tc.m.encode(), tc.golden)
			got, err := decodeMessage(wireHex(t, tc.golden))
			if err != nil {
				t.Fatalf("the golden message does not decode: %v", err)
			}
			if got.kind != tc.m.kind || got.from != tc.m.from || got.gen != tc.m.gen || got.hash != tc.m.hash ||
				!slices.Equal(got.names, tc.m.names) {
				t.Errorf("decoded %+v, want %+v", got, tc.m)
			}
		})
	}
}

// TestWireBorn: when the Store's state began, as every replica reads it
// with each copy (fleet.born).
func TestWireBorn(t *testing.T) {
	const golden = "534d4201008063f8995bcb17a95342542b9dee1a"
	b := encodeBorn(wireT1)
	wireGolden(t, "born", b, golden)
	got, err := decodeBorn(wireHex(t, golden))
	if err != nil || !got.Equal(wireT1) {
		t.Fatalf("the golden born decodes to %v, %v; want %v", got, err, wireT1)
	}
	if _, err := decodeBorn(append(b[:len(b)-1:len(b)-1], b[len(b)-1]^1)); err == nil {
		t.Error("a damaged born decodes")
	}
}
