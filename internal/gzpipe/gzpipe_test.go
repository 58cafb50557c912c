package gzpipe

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/freshmap/sitemap/internal/testkit"
	"github.com/klauspost/compress/gzip"
)

func TestGzipPipe(t *testing.T) {
	data := bytes.Repeat([]byte("<url><loc>https://example.com/a?b=1&amp;c=2</loc></url>\n"), 20_000) // ~1 MB
	for _, sizes := range [][]int{{len(data)}, {1, 7, ChunkSize - 1, ChunkSize, ChunkSize + 1, 3 * ChunkSize}, {32 << 10}} {
		for round := range 3 { // pooled pipes are reused
			var out bytes.Buffer
			h := xxhash.New()
			p := New(&out, 6, h)
			rest := data
			for i := 0; len(rest) > 0; i++ {
				k := min(sizes[i%len(sizes)], len(rest))
				if n, err := p.Write(rest[:k]); n != k || err != nil {
					t.Fatalf("Write = %d, %v", n, err)
				}
				rest = rest[k:]
			}
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			if got := testkit.Gunzip(t, out.Bytes()); !bytes.Equal(got, data) {
				t.Fatalf("sizes %v round %d: round trip lost bytes (%d of %d)", sizes, round, len(got), len(data))
			}
			if h.Sum64() != xxhash.Sum64(data) {
				t.Errorf("sizes %v round %d: hash of the uncompressed bytes is wrong", sizes, round)
			}
		}
	}
}

type brokenSink struct{ err error }

func (f brokenSink) Write([]byte) (int, error) { return 0, f.err }

func TestGzipPipeWriteError(t *testing.T) {
	errDisk := errors.New("disk full")
	p := New(brokenSink{errDisk}, 1, nil)
	for range 10 {
		p.Write(bytes.Repeat([]byte("x"), ChunkSize))
	}
	if err := p.Close(); !errors.Is(err, errDisk) {
		t.Errorf("Close = %v, want the writer's error", err)
	}
}

func TestGzipPool(t *testing.T) {
	for _, level := range []int{gzip.HuffmanOnly, gzip.BestSpeed, gzip.DefaultCompression, gzip.BestCompression} {
		for range 2 { // the second round gets the writer back from the pool
			var buf bytes.Buffer
			z := Get(&buf, level)
			z.Write([]byte("hello, sitemap"))
			if err := z.Close(); err != nil {
				t.Fatal(err)
			}
			Put(z, level)
			r, err := gzip.NewReader(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if b, err := io.ReadAll(r); err != nil || string(b) != "hello, sitemap" {
				t.Errorf("level %d: read back %q, %v", level, b, err)
			}
		}
	}
}

// TestGzipPipeOneCore: with GOMAXPROCS 1 there is no second core to
// overlap with, so a large stream is compressed inline, without the
// compressor goroutine; with 2 it starts past pipeInline bytes.
func TestGzipPipeOneCore(t *testing.T) {
	data := bytes.Repeat([]byte("<url><loc>https://example.com/a</loc></url>\n"), 20_000) // ~0.9 MB
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for procs, wantStarted := range map[int]bool{1: false, 2: true} {
		runtime.GOMAXPROCS(procs)
		var out bytes.Buffer
		p := New(&out, 6, nil)
		p.Write(data)
		if p.started != wantStarted {
			t.Errorf("GOMAXPROCS %d: compressor goroutine started %v, want %v", procs, p.started, wantStarted)
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		if got := testkit.Gunzip(t, out.Bytes()); !bytes.Equal(got, data) {
			t.Fatalf("GOMAXPROCS %d: round trip lost bytes (%d of %d)", procs, len(got), len(data))
		}
	}
}
