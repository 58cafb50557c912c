package sitemap

import (
	"encoding/binary"
	"hash/crc32"
	"reflect"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/freshmap/sitemap/internal/gzsplice"
	"github.com/freshmap/sitemap/internal/segment"
)

// wireSegmentedPage is a page of three segments (prologue, one entry,
// epilogue), each a stored deflate block and a sync flush, as a Join lays
// them, and its table: built by hand, so that its bytes do not depend on
// a compressor's version. With units, the entry's segment is two units,
// each a stored block and a sync flush, the second naming the first's run
// as its dictionary, its Sum the hash of theirs (gzsplice's chainSum,
// written out here: it is part of the wire form).
func wireSegmentedPage(t *testing.T, units bool) ([]byte, *segment.Table) {
	entry := []string{"<url><loc>https://example.com/shop/p/1</loc><lastmod>2024-04-30</lastmod></url>\n"}
	if units {
		entry = []string{"<url><loc>https://example.com/shop/p/1</loc>", "<lastmod>2024-04-30</lastmod></url>\n"}
	}
	segs := [][]string{
		{`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n"},
		entry,
		{"</urlset>\n"},
	}
	gz := []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}
	parts := make([]gzsplice.Parts, len(segs))
	var crc uint32
	var n int
	for i, runs := range segs {
		p := &parts[i]
		chain := xxhash.New()
		var dict uint64
		for _, r := range runs {
			at := len(gz)
			gz = append(gz, 0, byte(len(r)), 0, ^byte(len(r)), 0xff)
			gz = append(append(gz, r...), 0, 0, 0, 0xff, 0xff)
			u := gzsplice.UnitParts{Compressed: len(gz) - at, CRC: crc32.ChecksumIEEE([]byte(r)), N: int64(len(r)), Sum: xxhash.Sum64String(r), Dict: dict}
			p.Units = append(p.Units, u)
			p.Compressed += u.Compressed
			p.CRC = crc32.Update(p.CRC, crc32.IEEETable, []byte(r))
			p.N += u.N
			p.Sum = u.Sum
			chain.Write(binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, u.Sum), uint64(u.N)), u.Dict))
			dict = xxhash.Sum64String(r) // DictSum of the run, shorter than DictSize
			crc = crc32.Update(crc, crc32.IEEETable, []byte(r))
			n += len(r)
		}
		if len(runs) > 1 {
			p.Sum = chain.Sum64()
		} else {
			p.Units = nil
		}
	}
	gz = append(gz, 1, 0, 0, 0xff, 0xff)
	gz = binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(gz, crc), uint32(n))
	zs, err := gzsplice.Split(gz, parts)
	if err != nil {
		t.Fatal(err)
	}
	tab := &segment.Table{Level: 6, BySource: true, Full: wireT2, Segs: []segment.Seg{
		{Z: zs[0]}, {Z: zs[1], URLs: 1, Read: 2, Newest: wireT3}, {Z: zs[2], Volatile: true},
	}}
	return gz, tab
}

// wireRecordTableV1 is TestWireRecordTable's record as replicas wrote it
// before units, with a table of version 1 (wireSegmentedPage without
// units): a replica now still decodes it, and its table checks.
const wireRecordTableV1 = "534d5203baeb415dd33d5ade060180bb91e30c0001f0bd91e30ccba1e58e020180bb91e30c0001feba91e30c00baeb415dd33d5ade0103763137f3011f8b08000000000000ff0064009bff3c3f786d6c2076657273696f6e3d22312e302220656e636f64696e673d225554462d38223f3e0a3c75726c73657420786d6c6e733d22687474703a2f2f7777772e736974656d6170732e6f72672f736368656d61732f736974656d61702f302e39223e0a000000ffff005000afff3c75726c3e3c6c6f633e68747470733a2f2f6578616d706c652e636f6d2f73686f702f702f313c2f6c6f633e3c6c6173746d6f643e323032342d30342d33303c2f6c6173746d6f643e3c2f75726c3e0a000000ffff000a00f5ff3c2f75726c7365743e0a000000ffff010000ffffccffb3d4be0000001801809485e30c000601809485e30c000376313700000001014b01060101f0bd91e30ccba1e58e02036e8686234964671020c85ed0bf4e000000005a4b49de575040d436c4c0a92eb9010201809485e30c000014a4791e6c0a47c838042180007a000000014f237e2458419a9c"

// TestWireRecordTable pins the stored record of a page with its segment
// table (record version 3's extension field, internal/segment's wire
// form, version 2: the entry's segment of two units): these bytes are the
// Store's wire format, shared by old and new replicas during a deploy.
// The table decodes as it was, sliced from the copy's bytes, and checks;
// so does the record of version 1's table (wireRecordTableV1).
func TestWireRecordTable(t *testing.T) {
	const golden = "534d52039f1cb54a4de7b5b1060180bb91e30c0001f0bd91e30ccba1e58e020180bb91e30c0001feba91e30c009f1cb54a4de7b5b10103763137fd011f8b08000000000000ff0064009bff3c3f786d6c2076657273696f6e3d22312e302220656e636f64696e673d225554462d38223f3e0a3c75726c73657420786d6c6e733d22687474703a2f2f7777772e736974656d6170732e6f72672f736368656d61732f736974656d61702f302e39223e0a000000ffff002c00d3ff3c75726c3e3c6c6f633e68747470733a2f2f6578616d706c652e636f6d2f73686f702f702f313c2f6c6f633e000000ffff002400dbff3c6c6173746d6f643e323032342d30342d33303c2f6c6173746d6f643e3c2f75726c3e0a000000ffff000a00f5ff3c2f75726c7365743e0a000000ffff010000ffffccffb3d4be0000001801809485e30c000601809485e30c000376313700000001017a02060101f0bd91e30ccba1e58e02036e8686234964671020c85ed0bf4e0000000000644b49de5750d6cca96e9e78709e02362a04be002ca4252df6609c729e00000000000000002eac4ef2fb24b0d63f3d89b2df96a4252df6609c729e010201809485e30c000014a4791e6c0a47c838042180007a0000000001fc8206686c359fbb"
	for _, c := range []struct {
		name   string
		units  bool
		golden string
	}{{"units", true, golden}, {"version 1", false, wireRecordTableV1}} {
		gz, tab := wireSegmentedPage(t, c.units)
		k := pageKey(0, 3)
		if c.units {
			clock := fileClock{at: wireT1, served: wireT4, hash: tab.Sum(), built: true, version: "v17"}
			e := newEntry(gz, tab.Sum(), 6, wireT1, wireT2)
			e.info = PageInfo{Number: 3, LastMod: wireT3, Version: "v17"}
			e.gen, e.era, e.segs = 12, wireT3, tab
			b := encodeRecord(k, e, wireClockFunc(t, []keyClock{{k, clock}}))
			wireGolden(t, "page record with its table", b, c.golden)
		}
		got, _, err := decodeRecord(k, wireHex(t, c.golden))
		if err != nil {
			t.Fatalf("%s: the golden record does not decode: %v", c.name, err)
		}
		if !got.segsStored || !reflect.DeepEqual(got.segs, tab) {
			t.Fatalf("%s: decoded the table %+v, want %+v", c.name, got.segs, tab)
		}
		if err := got.segs.Check(nil); err != nil {
			t.Errorf("%s: the decoded table does not check: %v", c.name, err)
		}
	}
}
