package sitemap

import (
	"bytes"
	"context"
	"errors"
	"io"
	"iter"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
)

// failingSource yields the URLs of good, then err.
func failingSource(err error, good ...URL) Source {
	return SourceFunc{URLsFunc: func(context.Context, int64) iter.Seq2[URL, error] {
		return func(yield func(URL, error) bool) {
			for _, u := range good {
				if !yield(u, nil) {
					return
				}
			}
			yield(URL{}, err)
		}
	}}
}

func TestEncodePageErrors(t *testing.T) {
	errDB := errors.New("connection reset")
	valid := numbered(3)
	for _, tc := range []struct {
		name     string
		src      Source
		spec     pageSpec
		want     error
		reported int
	}{
		{"source fails first", failingSource(errDB), pageSpec{}, errDB, 0},
		{"source fails halfway", failingSource(errDB, valid...), pageSpec{}, errDB, 0},
		{"source fails after a rejection", failingSource(errDB, URL{Loc: "/bad"}, valid[0]), pageSpec{}, errDB, 1},
		{"source fails when the page is full", failingSource(errDB, valid...), pageSpec{maxURLs: 1}, errDB, 2},
		{"no URL", listSource(), pageSpec{}, errEmptyPage, 0},
		{"no valid URL", listSource(URL{Loc: "/a"}, URL{Loc: "ftp://example.com/b"}), pageSpec{}, errEmptyPage, 2},
		// Strict mode reports the URL that fails the page, then stops.
		{"strict: an invalid URL fails the page", listSource(valid[0], URL{Loc: "/bad"}, valid[1]), pageSpec{strict: true}, errNotAbsolute, 1},
		{"strict: a full page fails", listSource(valid...), pageSpec{strict: true, maxURLs: 2}, ErrPageFull, 1},
		{"strict: too many bytes fail", listSource(valid...), pageSpec{strict: true, maxBytes: 200}, ErrPageFull, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.spec.kind, tc.spec.base = kindURLSet, testBase
			r := encodeSpec(t, tc.src, tc.spec)
			if !errors.Is(r.err, tc.want) {
				t.Fatalf("err %v, want %v", r.err, tc.want)
			}
			if errors.Is(tc.want, errDB) && !strings.HasPrefix(r.err.Error(), "sitemap: reading page 1: ") {
				t.Errorf("error %q does not say which page failed", r.err)
			}
			if len(r.rejected) != tc.reported {
				t.Errorf("%d reported (%v), want %d", len(r.rejected), r.rejected, tc.reported)
			}
		})
	}
}

func TestEncodePageStrictAccepts(t *testing.T) {
	r := encodeSpec(t, listSource(numbered(3)...), pageSpec{kind: kindURLSet, base: testBase, strict: true, maxURLs: 3})
	if r.err != nil || r.st.urls != 3 {
		t.Fatalf("err %v, %d written", r.err, r.st.urls)
	}
}

func TestEncodePageNilReport(t *testing.T) {
	spec := pageSpec{kind: kindURLSet, base: testBase, maxURLs: 1}
	var buf bytes.Buffer
	st, err := encodePage(context.Background(), listSource(URL{Loc: "/bad"}, URL{Loc: anchorLoc}, URL{Loc: anchorLoc}), 1, &buf, &spec)
	if err != nil || st.urls != 1 || st.rejected != 2 {
		t.Fatalf("err %v, stats %+v", err, st)
	}
}

func TestEncodePageStats(t *testing.T) {
	newest := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	r := encodeURLs(t,
		URL{Loc: testBase + "a", LastMod: newest.Add(-time.Hour)},
		URL{Loc: testBase + "b", LastMod: newest.In(time.FixedZone("x", -7200))},
		URL{Loc: "/rejected", LastMod: newest.Add(time.Hour)},
		URL{Loc: testBase + "c"},
		URL{Loc: testBase + "d", LastMod: day(9999, 1, 1), Priority: new(2.0)}, // rejected: its lastmod does not count
	)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.st.urls != 3 || r.st.rejected != 2 || !r.st.newest.Equal(newest) {
		t.Errorf("stats %+v; want 3 written, 2 rejected, newest %v", r.st, newest)
	}
}

// TestEncodePageCancel cancels the context while the source still yields:
// the page fails and the source is stopped soon after.
func TestEncodePageCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	yielded := 0
	src := SourceFunc{URLsFunc: func(context.Context, int64) iter.Seq2[URL, error] {
		return func(yield func(URL, error) bool) {
			for i := range 100_000 {
				if i == 1000 {
					cancel()
				}
				yielded++
				if !yield(URL{Loc: testBase + strconv.Itoa(i)}, nil) {
					return
				}
			}
		}
	}}
	spec := pageSpec{kind: kindURLSet, base: testBase}
	_, err := encodePage(ctx, src, 1, io.Discard, &spec)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err %v, want context.Canceled", err)
	}
	if yielded > 1000+ctxCheckEvery {
		t.Errorf("the source yielded %d URLs after the cancel", yielded-1000)
	}

	// cancelled before the last check: even a short page fails
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	if _, err := encodePage(ctx, listSource(URL{Loc: anchorLoc}), 1, io.Discard, &spec); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: err %v, want context.Canceled", err)
	}
}

// TestEncodePageAllocs checks that building a page allocates the same
// whatever its number of URLs: nothing is allocated per URL.
func TestEncodePageAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	urls := benchURLs(10_000)
	allocs := func(n int, gz bool) float64 {
		src := FromSlice(urls[:n], 0)
		spec := pageSpec{kind: kindURLSet, base: benchBase}
		return testing.AllocsPerRun(20, func() {
			var w io.Writer = io.Discard
			var z *gzip.Writer
			if gz {
				z = getGzip(io.Discard, gzip.DefaultCompression)
				w = z
			}
			if _, err := encodePage(context.Background(), src, 1, w, &spec); err != nil {
				t.Fatal(err)
			}
			if gz {
				z.Close()
				putGzip(z, gzip.DefaultCompression)
			}
		})
	}
	for _, gz := range []bool{false, true} {
		small, large := allocs(10, gz), allocs(10_000, gz)
		t.Logf("gzip %v: %v allocations for 10 URLs, %v for 10,000", gz, small, large)
		if large > small {
			t.Errorf("gzip %v: %v allocations for 10 URLs but %v for 10,000", gz, small, large)
		}
		if small > 10 {
			t.Errorf("gzip %v: %v allocations per page, want at most 10", gz, small)
		}
	}
}

func TestGzipPool(t *testing.T) {
	for _, level := range []int{gzip.HuffmanOnly, gzip.BestSpeed, gzip.DefaultCompression, gzip.BestCompression} {
		for range 2 { // the second round gets the writer back from the pool
			var buf bytes.Buffer
			z := getGzip(&buf, level)
			z.Write([]byte("hello, sitemap"))
			if err := z.Close(); err != nil {
				t.Fatal(err)
			}
			putGzip(z, level)
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
