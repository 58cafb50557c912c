// Package testkit holds the small test doubles that the tests of several
// packages share: a settable clock for Config.Now, and a log sink that a
// server's goroutines write while the test reads it; Gunzip and
// GunzipMember; and a reader that counts the bytes read.
package testkit

import (
	"bytes"
	"compress/gzip"
	"io"
	"sync"
	"testing"
	"time"
)

// Clock is a clock that moves only when told to. Its Now is safe to call
// from any goroutine.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a Clock set to t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Add moves the clock by d.
func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// SyncBuffer is a bytes.Buffer that goroutines may write while another
// reads it, such as a slog handler's output.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what was written so far.
func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Gunzip returns the data of the gzip file b, failing t if b is not one.
func Gunzip(t testing.TB, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not gzip: %v", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("bad gzip: %v", err)
	}
	return out
}

// GunzipMember returns the data of the one gzip member gz is, failing t
// if gz is not one, or if anything follows it: a sitemap's file, or a
// segment spliced into one, must be a single member.
func GunzipMember(t testing.TB, gz []byte) []byte {
	t.Helper()
	r := bytes.NewReader(gz) // a ByteReader: the gzip reader reads no byte past the member
	zr, err := gzip.NewReader(r)
	if err != nil {
		t.Fatalf("not gzip: %v", err)
	}
	zr.Multistream(false)
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("bad gzip: %v", err)
	}
	if r.Len() != 0 {
		t.Fatalf("%d bytes after the gzip member", r.Len())
	}
	return out
}

// CountingReader counts the bytes read from R.
type CountingReader struct {
	R io.Reader
	N int64
}

func (c *CountingReader) Read(p []byte) (int, error) {
	n, err := c.R.Read(p)
	c.N += int64(n)
	return n, err
}
