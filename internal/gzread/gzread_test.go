package gzread

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
)

func gz(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write([]byte(s)); err != nil || w.Close() != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestBody: a Body reads what its bytes decompress to from where Seek
// put it; seeking to learn the size decompresses nothing.
func TestBody(t *testing.T) {
	text := strings.Repeat("0123456789", 1000)
	b := Get(gz(t, text), int64(len(text)))
	defer Put(b)
	streams := Streams.Load()
	if end, err := b.Seek(0, io.SeekEnd); err != nil || end != int64(len(text)) {
		t.Fatalf("Seek to the end: %d, %v", end, err)
	}
	if _, err := b.Seek(4995, io.SeekStart); err != nil || Streams.Load() != streams {
		t.Fatalf("Seek: %v; %d streams started, want none", err, Streams.Load()-streams)
	}
	got := make([]byte, 10)
	if _, err := io.ReadFull(b, got); err != nil || string(got) != text[4995:5005] {
		t.Errorf("read %q, %v; want %q", got, err, text[4995:5005])
	}
	if _, err := b.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if all, err := io.ReadAll(b); err != nil || string(all) != text || b.Err() != nil {
		t.Errorf("read %d bytes, %v (%v); want all %d", len(all), err, b.Err(), len(text))
	}
}

// TestBodyCorrupt: bytes that do not decompress to the recorded length
// fail with ErrCorrupt, kept in Err.
func TestBodyCorrupt(t *testing.T) {
	z := gz(t, "hello, world")
	for name, tc := range map[string]struct {
		gz   []byte
		size int64
	}{
		"longer":    {z, 5},
		"shorter":   {z, 50},
		"truncated": {z[:len(z)-6], 12},
		"garbage":   {[]byte("not gzip at all, not at all"), 12},
	} {
		b := Get(tc.gz, tc.size)
		_, err := io.ReadAll(b)
		if !errors.Is(err, ErrCorrupt) || !errors.Is(b.Err(), ErrCorrupt) {
			t.Errorf("%s: %v (Err %v), want ErrCorrupt", name, err, b.Err())
		}
		Put(b)
	}
}
