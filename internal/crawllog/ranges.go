package crawllog

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"slices"
	"strings"
)

// The crawlers' published address ranges: read from the owner's files
// (ReadRanges) and kept as sorted, disjoint ranges searched per
// request (rangeSet).

// addrRange is a closed range of addresses, as 128-bit numbers (IPv4 as
// IPv4-mapped IPv6).
type addrRange struct{ lo, hi [2]uint64 }

// v4Range is a closed range of IPv4 addresses.
type v4Range struct{ lo, hi uint32 }

// rangeSet is a sorted list of disjoint address ranges, searched in
// O(log n) without allocating: all of them as 128-bit ranges, and their
// IPv4 part again as 32-bit ranges, for the common case.
type rangeSet struct {
	all []addrRange
	v4  []v4Range
}

func addrNum(a netip.Addr) [2]uint64 {
	b := a.As16()
	return [2]uint64{binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])}
}

func less(a, b [2]uint64) bool { return a[0] < b[0] || a[0] == b[0] && a[1] < b[1] }

// v4Mapped is the 16 bits above an IPv4 address in its IPv4-mapped form,
// ::ffff:a.b.c.d (the low 64 bits are 0x0000ffff_aabbccdd).
const v4Mapped = 0xffff

// newRangeSet makes the set of the prefixes, merging those that overlap.
func newRangeSet(prefixes []netip.Prefix) rangeSet {
	var rs []addrRange
	for _, p := range prefixes {
		if !p.IsValid() {
			continue
		}
		p = p.Masked()
		bits := p.Bits()
		if p.Addr().Is4() {
			bits += 96
		}
		lo := addrNum(p.Addr())
		hi := lo
		host := 128 - bits // the host bits, set in hi
		switch {
		case host >= 64:
			hi[1] = ^uint64(0)
			if host > 64 {
				hi[0] |= ^uint64(0) >> (128 - host)
			}
		case host > 0:
			hi[1] |= ^uint64(0) >> (64 - host)
		}
		rs = append(rs, addrRange{lo, hi})
	}
	slices.SortFunc(rs, func(a, b addrRange) int {
		if less(a.lo, b.lo) {
			return -1
		}
		if less(b.lo, a.lo) {
			return 1
		}
		return 0
	})
	out := rangeSet{all: rs[:0]}
	for _, r := range rs {
		if n := len(out.all); n > 0 && !less(out.all[n-1].hi, r.lo) {
			if less(out.all[n-1].hi, r.hi) {
				out.all[n-1].hi = r.hi
			}
			continue
		}
		out.all = append(out.all, r)
	}
	// The IPv4 part: each range cut to ::ffff:0.0.0.0–::ffff:255.255.255.255.
	first, last := [2]uint64{0, v4Mapped << 32}, [2]uint64{0, v4Mapped<<32 | 0xffffffff}
	for _, r := range out.all {
		if less(r.hi, first) || less(last, r.lo) {
			continue
		}
		lo, hi := max2(r.lo, first), min2(r.hi, last)
		out.v4 = append(out.v4, v4Range{uint32(lo[1]), uint32(hi[1])})
	}
	return out
}

func max2(a, b [2]uint64) [2]uint64 {
	if less(a, b) {
		return b
	}
	return a
}

func min2(a, b [2]uint64) [2]uint64 {
	if less(a, b) {
		return a
	}
	return b
}

// empty reports whether the set has no address.
func (rs *rangeSet) empty() bool { return len(rs.all) == 0 }

// contains reports whether a is in the set.
func (rs *rangeSet) contains(a netip.Addr) bool {
	if !a.IsValid() || rs.empty() {
		return false
	}
	if a = a.Unmap(); a.Is4() {
		b := a.As4()
		return rs.containsV4(binary.BigEndian.Uint32(b[:]))
	}
	n := addrNum(a)
	i, j := 0, len(rs.all) // the first range whose hi is not below n is in [i, j]
	for i < j {
		h := int(uint(i+j) >> 1)
		if hi := rs.all[h].hi; hi[0] < n[0] || hi[0] == n[0] && hi[1] < n[1] {
			i = h + 1
		} else {
			j = h
		}
	}
	return i < len(rs.all) && !less(n, rs.all[i].lo)
}

// containsV4 reports whether the IPv4 address a is in the set.
func (rs *rangeSet) containsV4(a uint32) bool {
	i, j := 0, len(rs.v4) // the first range whose hi is not below a is in [i, j]
	for i < j {
		h := int(uint(i+j) >> 1)
		if rs.v4[h].hi < a {
			i = h + 1
		} else {
			j = h
		}
	}
	return i < len(rs.v4) && rs.v4[i].lo <= a
}

// maxRangesBytes bounds what ReadRanges reads.
const maxRangesBytes = 16 << 20

// ReadRanges reads a crawler's published address ranges, for
// Options.Ranges: either the JSON that Google, Bing, OpenAI and
// Perplexity publish (googlebot.json, Google's user-triggered fetchers'
// file, bingbot.json, gptbot.json, searchbot.json, chatgpt-user.json,
// perplexitybot.json, perplexity-user.json: {"prefixes": [{"ipv4Prefix":
// "…"}, {"ipv6Prefix": "…"}]}), or a plain list of prefixes or
// addresses, one a line, with '#' comments. It reads at most 16 MiB. Download the files
// yourself: the library never fetches them.
func ReadRanges(r io.Reader) ([]netip.Prefix, error) {
	br := bufio.NewReader(io.LimitReader(r, maxRangesBytes))
	first, err := firstNonSpace(br)
	if err != nil {
		return nil, fmt.Errorf("crawler ranges: %w", err)
	}
	if first == '{' {
		var doc struct {
			Prefixes []struct {
				V4 string `json:"ipv4Prefix"`
				V6 string `json:"ipv6Prefix"`
			} `json:"prefixes"`
		}
		if err := json.NewDecoder(br).Decode(&doc); err != nil {
			return nil, fmt.Errorf("crawler ranges: %w", err)
		}
		out := make([]netip.Prefix, 0, len(doc.Prefixes))
		for _, p := range doc.Prefixes {
			s := p.V4 + p.V6
			pf, err := netip.ParsePrefix(s)
			if err != nil {
				return nil, fmt.Errorf("crawler ranges: %w", err)
			}
			out = append(out, pf)
		}
		return out, nil
	}
	var out []netip.Prefix
	sc := bufio.NewScanner(br)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		pf, err := netip.ParsePrefix(line)
		if err != nil {
			a, aerr := netip.ParseAddr(line)
			if aerr != nil {
				return nil, fmt.Errorf("crawler ranges: %w", err)
			}
			pf = netip.PrefixFrom(a, a.BitLen())
		}
		out = append(out, pf)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("crawler ranges: %w", err)
	}
	return out, nil
}

// firstNonSpace peeks at the first byte that is not white space. An empty
// input is an error.
func firstNonSpace(br *bufio.Reader) (byte, error) {
	for {
		c, err := br.ReadByte()
		if err == io.EOF {
			return 0, errors.New("empty")
		}
		if err != nil {
			return 0, err
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return c, br.UnreadByte()
		}
	}
}

// RangeFiles returns a function that reads the files of each family (by
// name, the paths of its files), downloaded beforehand, with ReadRanges:
// a family's files are read as one list. Its error names the file that
// could not be read or is no list of ranges.
func RangeFiles(files map[string][]string) func() (map[string][]netip.Prefix, error) {
	return func() (map[string][]netip.Prefix, error) {
		out := make(map[string][]netip.Prefix, len(files))
		for family, paths := range files {
			for _, path := range paths {
				p, err := readRangeFile(path)
				if err != nil {
					return nil, err
				}
				out[family] = append(out[family], p...)
			}
		}
		return out, nil
	}
}

func readRangeFile(path string) ([]netip.Prefix, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := ReadRanges(f)
	if err != nil {
		return nil, fmt.Errorf("sitemap: %s: %w", path, err)
	}
	return p, nil
}
