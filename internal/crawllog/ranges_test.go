package crawllog

import (
	"net/netip"
	"testing"
)

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
	// An IPv6 prefix over part of the IPv4-mapped space covers those IPv4
	// addresses: the 32-bit ranges are cut from the 128-bit ones.
	mapped := newRangeSet([]netip.Prefix{netip.MustParsePrefix("::ffff:0:0/100"), netip.MustParsePrefix("::fffe:0:0/96")})
	for addr, want := range map[string]bool{"0.0.0.0": true, "10.1.2.3": true, "15.255.255.255": true, "16.0.0.0": false, "::fffe:1.2.3.4": true} {
		if got := mapped.contains(netip.MustParseAddr(addr)); got != want {
			t.Errorf("::ffff:0:0/100 contains(%s) = %v, want %v", addr, got, want)
		}
	}
	if len(mapped.v4) != 1 || mapped.v4[0] != (v4Range{0, 0x0fffffff}) {
		t.Errorf("IPv4 part of ::ffff:0:0/100: %v", mapped.v4)
	}
	all := newRangeSet([]netip.Prefix{netip.MustParsePrefix("::/0"), netip.MustParsePrefix("0.0.0.0/0")})
	for _, addr := range []string{"::", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "1.2.3.4", "255.255.255.255"} {
		if !all.contains(netip.MustParseAddr(addr)) {
			t.Errorf("the whole space does not contain %s", addr)
		}
	}
}
