// Package gzpipe compresses on a goroutine of its own what its caller
// writes, so that producing a document and compressing it overlap on two
// cores; and pools gzip writers by level.
package gzpipe

import (
	"hash"
	"io"
	"runtime"
	"sync"

	"github.com/klauspost/compress/gzip"
)

// Pipe compresses what is written to it on a goroutine of its own, so
// that encoding a page and compressing it overlap on two cores instead of
// taking turns: a large page then costs about what gzip alone costs. Each
// Write is copied into one of a few chunk buffers that the two goroutines
// pass back and forth; nothing is allocated per write. The first
// pipeInline bytes are compressed in the caller's goroutine: for a small
// page, the hand-offs would cost more than the overlap saves. With
// GOMAXPROCS 1 everything is: there is no core to overlap with, and the
// copies and hand-offs would only add to the work.
type Pipe struct {
	level   int
	zw      *gzip.Writer
	hash    hash.Hash64 // if set, fed the uncompressed bytes too
	full    chan []byte // chunks to compress; a nil chunk ends the stream
	free    chan []byte // chunks ready to be filled again
	done    chan error  // the compressor's result, once per stream
	err     error       // the first error of inline compression
	inline  int         // bytes compressed inline so far
	started bool        // the compressor goroutine runs
	alone   bool        // GOMAXPROCS is 1: no second core to overlap with, so all is compressed inline
	chunk   [][]byte    // backing chunks, kept for reuse
}

const (
	pipeChunks = 4
	ChunkSize  = 64 << 10
	pipeInline = 256 << 10
)

var pipePools [gzip.BestCompression + 1]sync.Pool

// New returns a pipe that writes the gzip stream to w at level
// (1 to 9), feeding h (if not nil) the uncompressed bytes. Close it.
func New(w io.Writer, level int, h hash.Hash64) *Pipe {
	p, ok := pipePools[level].Get().(*Pipe)
	if !ok {
		p = &Pipe{
			level: level,
			full:  make(chan []byte, pipeChunks),
			free:  make(chan []byte, pipeChunks),
			done:  make(chan error, 1),
		}
		for range pipeChunks {
			p.chunk = append(p.chunk, make([]byte, 0, ChunkSize))
		}
	}
	p.zw, p.hash, p.err, p.inline, p.started = Get(w, level), h, nil, 0, false
	p.alone = runtime.GOMAXPROCS(0) == 1
	return p
}

// Write hands b to the compressor. Its errors are returned by Close. The
// hash is fed here, on the writer's goroutine: the compressor is the
// slower of the two, and should do nothing else.
func (p *Pipe) Write(b []byte) (int, error) {
	n := len(b)
	if p.hash != nil {
		p.hash.Write(b)
	}
	if !p.started {
		if p.inline+n <= pipeInline || p.alone {
			p.inline += n
			p.write(b)
			return n, nil
		}
		p.start()
	}
	for len(b) > 0 {
		c := <-p.free
		k := min(len(b), cap(c))
		p.full <- append(c[:0], b[:k]...)
		b = b[k:]
	}
	return n, nil
}

// write compresses b unless an earlier write failed.
func (p *Pipe) write(b []byte) {
	if p.err != nil {
		return
	}
	_, p.err = p.zw.Write(b)
}

// start hands the rest of the stream to a compressor goroutine.
func (p *Pipe) start() {
	for _, c := range p.chunk {
		p.free <- c[:0]
	}
	p.started = true
	go p.compress()
}

func (p *Pipe) compress() {
	for c := range p.full {
		if c == nil {
			break
		}
		p.write(c)
		p.free <- c
	}
	if p.err == nil {
		p.err = p.zw.Close()
	}
	p.done <- p.err
}

// Close ends the gzip stream, waits for the compressor and returns the
// first error. The pipe must not be used afterwards.
func (p *Pipe) Close() error {
	var err error
	if p.started {
		p.full <- nil
		err = <-p.done
		for range pipeChunks {
			<-p.free
		}
	} else {
		if p.err == nil {
			p.err = p.zw.Close()
		}
		err = p.err
	}
	Put(p.zw, p.level)
	p.zw, p.hash = nil, nil
	pipePools[p.level].Put(p)
	return err
}

// gzipPools holds idle gzip writers, one pool per compression level from
// gzip.HuffmanOnly (-2) to gzip.BestCompression (9).
var gzipPools [gzip.BestCompression - gzip.HuffmanOnly + 1]sync.Pool

// Get returns a pooled gzip writer at level, reset to write to w.
// The level must be valid (checked in New).
func Get(w io.Writer, level int) *gzip.Writer {
	if z, ok := gzipPools[level-gzip.HuffmanOnly].Get().(*gzip.Writer); ok {
		z.Reset(w)
		return z
	}
	z, err := gzip.NewWriterLevel(w, level)
	if err != nil { // New checks the level; this is only a safety net
		return gzip.NewWriter(w)
	}
	return z
}

func Put(z *gzip.Writer, level int) {
	gzipPools[level-gzip.HuffmanOnly].Put(z)
}
