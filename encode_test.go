package sitemap

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"iter"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/freshmap/sitemap/internal/xsdcheck"
)

// numbered returns n URLs testBase+"p/0" ... under testBase.
func numbered(n int) []URL {
	urls := make([]URL, n)
	for i := range urls {
		urls[i] = URL{Loc: testBase + "p/" + strconv.Itoa(i)}
	}
	return urls
}

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

func TestPageSize(t *testing.T) {
	urls := numbered(MaxURLs + 1)
	for _, tc := range []struct {
		name    string
		maxURLs int
		given   int
		written int
	}{
		{"under", 3, 2, 2},
		{"exactly", 3, 3, 3},
		{"over", 3, 5, 3},
		{"one", 1, 4, 1},
		{"zero means 50,000", 0, MaxURLs + 1, MaxURLs},
		{"negative means 50,000", -1, MaxURLs + 1, MaxURLs},
		{"never above 50,000", MaxURLs + 10, MaxURLs + 1, MaxURLs},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := encodeSpec(t, listSource(urls[:tc.given]...), pageSpec{kind: kindURLSet, base: testBase, maxURLs: tc.maxURLs})
			checkFull(t, r, urls[:tc.given], tc.written)
		})
	}
}

func TestPageSizeCountsOnlyWrittenURLs(t *testing.T) {
	urls := []URL{{Loc: testBase + "1"}, {Loc: "/invalid"}, {Loc: testBase + "2"}, {Loc: testBase + "3"}}
	r := encodeSpec(t, listSource(urls...), pageSpec{kind: kindURLSet, base: testBase, maxURLs: 2})
	if r.err != nil || r.st.urls != 2 || len(r.rejected) != 2 {
		t.Fatalf("err %v, %d written, rejected %v", r.err, r.st.urls, r.rejected)
	}
	var bad *InvalidURLError
	if !errors.As(r.rejected[0].err, &bad) || r.rejected[0].loc != "/invalid" {
		t.Errorf("first rejection %v, want the invalid URL", r.rejected[0])
	}
	if r.rejected[1].loc != testBase+"3" || !errors.Is(r.rejected[1].err, ErrPageFull) {
		t.Errorf("second rejection %v, want %s3 ErrPageFull", r.rejected[1], testBase)
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
			r := encodeSpec(t, listSource(urls...), pageSpec{kind: kindURLSet, base: testBase, ext: extAll, maxBytes: tc.maxBytes})
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
					b = append(b, l...)
					b = append(b, '/')
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
	spec := pageSpec{kind: kindURLSet, base: testBase, ext: ExtAlternates, report: func(loc string, err error) {
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

// decodeAll reads doc with encoding/xml to its end and returns the number
// of <url> and <sitemap> elements.
func decodeAll(t testing.TB, doc []byte) int {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(doc))
	n := 0
	for {
		tok, err := d.RawToken()
		if err == io.EOF {
			return n
		}
		if err != nil {
			t.Fatalf("the document does not parse: %v", err)
		}
		if s, ok := tok.(xml.StartElement); ok && s.Name.Space == "" && (s.Name.Local == "url" || s.Name.Local == "sitemap") {
			n++
		}
	}
}

func TestIndex(t *testing.T) {
	given := make([]URL, MaxURLs+1)
	for i := range given {
		given[i] = URL{Loc: testBase + "sitemap-" + strconv.Itoa(i+1) + ".xml.gz"}
		if i%2 == 0 {
			given[i].LastMod = time.Date(2024, 1, 1, 0, 0, i, 0, time.UTC)
		}
	}
	r := encodeSpec(t, listSource(given...), pageSpec{kind: kindIndex, base: testBase})
	checkFull(t, r, given, MaxURLs)
	if !bytes.HasPrefix(r.doc, []byte(indexStart+"<sitemap><loc>https://example.com/sitemap-1.xml.gz</loc><lastmod>2024-01-01T00:00:00Z</lastmod></sitemap>\n"+
		"<sitemap><loc>https://example.com/sitemap-2.xml.gz</loc></sitemap>\n")) {
		t.Errorf("index starts %.300q", r.doc)
	}
	if want := given[MaxURLs-2].LastMod; !r.st.newest.Equal(want) { // the last one written with a lastmod
		t.Errorf("newest %v, want %v", r.st.newest, want)
	}
	if n := decodeAll(t, r.doc); n != MaxURLs {
		t.Errorf("decoded %d <sitemap>, want %d", n, MaxURLs)
	}
	xsdcheck.Index(t, r.doc)
}

func TestIndexRules(t *testing.T) {
	for _, tc := range []struct {
		name  string
		u     URL
		field string
		err   error
		want  string
	}{
		{name: "plain", u: URL{Loc: testBase + "s.xml"}, want: "<sitemap><loc>https://example.com/s.xml</loc></sitemap>"},
		{name: "escaped", u: URL{Loc: testBase + "s.xml?a=1&b=ü"}, want: "<sitemap><loc>https://example.com/s.xml?a=1&amp;b=%C3%BC</loc></sitemap>"},
		{name: "other fields ignored", u: URL{Loc: testBase + "s.xml", ChangeFreq: "bad", Priority: new(7.0), LastMod: day(2024, 2, 3), LastModDateOnly: true},
			want: "<sitemap><loc>https://example.com/s.xml</loc><lastmod>2024-02-03T00:00:00Z</lastmod></sitemap>"},
		{name: "other host", u: URL{Loc: "https://example.org/s.xml"}, field: "loc", err: errOutsideBase},
		{name: "relative", u: URL{Loc: "s.xml"}, field: "loc", err: errNotAbsolute},
		{name: "lastmod year 10000", u: URL{Loc: testBase + "s.xml", LastMod: day(10000, 1, 1)}, field: "lastmod", err: errYear},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := encodeSpec(t, listSource(URL{Loc: anchorLoc}, tc.u), pageSpec{kind: kindIndex, base: testBase})
			if r.err != nil {
				t.Fatal(r.err)
			}
			if tc.err != nil {
				checkRejected(t, r, tc.u.Loc, tc.field, tc.err)
				return
			}
			if len(r.rejected) > 0 || !bytes.Contains(r.doc, []byte(tc.want)) {
				t.Errorf("rejected %v; document:\n%s\nwant %s", r.rejected, r.doc, tc.want)
			}
			xsdcheck.Index(t, r.doc)
		})
	}
}

// TestIndexEncoder drives the encoder the way the index builder does.
func TestIndexEncoder(t *testing.T) {
	var buf bytes.Buffer
	var e encoder
	e.reset(&buf, kindIndex, 0, testBase, 2, 0)
	for i, tc := range []struct {
		loc     string
		lastmod time.Time
		err     error
	}{
		{testBase + "sitemap-1.xml.gz", day(2024, 3, 4), nil},
		{testBase + "../sitemap-2.xml.gz", time.Time{}, errDotSegment},
		{testBase + "sitemap-2.xml.gz", time.Time{}, nil},
		{testBase + "sitemap-3.xml.gz", time.Time{}, ErrPageFull},
	} {
		if err := e.addSitemap(tc.loc, tc.lastmod); !errors.Is(err, tc.err) {
			t.Errorf("entry %d: %v, want %v", i, err, tc.err)
		}
	}
	if err := e.close(); err != nil {
		t.Fatal(err)
	}
	want := indexStart + "<sitemap><loc>https://example.com/sitemap-1.xml.gz</loc><lastmod>2024-03-04T00:00:00Z</lastmod></sitemap>\n" +
		"<sitemap><loc>https://example.com/sitemap-2.xml.gz</loc></sitemap>\n" + indexEnd
	if buf.String() != want || e.size() != int64(len(want)) || e.count != 2 {
		t.Errorf("index (%d bytes, %d entries):\n%s\nwant:\n%s", e.size(), e.count, buf.String(), want)
	}
	xsdcheck.Index(t, buf.Bytes())
}

func TestText(t *testing.T) {
	urls := []URL{
		{Loc: testBase + "a?x=1&y='2'", Images: []Image{{Loc: "not checked"}}, Priority: new(9.0)},
		{Loc: "HTTPS://EXAMPLE.COM/ümlat"},
		{Loc: "/relative"},
		{Loc: "https://example.org/a"},
		{Loc: testBase + "b\nc"},
		{Loc: testBase + "d", LastMod: day(10000, 1, 1)}, // not written, so not checked
		{Loc: testBase + "e"},
	}
	r := encodeSpec(t, listSource(urls...), pageSpec{kind: kindText, base: testBase, maxURLs: 4})
	if r.err != nil {
		t.Fatal(r.err)
	}
	want := "https://example.com/a?x=1&y='2'\nhttps://example.com/%C3%BCmlat\nhttps://example.com/d\nhttps://example.com/e\n"
	if string(r.doc) != want {
		t.Errorf("text document:\n%s\nwant:\n%s", r.doc, want)
	}
	for i, want := range []struct {
		loc string
		err error
	}{{"/relative", errNotAbsolute}, {"https://example.org/a", errOutsideBase}, {testBase + "b\nc", errControl}} {
		if i >= len(r.rejected) || r.rejected[i].loc != want.loc || !errors.Is(r.rejected[i].err, want.err) {
			t.Errorf("rejections %v; want %d: %q %v", r.rejected, i, want.loc, want.err)
		}
	}
	if !r.st.newest.IsZero() {
		t.Errorf("newest %v: a lastmod out of range became the page's", r.st.newest)
	}

	// the limits hold for text too
	r = encodeSpec(t, listSource(numbered(5)...), pageSpec{kind: kindText, base: testBase, maxBytes: int64(len(testBase+"p/0\n") * 2)})
	checkFull(t, r, numbered(5), 2)
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
		{kind: kindURLSet, base: testBase, ext: extAll},
		{kind: kindText, base: testBase},
		{kind: kindIndex, base: testBase},
		{kind: kindURLSet, base: testBase, ext: ExtNone, maxURLs: 2},
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

// failWriter fails every write after the first n bytes.
type failWriter struct{ n int }

var errWrite = errors.New("disk full")

func (w *failWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		n := w.n
		w.n = 0
		return n, errWrite
	}
	w.n -= len(p)
	return len(p), nil
}

func TestWriteError(t *testing.T) {
	for _, n := range []int{0, 100, 3 * flushAt} {
		var reported int
		spec := pageSpec{kind: kindURLSet, base: testBase, report: func(string, error) { reported++ }}
		_, err := encodePage(context.Background(), FromSlice(numbered(20_000), 0), 1, &failWriter{n: n}, &spec)
		if !errors.Is(err, errWrite) {
			t.Errorf("writer failing after %d bytes: err %v, want %v", n, err, errWrite)
		}
		if reported > 0 {
			t.Errorf("writer failing after %d bytes: %d URLs were reported as rejected", n, reported)
		}
	}
}

func TestInvalidURLError(t *testing.T) {
	long := testBase + "x" + strings.Repeat("ü", 150) // byte 200 is inside a rune
	for _, tc := range []struct {
		err  *InvalidURLError
		want string
	}{
		{&InvalidURLError{Loc: "/a", Field: "loc", Err: errNotAbsolute}, `sitemap: invalid URL "/a": loc: not an absolute http or https URL`},
		{&InvalidURLError{Loc: long, Field: "video.title", Err: errLength}, `sitemap: invalid URL "` + long[:199] + `...": video.title: too long`},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
		if !utf8.ValidString(tc.err.Error()) {
			t.Errorf("Error() = %q is not valid UTF-8", tc.err.Error())
		}
		if !errors.Is(tc.err, tc.err.Err) {
			t.Errorf("%v does not unwrap to %v", tc.err, tc.err.Err)
		}
	}
}
