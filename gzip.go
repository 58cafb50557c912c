package sitemap

import (
	"bytes"
	"io"
	"sync"

	"github.com/cespare/xxhash/v2"
	"github.com/freshmap/sitemap/internal/gzpipe"
)

// bufPool holds the buffers builds compress into; big ones are dropped.
var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPooledBuf = 8 << 20

// compress runs write into a gzip stream at level and returns the gzip
// bytes (a copy of exact size) and the xxhash of the uncompressed bytes.
// An error of write, or a panic, leaves nothing behind.
func compress(level int, write func(w io.Writer) error) ([]byte, uint64, error) {
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		if buf.Cap() <= maxPooledBuf {
			bufPool.Put(buf)
		}
	}()
	h := xxhash.New()
	err := func() (err error) {
		zw := gzpipe.New(buf, level, h)
		defer func() { // also when write panics: the compressor must stop
			if cerr := zw.Close(); err == nil {
				err = cerr
			}
		}()
		return write(zw)
	}()
	if err != nil {
		return nil, 0, err
	}
	return bytes.Clone(buf.Bytes()), h.Sum64(), nil
}
