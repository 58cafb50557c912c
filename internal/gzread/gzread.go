// Package gzread reads gzip bytes held in memory as what they
// decompress to, lazily, through pooled readers: the root package serves
// a cached document's plain XML by it without decompressing it whole.
package gzread

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/freshmap/sitemap/internal/respond"
	"github.com/klauspost/compress/gzip"
)

// Body is gzip bytes held in memory as the io.ReadSeeker of what they
// decompress to, which http.ServeContent wants, decompressed only as it
// is read: a response holds a pooled gzip reader (its 32 KiB window and
// tables) and the writer's copy buffer, never the whole document.
//
// Seek only records a position; Read brings the stream there. So the
// seeks ServeContent makes to learn the size (to the end, which is the
// length stored in the entry, and back) cost nothing, a HEAD or a 304
// decompresses nothing, and a Range decompresses, and discards, the bytes
// before its start and stops at its end. A backward seek after a read
// starts the stream again from the top: ServeContent makes none for one
// range, and the root's serveEntry never hands it several (see its
// wholeIfMultiRange).
//
// The first decompression error is kept (Err): ServeContent drops the
// errors of its copy, so the caller checks it afterwards.
type Body struct {
	size int64 // the length of what gz decompresses to, as recorded
	pos  int64 // where the next Read starts, as Seek left it
	out  int64 // bytes the stream has produced so far
	err  error // the first decompression failure

	gz   []byte       // the gzip bytes
	src  bytes.Reader // over gz
	zr   gzip.Reader  // kept across uses: Reset reuses its decompressor
	open bool         // zr has been reset onto src for this body
	end  [1]byte      // for reading past the last byte, to check the trailer
}

var bodies = sync.Pool{New: func() any { return new(Body) }}

// Decompression counters, for tests: streams started (gzip reader resets)
// and bytes inflated by Bodies since the process started.
var Streams, Inflated atomic.Int64

// ErrCorrupt means gzip bytes do not decompress, or not to the length
// recorded for them.
var ErrCorrupt = errors.New("cached page does not decompress")

var errLonger = errors.New("more bytes than its recorded length")

// Get returns a pooled Body over what gz decompresses to, size bytes, at
// its start.
func Get(gz []byte, size int64) *Body {
	b := bodies.Get().(*Body)
	b.gz, b.size, b.pos, b.out, b.err, b.open = gz, size, 0, 0, nil, false
	return b
}

// Put returns b to the pool; b must no longer be in use. It keeps its
// decompressor but lets go of the gzip bytes.
func Put(b *Body) {
	b.gz = nil
	b.src.Reset(nil)
	bodies.Put(b)
}

// Seek sets the position of the next Read, without decompressing.
func (b *Body) Seek(offset int64, whence int) (int64, error) {
	pos, err := respond.SeekTo(offset, whence, b.pos, b.size)
	if err == nil {
		b.pos = pos
	}
	return pos, err
}

// Read decompresses into p from the position Seek set.
func (b *Body) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if len(p) == 0 {
		return 0, nil // the gzip reader would loop on an empty p
	}
	if b.pos >= b.size {
		return 0, io.EOF
	}
	if err := b.reach(); err != nil {
		return 0, b.fail(err)
	}
	p = p[:min(int64(len(p)), b.size-b.out)]
	n, err := b.zr.Read(p)
	b.pos += int64(n)
	b.out += int64(n)
	Inflated.Add(int64(n))
	switch {
	case err == io.EOF && b.out < b.size:
		return n, b.fail(io.ErrUnexpectedEOF)
	case err != nil && err != io.EOF:
		return n, b.fail(err)
	case b.out == b.size:
		// The last byte: the trailer's checksum and length are checked on
		// the read that finds the end, which a reader stopping at the
		// length it was told would never make.
		if m, err := b.zr.Read(b.end[:]); m != 0 || err != io.EOF {
			if err == nil || err == io.EOF {
				err = errLonger
			}
			return n, b.fail(err)
		}
		return n, io.EOF
	}
	return n, nil
}

// reach brings the stream to b.pos: it starts the stream if it has not
// started or is past pos, then decompresses and discards up to pos.
func (b *Body) reach() error {
	if !b.open || b.out > b.pos {
		Streams.Add(1)
		b.src.Reset(b.gz)
		b.out, b.open = 0, true
		if err := b.zr.Reset(&b.src); err != nil {
			b.open = false
			return err
		}
	}
	if skip := b.pos - b.out; skip > 0 {
		n, err := io.CopyN(io.Discard, &b.zr, skip) // io.Discard pools its buffer
		b.out += n
		Inflated.Add(n)
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	return nil
}

// fail records the first decompression error.
func (b *Body) fail(err error) error {
	b.err = fmt.Errorf("%w: at byte %d of %d: %w", ErrCorrupt, b.out, b.size, err)
	return b.err
}

// Err is the first decompression failure, nil if none.
func (b *Body) Err() error { return b.err }
