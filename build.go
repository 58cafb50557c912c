package sitemap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"
)

// errEmptyPage means a page had no URL to write: an empty <urlset> is not
// valid, so such a page does not exist (404).
var errEmptyPage = errors.New("sitemap: page has no valid URL")

// pageSpec says how to write the pages of one section.
type pageSpec struct {
	kind     docKind
	base     string // location rule prefix for loc; "" for none
	maxURLs  int    // 0 means MaxURLs
	maxBytes int64  // 0 means MaxBytes
	ext      Extensions
	// strict fails the page on the first URL that breaks a rule or does not
	// fit, instead of skipping it.
	strict bool
	// report is told about every URL not written, with why. Nil drops the
	// report (the serving layer always sets one).
	report func(loc string, err error)
}

// pageStats describes a page that was written.
type pageStats struct {
	urls     int
	bytes    int64 // uncompressed
	rejected int
	newest   time.Time // newest lastmod written; zero if none
}

// ctxCheckEvery is how many URLs pass between checks of ctx.
const ctxCheckEvery = 256

var encoderPool = sync.Pool{New: func() any { return &encoder{buf: make([]byte, 0, 2*flushAt)} }}

// encodePage streams page n of src through an encoder into w. Any error of
// the source or of w, and a cancelled ctx, fails the whole page: the
// caller must then discard what w received.
func encodePage(ctx context.Context, src Source, n int64, w io.Writer, spec *pageSpec) (st pageStats, err error) {
	e := encoderPool.Get().(*encoder)
	defer func() {
		if cap(e.buf) <= 4*flushAt {
			e.w = nil
			encoderPool.Put(e)
		}
	}()
	e.reset(w, spec.kind, spec.ext, spec.base, spec.maxURLs, spec.maxBytes)
	i := 0
	for u, err := range src.URLs(ctx, n) {
		if err != nil {
			return st, fmt.Errorf("sitemap: reading page %d: %w", n, err)
		}
		if i++; i%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return st, err
			}
		}
		if err := e.add(&u); err != nil {
			var bad *InvalidURLError
			if !errors.As(err, &bad) && !errors.Is(err, ErrPageFull) {
				return st, err // the writer failed
			}
			st.rejected++
			if spec.report != nil {
				spec.report(u.Loc, err)
			}
			if spec.strict {
				return st, err
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return st, err
	}
	if e.count == 0 {
		return st, errEmptyPage
	}
	if err := e.close(); err != nil {
		return st, err
	}
	st.urls, st.bytes, st.newest = e.count, e.size(), e.newest
	return st, nil
}

// gzipPools holds idle gzip writers, one pool per compression level from
// gzip.HuffmanOnly (-2) to gzip.BestCompression (9).
var gzipPools [gzip.BestCompression - gzip.HuffmanOnly + 1]sync.Pool

// getGzip returns a pooled gzip writer at level, reset to write to w.
// The level must be valid (checked in New).
func getGzip(w io.Writer, level int) *gzip.Writer {
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

func putGzip(z *gzip.Writer, level int) {
	gzipPools[level-gzip.HuffmanOnly].Put(z)
}
