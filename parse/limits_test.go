package parse

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
)

// generator streams head, then body repeated until at least size bytes,
// then tail, without holding the document.
type generator struct {
	head, body, tail string
	size, n          int64
	pending          string
}

func (g *generator) Read(p []byte) (int, error) {
	if g.pending == "" {
		switch {
		case g.n == 0:
			g.pending = g.head
		case g.n < g.size:
			g.pending = g.body
		case g.tail != "":
			g.pending, g.tail = g.tail, ""
		default:
			return 0, io.EOF
		}
	}
	n := copy(p, g.pending)
	g.pending = g.pending[n:]
	g.n += int64(n)
	return n, nil
}

const imageNS = `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">` + "\n"

// lastErr ranges over seq and returns the entries read and the last error.
func lastErr[T any](t *testing.T, seq func(func(T, error) bool)) (n int, err error) {
	t.Helper()
	for _, e := range seq {
		if e != nil {
			if err != nil {
				t.Fatalf("yield after the error %v: %v", err, e)
			}
			err = e
			continue
		}
		n++
	}
	return n, err
}

// allocated returns the bytes allocated while f runs.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestTooLarge: a 51 MB document of fewer than 50,000 URLs stops at the
// 52,428,800th byte, having read every URL before it.
func TestTooLarge(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("51 MB parse: slow under -race or -short")
	}
	body := "<url><loc>https://example.com/p</loc><image:image><image:loc>https://example.com/i.jpg</image:loc><image:caption>" +
		strings.Repeat("c", 1000) + "</image:caption></image:image></url>\n"
	g := &generator{head: head[:39] + imageNS, body: body, tail: "</urlset>\n", size: 51 << 20}
	n, err := lastErr(t, URLs(g, Limits{}))
	if !errors.Is(err, ErrTooLarge) || errors.Is(err, ErrInvalid) {
		t.Fatalf("error %v, want ErrTooLarge", err)
	}
	if want := (52_428_800 - len(g.head)) / len(body); n != want {
		t.Errorf("%d URLs before the limit, want %d", n, want)
	}
	if g.n > 52_428_800+64<<10 {
		t.Errorf("read %d bytes of the source", g.n)
	}
	t.Log(err)
}

// gzipped compresses a generated document.
func gzipped(t testing.TB, g *generator) []byte {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if _, err := io.Copy(zw, g); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	return b.Bytes()
}

// TestGzipBombs: small gzip files that inflate to a huge text node or past
// the byte limit stop with an error, quickly and in bounded memory.
func TestGzipBombs(t *testing.T) {
	if raceEnabled {
		t.Skip("60 MB inflate: slow under -race")
	}
	for _, tc := range []struct {
		name string
		g    *generator
		is   error
	}{
		{"text node", &generator{head: head + "<url><loc>", body: strings.Repeat("a", 64<<10), tail: "</loc></url></urlset>", size: 64 << 20}, ErrTextTooBig},
		{"comments", &generator{head: head, body: "<!--" + strings.Repeat("-x", 15<<10) + "-->\n", tail: "</urlset>", size: 60 << 20}, ErrTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bomb := gzipped(t, tc.g)
			t.Logf("%d bytes of gzip for %d of XML", len(bomb), tc.g.n)
			var err error
			start := time.Now()
			alloc := allocated(func() { _, err = lastErr(t, URLs(bytes.NewReader(bomb), Limits{})) })
			if !errors.Is(err, tc.is) {
				t.Fatalf("error %v, want %v", err, tc.is)
			}
			if alloc > 8<<20 {
				t.Errorf("allocated %d bytes", alloc)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %v", d)
			}
			t.Logf("%v in %v, %d bytes allocated", err, time.Since(start), alloc)
		})
	}
}

// TestTooMany: 50,001 URLs are an error after the 50,000th; Limits moves
// the bound either way or lifts it.
func TestTooMany(t *testing.T) {
	doc := head + strings.Repeat("<url><loc>https://example.com/</loc></url>\n", 50_001) + "</urlset>\n"
	for _, tc := range []struct {
		max, want int
		is        error
	}{
		{0, 50_000, ErrTooMany},
		{10, 10, ErrTooMany},
		{60_000, 50_001, nil},
		{-1, 50_001, nil},
	} {
		n, err := lastErr(t, URLs(strings.NewReader(doc), Limits{MaxEntries: tc.max}))
		if n != tc.want || !errors.Is(err, tc.is) || (tc.is == nil) != (err == nil) {
			t.Errorf("MaxEntries %d: %d URLs, %v; want %d, %v", tc.max, n, err, tc.want, tc.is)
		}
		if err != nil && err.(*Error).Line != tc.want+3 {
			t.Errorf("error at line %d", err.(*Error).Line)
		}
	}
	idx := `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + strings.Repeat("<sitemap><loc>https://example.com/s.xml</loc></sitemap>", 3) + "</sitemapindex>"
	if n, err := lastErr(t, Index(strings.NewReader(idx), Limits{MaxEntries: 2})); n != 2 || !errors.Is(err, ErrTooMany) {
		t.Errorf("index: %d, %v", n, err)
	}
}

// TestTextLimit: a 1 MB text node is refused by default and read with a
// larger MaxText; a text split by comments counts whole.
func TestTextLimit(t *testing.T) {
	big := strings.Repeat("a", 1<<20)
	doc := head + "<url><loc>https://example.com/" + big + "</loc></url></urlset>"
	if _, err := lastErr(t, URLs(strings.NewReader(doc), Limits{})); !errors.Is(err, ErrTextTooBig) || err.(*Error).Line != 3 {
		t.Errorf("1 MB text: %v", err)
	}
	urls, errs := collect(URLs(strings.NewReader(doc), Limits{MaxText: 2 << 20}))
	if len(errs) > 0 || len(urls) != 1 || len(urls[0].Loc) != len("https://example.com/")+1<<20 {
		t.Errorf("MaxText 2 MiB: %d URLs, %v", len(urls), errs)
	}
	split := head + "<url><loc>" + strings.Repeat(strings.Repeat("b", 1000)+"<!---->", 40) + "</loc></url></urlset>"
	if _, err := lastErr(t, URLs(strings.NewReader(split), Limits{})); !errors.Is(err, ErrTextTooBig) {
		t.Errorf("split text: %v", err)
	}
	tag := head + "<url " + strings.Repeat(`a="1" `, 10000) + "/></urlset>"
	if _, err := lastErr(t, URLs(strings.NewReader(tag), Limits{})); !errors.Is(err, ErrTextTooBig) {
		t.Errorf("long tag: %v", err)
	}
}

// TestDepth: unknown elements are skipped up to 32 levels deep in all.
func TestDepth(t *testing.T) {
	nest := func(n int) string {
		return head + "<url><loc>https://example.com/</loc>" + strings.Repeat("<x>", n) + strings.Repeat("</x>", n) + "</url></urlset>"
	}
	if urls, errs := parseString(nest(maxDepth - 2)); len(errs) > 0 || len(urls) != 1 {
		t.Errorf("depth %d: %v", maxDepth, errs)
	}
	if _, err := lastErr(t, URLs(strings.NewReader(nest(maxDepth-1)), Limits{})); !errors.Is(err, ErrTooDeep) {
		t.Errorf("depth %d: %v", maxDepth+1, err)
	}
	if _, err := lastErr(t, URLs(strings.NewReader(nest(1_000_000)), Limits{})); !errors.Is(err, ErrTooDeep) {
		t.Errorf("depth 1,000,002: %v", err)
	}
}

// TestMaxBytes: the byte limit counts uncompressed bytes, plain or gzip.
func TestMaxBytes(t *testing.T) {
	doc := head + strings.Repeat("<url><loc>https://example.com/</loc></url>\n", 100) + "</urlset>\n"
	for _, in := range [][]byte{[]byte(doc), gzipped(t, &generator{head: doc, size: 1})} {
		if n, err := lastErr(t, URLs(bytes.NewReader(in), Limits{MaxBytes: int64(len(doc))})); n != 100 || err != nil {
			t.Errorf("exactly at the limit: %d, %v", n, err)
		}
		if _, err := lastErr(t, URLs(bytes.NewReader(in), Limits{MaxBytes: int64(len(doc) - 1)})); !errors.Is(err, ErrTooLarge) {
			t.Errorf("one byte over: %v", err)
		}
	}
}
