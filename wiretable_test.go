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
// a compressor's version.
func wireSegmentedPage(t *testing.T) ([]byte, *segment.Table) {
	runs := []string{
		`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n",
		"<url><loc>https://example.com/shop/p/1</loc><lastmod>2024-04-30</lastmod></url>\n",
		"</urlset>\n",
	}
	gz := []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}
	parts := make([]gzsplice.Parts, len(runs))
	var crc uint32
	var n int
	for i, r := range runs {
		at := len(gz)
		gz = append(gz, 0, byte(len(r)), 0, ^byte(len(r)), 0xff)
		gz = append(append(gz, r...), 0, 0, 0, 0xff, 0xff)
		parts[i] = gzsplice.Parts{Compressed: len(gz) - at, CRC: crc32.ChecksumIEEE([]byte(r)), N: int64(len(r)), Sum: xxhash.Sum64String(r)}
		crc = crc32.Update(crc, crc32.IEEETable, []byte(r))
		n += len(r)
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

// TestWireRecordTable pins the stored record of a page with its segment
// table (record version 3's extension field, internal/segment's wire
// form): these bytes are the Store's wire format, shared by old and new
// replicas during a deploy. The table decodes as it was, sliced from the
// copy's bytes, and checks.
func TestWireRecordTable(t *testing.T) {
	const golden = "534d5203baeb415dd33d5ade060180bb91e30c0001f0bd91e30ccba1e58e020180bb91e30c0001feba91e30c00baeb415dd33d5ade0103763137f3011f8b08000000000000ff0064009bff3c3f786d6c2076657273696f6e3d22312e302220656e636f64696e673d225554462d38223f3e0a3c75726c73657420786d6c6e733d22687474703a2f2f7777772e736974656d6170732e6f72672f736368656d61732f736974656d61702f302e39223e0a000000ffff005000afff3c75726c3e3c6c6f633e68747470733a2f2f6578616d706c652e636f6d2f73686f702f702f313c2f6c6f633e3c6c6173746d6f643e323032342d30342d33303c2f6c6173746d6f643e3c2f75726c3e0a000000ffff000a00f5ff3c2f75726c7365743e0a000000ffff010000ffffccffb3d4be0000001801809485e30c000601809485e30c000376313700000001014b01060101f0bd91e30ccba1e58e02036e8686234964671020c85ed0bf4e000000005a4b49de575040d436c4c0a92eb9010201809485e30c000014a4791e6c0a47c838042180007a000000014f237e2458419a9c"
	gz, tab := wireSegmentedPage(t)
	k := pageKey(0, 3)
	clock := fileClock{at: wireT1, served: wireT4, hash: tab.Sum(), built: true, version: "v17"}
	e := newEntry(gz, tab.Sum(), 6, wireT1, wireT2)
	e.info = PageInfo{Number: 3, LastMod: wireT3, Version: "v17"}
	e.gen, e.era, e.segs = 12, wireT3, tab
	b := encodeRecord(k, e, wireClockFunc(t, []keyClock{{k, clock}}))
	wireGolden(t, "page record with its table", b, golden)
	got, _, err := decodeRecord(k, wireHex(t, golden))
	if err != nil {
		t.Fatalf("the golden record does not decode: %v", err)
	}
	if !got.segsStored || !reflect.DeepEqual(got.segs, tab) {
		t.Fatalf("decoded the table %+v, want %+v", got.segs, tab)
	}
	if err := got.segs.Check(nil); err != nil {
		t.Errorf("the decoded table does not check: %v", err)
	}
}
