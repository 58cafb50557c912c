// Package gzsplice makes gzip files from parts compressed apart, so that
// a part that did not change is never compressed again.
//
// A Tail serves files that end with the same long run of bytes and start
// with a short one that changes: the run is compressed once, as a deflate
// stream of its own, and each file is a gzip header, the short start in
// stored (uncompressed) deflate blocks, the Tail's deflate bytes as they
// are, and a trailer whose CRC-32 is combined from the start's and the
// Tail's. Segments (segment.go) serve a file kept as runs of which any
// one may change: each run is compressed alone, and Join lays them end to
// end in one member.
//
// A deflate stream may be cut after any block that ends on a byte
// boundary, as stored blocks do, and a stream compressed alone refers to
// nothing before it, so the result is one valid gzip member (RFC 1951,
// RFC 1952) that any gzip reader takes.
package gzsplice

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"sync"

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
	w, err := NewTailWriter(level)
	if err != nil {
		return nil, err
	}
	w.Write(data)
	return w.Close()
}

// TailWriter compresses what is written to it into a Tail, with a pooled
// compressor and buffer, so that a Tail made of several pieces needs no
// copy of them joined.
type TailWriter struct{ c compressor }

// compressor is a pooled deflate compressor writing into a pooled buffer,
// with the CRC-32 and length of what it was given: what TailWriter and
// SegmentWriter share; they differ in how the stream ends.
type compressor struct {
	zw    *flate.Writer
	buf   *bytes.Buffer
	level int
	crc   uint32
	n     int64
	err   error
	dict  bool // the compressor was given a preset dictionary (chain.go)
}

// writers holds a pool of compressors per level (flate's -2 to 9).
var writers [12]sync.Pool

// buffers holds the compressors' buffers; a new one is made newBuffer
// long, as much as a page's segment compresses to, so that it seldom grows.
var buffers = sync.Pool{New: func() any { return bytes.NewBuffer(make([]byte, 0, newBuffer)) }}

const newBuffer = 32 << 10

// maxPooledBuf is the largest buffer kept for reuse.
const maxPooledBuf = 8 << 20

func newCompressor(level int) (compressor, error) {
	if level < flate.HuffmanOnly || level > flate.BestCompression {
		return compressor{}, fmt.Errorf("gzsplice: level %d", level)
	}
	buf := buffers.Get().(*bytes.Buffer)
	buf.Reset()
	c := compressor{buf: buf, level: level}
	if zw, ok := writers[level+2].Get().(*flate.Writer); ok {
		zw.Reset(buf)
		c.zw = zw
	} else {
		zw, err := flate.NewWriter(buf, level)
		if err != nil {
			return compressor{}, err
		}
		c.zw = zw
	}
	return c, nil
}

// Write compresses p; an error is kept for the end.
func (c *compressor) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	c.crc = crc32.Update(c.crc, crc32.IEEETable, p)
	c.n += int64(len(p))
	_, c.err = c.zw.Write(p)
	return len(p), c.err
}

// release puts the compressor and buffer back; c is not used after.
func (c *compressor) release() {
	putBuffer(c.buf)
	c.releaseWriter()
}

// releaseWriter puts the compressor back and keeps the buffer, whose
// bytes the caller has taken.
func (c *compressor) releaseWriter() {
	if c.dict { // a pooled compressor's Reset would fill its window with the dictionary again
		c.zw.ResetDict(nil, nil)
	}
	writers[c.level+2].Put(c.zw)
	c.zw, c.buf = nil, nil
}

// putBuffer gives a buffer back to the pool, unless it grew too large.
func putBuffer(b *bytes.Buffer) {
	if b.Cap() <= maxPooledBuf {
		buffers.Put(b)
	}
}

// NewTailWriter returns a TailWriter at level; Close gives the Tail.
func NewTailWriter(level int) (*TailWriter, error) {
	c, err := newCompressor(level)
	if err != nil {
		return nil, err
	}
	return &TailWriter{c: c}, nil
}

// Write compresses p; an error is kept for Close.
func (w *TailWriter) Write(p []byte) (int, error) { return w.c.Write(p) }

// Close ends the stream and returns the Tail; the writer is not used after.
func (w *TailWriter) Close() (*Tail, error) {
	err := w.c.err
	if cerr := w.c.zw.Close(); err == nil {
		err = cerr
	}
	var t *Tail
	if err == nil {
		t = &Tail{deflate: bytes.Clone(w.c.buf.Bytes()), crc: w.c.crc, n: w.c.n}
	}
	w.c.release()
	return t, err
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
