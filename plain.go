package sitemap

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/freshmap/sitemap/internal/readback"
	"github.com/freshmap/sitemap/internal/respond"
	"github.com/klauspost/compress/gzip"
)

// plainBody is a cached document's XML as the io.ReadSeeker that
// http.ServeContent wants, decompressed only as it is read: a plain
// response holds a pooled gzip reader (its 32 KiB window and tables) and
// the writer's copy buffer, never the whole page.
//
// Seek only records a position; Read brings the stream there. So the
// seeks ServeContent makes to learn the size (to the end, which is the
// length stored in the entry, and back) cost nothing, a HEAD or a 304
// decompresses nothing, and a Range decompresses, and discards, the bytes
// before its start and stops at its end. A backward seek after a read
// starts the stream again from the top: ServeContent makes none for one
// range, and serveEntry never hands it several (see wholeIfMultiRange).
//
// The first decompression error is kept in err: ServeContent drops the
// errors of its copy, so serveEntry checks it afterwards.
type plainBody struct {
	size int64 // the XML's length, from the entry
	pos  int64 // where the next Read starts, as Seek left it
	out  int64 // XML bytes the stream has produced so far
	err  error // the first decompression failure

	gz   []byte       // the entry's gzip bytes
	src  bytes.Reader // over gz
	zr   gzip.Reader  // kept across uses: Reset reuses its decompressor
	open bool         // zr has been reset onto src for this body
	end  [1]byte      // for reading past the last byte, to check the trailer
}

var plainBodies = sync.Pool{New: func() any { return new(plainBody) }}

// Decompression counters, for tests: streams started (gzip reader resets)
// and XML bytes inflated by plain responses since the process started.
var plainStreams, plainInflated atomic.Int64

// errCorrupt means a cached document's gzip bytes do not decompress, or
// not to the length recorded for it.
var errCorrupt = errors.New("cached page does not decompress")

var errLonger = errors.New("more bytes than its recorded length")

// getPlainBody returns a pooled plainBody over e's XML, at its start.
func getPlainBody(e *entry) *plainBody {
	b := plainBodies.Get().(*plainBody)
	b.gz, b.size, b.pos, b.out, b.err, b.open = e.gz, e.size, 0, 0, nil, false
	return b
}

// putPlainBody returns b to the pool; b must no longer be in use. It keeps
// its decompressor but lets go of the entry's bytes.
func putPlainBody(b *plainBody) {
	b.gz = nil
	b.src.Reset(nil)
	plainBodies.Put(b)
}

// Seek sets the position of the next Read, without decompressing.
func (b *plainBody) Seek(offset int64, whence int) (int64, error) {
	pos, err := respond.SeekTo(offset, whence, b.pos, b.size)
	if err == nil {
		b.pos = pos
	}
	return pos, err
}

// Read decompresses into p from the position Seek set.
func (b *plainBody) Read(p []byte) (int, error) {
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
	plainInflated.Add(int64(n))
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
func (b *plainBody) reach() error {
	if !b.open || b.out > b.pos {
		plainStreams.Add(1)
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
		plainInflated.Add(n)
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	return nil
}

// fail records the first decompression error.
func (b *plainBody) fail(err error) error {
	b.err = fmt.Errorf("%w: at byte %d of %d: %w", errCorrupt, b.out, b.size, err)
	return b.err
}

// plainCopy is a document's XML decompressed whole, kept with its cached
// entry once the document is asked for as plain XML often (plainHot):
// from then on, a plain 200 is one write of it, as a gzip one is, and
// costs no decompression. It is made from the entry's own bytes and
// checked against their trailer, goes with the entry (a new build, a
// revalidation, an Invalidate or an eviction drops it), is served under
// the entry's ETag and Last-Modified, and is counted in the cache's byte
// budget, where copies take a quarter at most (pageCache.copyBudget).
type plainCopy struct {
	xml    []byte
	length []string // the Content-Length header value of xml
}

// plainHot is how many full plain GETs of a cached entry are served by
// decompressing before the next makes it a plain copy: a document asked
// for once, as most crawlers ask for a page, costs no copy.
const plainHot = 2

// errNoCopy means a plain copy is not to be made: the cache would not
// keep it.
var errNoCopy = errors.New("no room for a plain copy")

// plainCopyOf returns e's plain copy, or nil to stream the response. For
// a full GET (full: no precondition and no Range) past the first plainHot
// of e, it makes the copy, once, if admit says the cache keeps it; keep
// stores it in e and counts it, or declines (and then this request alone
// is served from it). A failure to decompress makes no copy: the
// streamed response then meets it and fails as plainBody says.
func plainCopyOf(e *entry, full bool, admit func() bool, keep func(*plainCopy)) *plainCopy {
	if p := e.plain.Load(); p != nil {
		return p
	}
	if !full || e.plainGets.Add(1) <= plainHot || !admit() {
		return nil
	}
	p, _ := madeOnce(&e.plain, &e.plainMu, func() (*plainCopy, error) {
		if !admit() { // checked again under plainMu: the waiters of a copy the cache declined make none
			return nil, errNoCopy
		}
		return inflate(e)
	}, keep)
	return p
}

// inflate decompresses e's XML whole, checking the gzip trailer.
func inflate(e *entry) (*plainCopy, error) {
	if e.size <= 0 {
		return nil, errNoCopy
	}
	b := getPlainBody(e)
	defer putPlainBody(b)
	xml := make([]byte, e.size)
	if _, err := io.ReadFull(b, xml); err != nil || b.err != nil {
		return nil, cmp.Or(b.err, err)
	}
	return &plainCopy{xml: xml, length: []string{strconv.FormatInt(e.size, 10)}}, nil
}

// The plain-text form of a page (/sitemap-SECTION-N.txt), which the
// protocol allows: UTF-8, one URL a line, the same limits. It is made from
// the page's cached XML, not from the Source, on the first request for it:
// it holds exactly the URLs the XML holds (those that passed every rule),
// costs no Source read, and shares the page's content clock. It is kept
// with the page's entry and counted in the cache's budget.

// textOf returns the text form of e, made once: the first call makes it
// and gives it to attach, which stores it in e.text.
func textOf(e *entry, level int, attach func(t *entry)) (*entry, error) {
	return madeOnce(&e.text, &e.textMu, func() (*entry, error) {
		gz, sum, err := compress(level, func(w io.Writer) error { return readback.Text(w, e.gz) })
		if err != nil {
			return nil, err
		}
		return newEntry(gz, sum, level, e.lastMod, e.built), nil
	}, attach)
}
