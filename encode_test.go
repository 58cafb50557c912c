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

	"github.com/freshmap/sitemap/internal/gzpipe"
	"github.com/freshmap/sitemap/internal/xmlenc"
	"github.com/freshmap/sitemap/internal/xsdcheck"
	"github.com/klauspost/compress/gzip"
)

// checkFull checks that r wrote exactly the first written URLs of urls
// and reported each of the others with ErrPageFull, in order.
func checkFull(t *testing.T, r result, urls []URL, written int) {
	t.Helper()
	if r.err != nil {
		t.Fatalf("encodePage: %v", r.err)
	}
	if r.st.urls != written {
		t.Errorf("%d URLs written, want %d", r.st.urls, written)
	}
	if r.st.urls+len(r.rejected) != len(urls) {
		t.Errorf("%d written + %d rejected != %d given", r.st.urls, len(r.rejected), len(urls))
	}
	for i, rej := range r.rejected {
		if want := urls[written+i].Loc; rej.loc != want || !errors.Is(rej.err, ErrPageFull) {
			t.Fatalf("rejection %d: %q %v, want %q ErrPageFull", i, rej.loc, rej.err, want)
		}
	}
	if last := urls[max(written, 1)-1].Loc; written > 0 && !bytes.Contains(r.doc, []byte("<loc>"+last+"</loc>")) && !bytes.HasSuffix(r.doc, []byte("\n"+last+"\n")) {
		t.Errorf("the last URL that fits, %s, is missing", urls[written-1].Loc)
	}
}

// TestPageSize: a page holds what its Source yields up to the page size;
// one URL more fails the page there, with nothing reported for it
// (TestPageOverSize serves such a page).
func TestPageSize(t *testing.T) {
	urls := numbered(MaxURLs + 1)
	for _, tc := range []struct {
		name    string
		maxURLs int
		given   int
		written int // -1: the page fails
	}{
		{"under", 3, 2, 2},
		{"exactly", 3, 3, 3},
		{"over", 3, 5, -1},
		{"one", 1, 4, -1},
		{"zero means 50,000", 0, MaxURLs, MaxURLs},
		{"zero means 50,000, over", 0, MaxURLs + 1, -1},
		{"negative means 50,000", -1, MaxURLs + 1, -1},
		{"never above 50,000", MaxURLs + 10, MaxURLs + 1, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := encodeSpec(t, listSource(urls[:tc.given]...), pageSpec{base: testBase, maxURLs: tc.maxURLs})
			if tc.written >= 0 {
				checkFull(t, r, urls[:tc.given], tc.written)
				return
			}
			want := "reading page 1: more URLs than the section's page size, " + strconv.Itoa(min(max(tc.maxURLs, 0), MaxURLs))
			if tc.maxURLs <= 0 {
				want = want[:len(want)-1] + "50000"
			}
			if !errors.Is(r.err, errOverPageSize) || r.err.Error() != want || len(r.rejected) > 0 {
				t.Errorf("err %v, %d rejected; want %q and none rejected", r.err, len(r.rejected), want)
			}
		})
	}
}

// TestPageSizeCountsEveryURL: the page size bounds the URLs a Source
// yields, invalid ones too, so that reports are bounded as well.
func TestPageSizeCountsEveryURL(t *testing.T) {
	urls := []URL{{Loc: testBase + "1"}, {Loc: "/invalid"}, {Loc: testBase + "2"}}
	r := encodeSpec(t, listSource(urls[:2]...), pageSpec{base: testBase, maxURLs: 2})
	if r.err != nil || r.st.urls != 1 || len(r.rejected) != 1 {
		t.Fatalf("err %v, %d written, rejected %v", r.err, r.st.urls, r.rejected)
	}
	var bad *InvalidURLError
	if !errors.As(r.rejected[0].err, &bad) || r.rejected[0].loc != "/invalid" {
		t.Errorf("rejection %v, want the invalid URL", r.rejected[0])
	}
	if r := encodeSpec(t, listSource(urls...), pageSpec{base: testBase, maxURLs: 2}); !errors.Is(r.err, errOverPageSize) {
		t.Errorf("three URLs for a page of two, one invalid: err %v, want the page size", r.err)
	}
}

func TestByteLimit(t *testing.T) {
	urls := []URL{
		{Loc: testBase + "a", LastMod: day(2024, 1, 1)},
		{Loc: testBase + "b?" + strings.Repeat("x", 500)},
		{Loc: testBase + "c"},
		{Loc: testBase + "d"},
	}
	size := func(urls ...URL) int64 { // the size of a document of urls, with no limit
		r := encodeURLs(t, urls...)
		if r.err != nil || len(r.rejected) > 0 {
			t.Fatal(r.err, r.rejected)
		}
		return r.st.bytes
	}
	s1, s2, s4 := size(urls[0]), size(urls[:2]...), size(urls...)
	for _, tc := range []struct {
		name     string
		maxBytes int64
		written  int
	}{
		{"no limit", 0, 4},
		{"exactly four", s4, 4},
		{"a byte short of four", s4 - 1, 3},
		{"exactly two", s2, 2},
		{"a byte short of two", s2 - 1, 1}, // and c would fit, but the page stays full
		{"exactly one", s1, 1},
		{"not even one", s1 - 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := encodeSpec(t, listSource(urls...), pageSpec{base: testBase, ext: extAll, maxBytes: tc.maxBytes})
			if tc.written == 0 {
				if !errors.Is(r.err, errEmptyPage) || len(r.rejected) != len(urls) {
					t.Fatalf("err %v, %d rejected; want errEmptyPage and all rejected", r.err, len(r.rejected))
				}
				return
			}
			checkFull(t, r, urls, tc.written)
			if r.st.bytes > tc.maxBytes && tc.maxBytes > 0 {
				t.Errorf("%d bytes, over the limit of %d", r.st.bytes, tc.maxBytes)
			}
			if !bytes.HasSuffix(r.doc, []byte("</url>\n</urlset>\n")) {
				t.Errorf("document does not end with </urlset>: %q", r.doc[max(0, len(r.doc)-40):])
			}
		})
	}
}

// TestByteLimitReal fills a page up to the real 52,428,800-byte limit with
// URLs heavy with hreflang alternates: the file stays within the limit,
// and every URL that did not fit is reported with ErrPageFull.
func TestByteLimitReal(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("writes and validates a 50 MB document; too slow for -short and -race")
	}
	langs := []string{"x-default", "en", "en-gb", "en-us", "de", "de-at", "de-ch", "fr", "fr-ca", "fr-be",
		"es", "es-419", "it", "nl", "pl", "pt-br", "sv", "da", "fi", "ja", "ko", "zh-hans", "zh-hant", "tr"}
	const given = 20_000 // about 19,000 fit
	alts := make([]Alternate, len(langs))
	src := SourceFunc{URLsFunc: func(context.Context, int64) iter.Seq2[URL, error] {
		return func(yield func(URL, error) bool) {
			var b []byte
			for i := range given {
				// one string holds the page's path and every alternate's href
				b = append(b[:0], "products/category-"...)
				b = strconv.AppendInt(b, int64(i%97), 10)
				b = append(b, "/item-"...)
				b = strconv.AppendInt(b, int64(1_000_000+i), 10)
				pathLen := len(b)
				ends := make([]int, 0, len(langs))
				for _, l := range langs {
					b = append(b, "https://example.com/"...)
					if l != "x-default" { // the x-default page is the page itself
						b = append(b, l...)
						b = append(b, '/')
					}
					b = append(b, b[:pathLen]...)
					ends = append(ends, len(b))
				}
				s, start := string(b), pathLen
				for j, end := range ends {
					alts[j] = Alternate{Hreflang: langs[j], Href: s[start:end]}
					start = end
				}
				if !yield(URL{Loc: testBase + s[:pathLen], LastMod: day(2024, 1, 1), Alternates: alts}, nil) {
					return
				}
			}
		}
	}}
	var rejected, notFull int
	var buf bytes.Buffer
	spec := pageSpec{base: testBase, ext: ExtAlternates, report: func(loc string, err error) {
		rejected++
		if !errors.Is(err, ErrPageFull) {
			notFull++
		}
	}}
	st, err := encodePage(context.Background(), src, 1, &buf, &spec)
	if err != nil {
		t.Fatal(err)
	}
	doc := buf.Bytes()
	entry := int64(len(doc) / st.urls) // about the size of one <url>
	t.Logf("%d URLs of about %d bytes written, %d bytes; %d rejected", st.urls, entry, len(doc), rejected)
	switch {
	case int64(len(doc)) != st.bytes:
		t.Errorf("stats say %d bytes, the document has %d", st.bytes, len(doc))
	case len(doc) > MaxBytes:
		t.Errorf("the document has %d bytes, over %d", len(doc), MaxBytes)
	case int64(len(doc)) < MaxBytes-2*entry:
		t.Errorf("the document has %d bytes: it could have held another URL", len(doc))
	case st.urls >= MaxURLs || rejected == 0:
		t.Fatalf("%d written, %d rejected: the test did not reach the byte limit", st.urls, rejected)
	case st.urls+rejected != given:
		t.Errorf("%d written + %d rejected != %d given", st.urls, rejected, given)
	case notFull > 0:
		t.Errorf("%d rejections were not ErrPageFull", notFull)
	}
	last := "<loc>" + testBase + "products/category-" + strconv.Itoa((st.urls-1)%97) + "/item-" + strconv.Itoa(1_000_000+st.urls-1) + "</loc>"
	if !bytes.Contains(doc[len(doc)-2*int(entry):], []byte(last)) {
		t.Errorf("the last URL written is not URL %d", st.urls)
	}
	if !bytes.HasSuffix(doc, []byte("</url>\n</urlset>\n")) {
		t.Errorf("the document does not end with </urlset>")
	}
	xsdcheck.URLSet(t, doc)
}

// TestDeterministic encodes the same pages twice, in between other
// documents that reuse the pooled encoders, and expects the same bytes.
func TestDeterministic(t *testing.T) {
	rich := []URL{
		{Loc: testBase + "a", LastMod: time.Date(2024, 1, 2, 3, 4, 5, 6, time.FixedZone("x", 3600)), ChangeFreq: Daily, Priority: new(0.3)},
		{Loc: testBase + "b", Images: []Image{{Loc: "https://cdn.example.net/1.jpg", Caption: "c"}}},
		videoURL(func(v *Video) { *v = fullVideo() }),
		newsURL(nil),
		alternatesURL("en", "de", "x-default"),
	}
	specs := []pageSpec{
		{base: testBase, ext: extAll},
		{base: testBase, ext: ExtNone, maxURLs: len(rich)},
	}
	first := make([][]byte, len(specs))
	for round := range 3 {
		for i, spec := range specs {
			r := encodeSpec(t, listSource(rich...), spec)
			if r.err != nil {
				t.Fatal(r.err)
			}
			if round == 0 {
				first[i] = bytes.Clone(r.doc)
			} else if !bytes.Equal(first[i], r.doc) {
				t.Errorf("spec %d, round %d: the bytes differ", i, round)
			}
		}
	}
}

func TestWriteError(t *testing.T) {
	for _, n := range []int{0, 100, 3 * xmlenc.FlushAt} {
		var reported int
		spec := pageSpec{base: testBase, report: func(string, error) { reported++ }}
		_, err := encodePage(context.Background(), FromSlice(numbered(20_000), 0), 1, &failWriter{n: n}, &spec)
		if !errors.Is(err, errWrite) {
			t.Errorf("writer failing after %d bytes: err %v, want %v", n, err, errWrite)
		}
		if reported > 0 {
			t.Errorf("writer failing after %d bytes: %d URLs were reported as rejected", n, reported)
		}
	}
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
		{"source fails after a full page", failingSource(errDB, valid...), pageSpec{maxURLs: 3}, errDB, 0},
		{"a URL past the page size fails the page", failingSource(errDB, valid...), pageSpec{maxURLs: 1}, errOverPageSize, 0},
		{"no URL", listSource(), pageSpec{}, errEmptyPage, 0},
		{"no valid URL", listSource(URL{Loc: "/a"}, URL{Loc: "ftp://example.com/b"}), pageSpec{}, errEmptyPage, 2},
		// Strict mode reports the URL that fails the page, then stops.
		{"strict: an invalid URL fails the page", listSource(valid[0], URL{Loc: "/bad"}, valid[1]), pageSpec{strict: true}, xmlenc.ErrNotAbsolute, 1},
		{"strict: a URL past the page size fails", listSource(valid...), pageSpec{strict: true, maxURLs: 2}, errOverPageSize, 0},
		{"strict: too many bytes fail", listSource(valid...), pageSpec{strict: true, maxBytes: 200}, ErrPageFull, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.spec.base = testBase
			r := encodeSpec(t, tc.src, tc.spec)
			if !errors.Is(r.err, tc.want) {
				t.Fatalf("err %v, want %v", r.err, tc.want)
			}
			if errors.Is(tc.want, errDB) && !strings.HasPrefix(r.err.Error(), "reading page 1: ") {
				t.Errorf("error %q does not say which page failed", r.err)
			}
			if len(r.rejected) != tc.reported {
				t.Errorf("%d reported (%v), want %d", len(r.rejected), r.rejected, tc.reported)
			}
		})
	}
}

func TestEncodePageStrictAccepts(t *testing.T) {
	r := encodeSpec(t, listSource(numbered(3)...), pageSpec{base: testBase, strict: true, maxURLs: 3})
	if r.err != nil || r.st.urls != 3 {
		t.Fatalf("err %v, %d written", r.err, r.st.urls)
	}
}

func TestEncodePageNilReport(t *testing.T) {
	one := encodeSpec(t, listSource(URL{Loc: anchorLoc}), pageSpec{base: testBase}) // room for one URL: the third does not fit
	spec := pageSpec{base: testBase, maxURLs: 3, maxBytes: one.st.bytes}
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
		URL{Loc: testBase + "d", LastMod: day(10000, 1, 1), Priority: new(2.0)}, // written without either: its lastmod does not count
	)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.st.urls != 4 || r.st.rejected != 1 || r.st.corrected != 1 || r.st.notes != 2 || !r.st.newest.Equal(newest) {
		t.Errorf("stats %+v; want 4 written, 1 rejected, 1 corrected with 2 notes, newest %v", r.st, newest)
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
	spec := pageSpec{base: testBase}
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
		spec := pageSpec{base: benchBase}
		return testing.AllocsPerRun(20, func() {
			var w io.Writer = io.Discard
			var z *gzip.Writer
			if gz {
				z = gzpipe.Get(io.Discard, gzip.DefaultCompression)
				w = z
			}
			if _, err := encodePage(context.Background(), src, 1, w, &spec); err != nil {
				t.Fatal(err)
			}
			if gz {
				z.Close()
				gzpipe.Put(z, gzip.DefaultCompression)
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

// TestEncodeSliceInPlace: a FromSlice page, which encodePage reads in
// place, is written as the same URLs through an iterator are: the same
// bytes, stats, rejections and notices; and the slice is not written, not
// even the lastmod in the future that the page clamps to now.
func TestEncodeSliceInPlace(t *testing.T) {
	future := testNow.Add(72 * time.Hour)
	noSelf := alternatesURL("en", "de")
	noSelf.Loc, noSelf.Alternates = testBase+"noself", noSelf.Alternates[1:] // noted
	urls := []URL{
		{Loc: testBase + "a", LastMod: testNow.Add(-time.Hour)},
		{Loc: testBase + "future", LastMod: future},
		{Loc: "ftp://example.com/rejected"},
		noSelf,
		{Loc: testBase + "b?x=1&y='2'"},
	}
	r := encodeSpec(t, FromSlice(urls, 0), pageSpec{base: testBase, ext: extAll, now: testNow})
	want := encodeURLs(t, urls...)
	if r.err != nil || want.err != nil {
		t.Fatal(r.err, want.err)
	}
	if !bytes.Equal(r.doc, want.doc) || r.st != want.st || len(r.rejected) != 1 || len(r.notices) != 1 ||
		r.rejected[0].loc != want.rejected[0].loc || r.rejected[0].err.Error() != want.rejected[0].err.Error() ||
		r.notices[0].loc != want.notices[0].loc || r.notices[0].err.Error() != want.notices[0].err.Error() {
		t.Errorf("from the slice: %s\n%+v %v %v\nthrough an iterator: %s\n%+v %v %v", r.doc, r.st, r.rejected, r.notices,
			want.doc, want.st, want.rejected, want.notices)
	}
	if r.st.future != 1 || !bytes.Contains(r.doc, []byte("<lastmod>2024-06-02T12:00:00Z</lastmod>")) {
		t.Errorf("the future lastmod is not clamped: %+v\n%s", r.st, r.doc)
	}
	if !urls[1].LastMod.Equal(future) || len(urls[3].Alternates) != 1 {
		t.Errorf("the slice was written: %v, %v", urls[1].LastMod, urls[3].Alternates)
	}
}
