// Package gzsplice makes gzip files that end with the same long run of
// bytes and start with a short one that changes, without compressing the
// long run again: the run is compressed once, as a deflate stream of its
// own (a Tail), and each file is a gzip header, the short start in stored
// (uncompressed) deflate blocks, the Tail's deflate bytes as they are, and
// a trailer whose CRC-32 is combined from the start's and the Tail's.
//
// A deflate stream may be cut after any block that ends on a byte
// boundary, as stored blocks do, and a stream compressed alone refers to
// nothing before it, so the result is one valid gzip member (RFC 1951,
// RFC 1952) that any gzip reader takes.
package gzsplice

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"

	"github.com/klauspost/compress/flate"
)

// Tail is the end of gzip files, compressed once.
type Tail struct {
	deflate []byte // a deflate stream whose last block is final
	crc     uint32 // the CRC-32 (IEEE) of its data
	n       int64  // the length of its data
}

// NewTail compresses data at level (flate's levels) into a Tail.
func NewTail(data []byte, level int) (*Tail, error) {
	var buf bytes.Buffer
	zw, err := flate.NewWriter(&buf, level)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(data); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return &Tail{deflate: bytes.Clone(buf.Bytes()), crc: crc32.ChecksumIEEE(data), n: int64(len(data))}, nil
}

// Size is the length of the Tail's data, uncompressed.
func (t *Tail) Size() int64 { return t.n }

// Compressed is the length of the Tail's deflate bytes.
func (t *Tail) Compressed() int { return len(t.deflate) }

// maxStored is the most data a stored block holds.
const maxStored = 0xffff

// header is a gzip member's header: deflate, no flags, no time, unknown OS.
var header = [10]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}

// Len is the length of the gzip file that Append makes of head.
func (t *Tail) Len(head int) int {
	blocks := (head + maxStored - 1) / maxStored
	return len(header) + head + 5*blocks + len(t.deflate) + 8
}

// Append appends to dst one gzip member whose data is head followed by
// the Tail's data, and returns the extended slice. It costs a copy of the
// Tail's deflate bytes and a CRC-32 of head, whatever the Tail's size.
func (t *Tail) Append(dst, head []byte) []byte {
	dst = append(dst, header[:]...)
	for rest := head; len(rest) > 0; {
		n := min(len(rest), maxStored)
		// A stored block, not final: BFINAL 0 and BTYPE 00 in the first
		// three bits, padded to the byte; then LEN and NLEN.
		dst = append(dst, 0)
		dst = binary.LittleEndian.AppendUint16(dst, uint16(n))
		dst = binary.LittleEndian.AppendUint16(dst, ^uint16(n))
		dst = append(dst, rest[:n]...)
		rest = rest[n:]
	}
	dst = append(dst, t.deflate...)
	crc := Combine(crc32.ChecksumIEEE(head), t.crc, t.n)
	dst = binary.LittleEndian.AppendUint32(dst, crc)
	return binary.LittleEndian.AppendUint32(dst, uint32(int64(len(head))+t.n)) // ISIZE: the length modulo 2^32
}
