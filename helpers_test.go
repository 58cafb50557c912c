package sitemap

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testenv"
	"github.com/freshmap/sitemap/internal/xsdcheck"
)

// testBase is the base URL of the test documents.
const testBase = "https://example.com/"

// testNow is the build time of the test documents: the news articles of
// the tests are from the day before.
var testNow = time.Date(2024, 6, 2, 12, 0, 0, 0, time.UTC)

// rejection is one call of pageSpec.report.
type rejection struct {
	loc string
	err error
}

// listSource is a Source whose page 1 yields urls, all of them, whatever
// the page size: it lets a test give an encoder more than fits.
func listSource(urls ...URL) Source {
	return SourceFunc{
		PagesFunc: func(context.Context) iter.Seq2[PageInfo, error] {
			return func(yield func(PageInfo, error) bool) { yield(PageInfo{Number: 1}, nil) }
		},
		URLsFunc: func(_ context.Context, n int64) iter.Seq2[URL, error] {
			return func(yield func(URL, error) bool) {
				if n != 1 {
					return
				}
				for _, u := range urls {
					if !yield(u, nil) {
						return
					}
				}
			}
		},
	}
}

// result is what encodePage made of a page.
type result struct {
	doc      []byte
	st       pageStats
	rejected []rejection
	notices  []rejection // notes of URLs written: elements dropped, self links added
	err      error
}

// encodeSpec runs encodePage over page 1 of src with spec, recording every
// report. It checks the invariants every page must keep: each rejection is
// reported exactly once, and stats match the document.
func encodeSpec(t testing.TB, src Source, spec pageSpec) result {
	t.Helper()
	var r result
	var buf bytes.Buffer
	spec.report = func(loc string, err error) { r.rejected = append(r.rejected, rejection{loc, err}) }
	corrected := 0
	spec.notice = func(loc string, notes []error) {
		if len(notes) == 0 {
			t.Errorf("notice of %q without a note", loc)
		}
		corrected++
		for _, err := range notes {
			r.notices = append(r.notices, rejection{loc, err})
		}
	}
	r.st, r.err = encodePage(context.Background(), src, 1, &buf, &spec)
	r.doc = buf.Bytes()
	if r.err == nil {
		if r.st.rejected != len(r.rejected) {
			t.Errorf("stats say %d rejected, %d were reported", r.st.rejected, len(r.rejected))
		}
		if r.st.corrected != corrected || r.st.notes != len(r.notices) {
			t.Errorf("stats say %d corrected with %d notes, %d with %d were reported", r.st.corrected, r.st.notes, corrected, len(r.notices))
		}
		if r.st.bytes != int64(len(r.doc)) {
			t.Errorf("stats say %d bytes, the document has %d", r.st.bytes, len(r.doc))
		}
		if got := bytes.Count(r.doc, []byte("<url>")); got != r.st.urls {
			t.Errorf("stats say %d entries written, the document has %d", r.st.urls, got)
		}
	}
	return r
}

// encodeURLs encodes urls as one <urlset> page under testBase with every
// extension declared, built at testNow.
func encodeURLs(t testing.TB, urls ...URL) result {
	t.Helper()
	return encodeSpec(t, listSource(urls...), pageSpec{base: testBase, ext: extAll, now: testNow})
}

// checkRejected checks that r has exactly one rejection, of loc, for field
// and err (compared with errors.Is).
func checkRejected(t testing.TB, r result, loc, field string, err error) {
	t.Helper()
	if len(r.rejected) != 1 {
		t.Fatalf("%d rejections (%v), want 1", len(r.rejected), r.rejected)
	}
	got := r.rejected[0]
	if got.loc != loc {
		t.Errorf("rejected loc %q, want %q", got.loc, loc)
	}
	if !errors.Is(got.err, err) {
		t.Errorf("rejected with %v, want %v", got.err, err)
	}
	var bad *InvalidURLError
	if errors.As(got.err, &bad) {
		if bad.Field != field {
			t.Errorf("rejected field %q, want %q (%v)", bad.Field, field, got.err)
		}
		if bad.Loc != loc {
			t.Errorf("InvalidURLError.Loc %q, want %q", bad.Loc, loc)
		}
	} else if field != "" {
		t.Errorf("rejected with %v, want an *InvalidURLError for %s", got.err, field)
	}
}

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// ruleCase is one row of a validation table: a URL and either the field
// and rule it breaks, or (field "") a fragment its written entry holds.
// A URL that breaks a rule is written without the element at fault
// (dropped), unless skipped says the URL itself is not written.
type ruleCase struct {
	name    string
	u       URL
	field   string // "" if the URL must be written whole
	err     error  // the rule broken, for errors.Is
	dropped string // with field: the element left out (InvalidURLError.Dropped); "" if the URL is skipped
	want    string // a fragment of the document written
	notice  error  // with field "": the correction reported, if any
}

const anchorLoc = testBase + "anchor"

// runRules encodes each case after a valid anchor URL and checks that it is
// written, written without an element, or rejected, as the table says. All
// written URLs are then encoded together and validated against the
// schemas.
func runRules(t *testing.T, cases []ruleCase) {
	t.Helper()
	var accepted []URL
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := encodeURLs(t, URL{Loc: anchorLoc}, tc.u)
			if r.err != nil {
				t.Fatalf("encodePage: %v", r.err)
			}
			if tc.field != "" && tc.dropped == "" {
				checkRejected(t, r, tc.u.Loc, tc.field, tc.err)
				if r.st.urls != 1 {
					t.Errorf("%d URLs written, want only the anchor", r.st.urls)
				}
				return
			}
			if len(r.rejected) > 0 {
				t.Fatalf("rejected: %v", r.rejected[0].err)
			}
			if r.st.urls != 2 {
				t.Fatalf("%d URLs written, want 2", r.st.urls)
			}
			switch {
			case tc.field != "":
				checkDropped(t, r, tc.u, tc.field, tc.err, tc.dropped)
			case tc.notice == nil && len(r.notices) > 0:
				t.Errorf("corrected: %v", r.notices[0].err)
			case tc.notice != nil && (len(r.notices) != 1 || r.notices[0].loc != tc.u.Loc || !errors.Is(r.notices[0].err, tc.notice)):
				t.Errorf("notices %v, want one %v for %s", r.notices, tc.notice, tc.u.Loc)
			}
			if !bytes.Contains(r.doc, []byte(tc.want)) {
				t.Errorf("document lacks %.500q:\n%.3000s", tc.want, r.doc)
			}
			accepted = append(accepted, tc.u)
		})
	}
	if len(accepted) == 0 {
		return
	}
	r := encodeURLs(t, accepted...)
	if r.err != nil || len(r.rejected) > 0 || r.st.urls != len(accepted) {
		t.Fatalf("the accepted URLs together: err %v, %d rejected, %d of %d written", r.err, len(r.rejected), r.st.urls, len(accepted))
	}
	xsdcheck.URLSet(t, r.doc)
}

// checkDropped checks that r wrote u without an element named dropped,
// reported once as a notice for field and err: an *InvalidURLError that
// matches ErrElementDropped. The document has fewer such elements than u
// gave.
func checkDropped(t testing.TB, r result, u URL, field string, err error, dropped string) {
	t.Helper()
	var drops []rejection
	for _, n := range r.notices {
		if errors.Is(n.err, ErrElementDropped) {
			drops = append(drops, n)
		}
	}
	if len(drops) != 1 {
		t.Fatalf("%d elements dropped (%v), want 1", len(drops), r.notices)
	}
	got := drops[0]
	var bad *InvalidURLError
	if !errors.As(got.err, &bad) || got.loc != u.Loc || bad.Loc != u.Loc || bad.Field != field || bad.Dropped != dropped || !errors.Is(got.err, err) {
		t.Errorf("dropped %q: %#v, want %s dropped for %s: %v", got.loc, got.err, dropped, field, err)
	}
	if !strings.HasPrefix(got.err.Error(), "sitemap: <"+dropped+"> dropped from URL ") {
		t.Errorf("error text %q", got.err)
	}
	given := map[string]int{"lastmod": 1, "changefreq": 1, "priority": 1, "news:news": 1,
		"image:image": len(u.Images), "video:video": len(u.Videos), "xhtml:link": len(u.Alternates)}[dropped]
	if slices.ContainsFunc(r.notices, func(n rejection) bool { return errors.Is(n.err, ErrSelfLinkAdded) }) {
		given++
	}
	if n := bytes.Count(r.doc, []byte("<"+dropped)); n >= given {
		t.Errorf("%d <%s> written of %d given", n, dropped, given)
	}
}

var _ Source = (*fakeSource)(nil)

// fakeSource is a Source of n generated URLs, size a page, with hooks and
// call counters.
type fakeSource struct {
	n, size   int64
	lastMod   time.Time
	version   string
	urlsCalls atomic.Int64
	pageCalls atomic.Int64
	// onURL, if set, runs before URL i of a page is yielded; an error
	// fails the page there.
	onURL func(ctx context.Context, page, i int64) error
	// pagesErr, if set, fails Pages.
	pagesErr error
	// edited, if set before the Sitemap reads it, marks the URLs of page
	// edited: other bytes, the same lastmods and Pages.
	edited int64
}

func newFake(n, size int64) *fakeSource {
	return &fakeSource{n: n, size: size, lastMod: time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)}
}

func (f *fakeSource) Pages(ctx context.Context) iter.Seq2[PageInfo, error] {
	return func(yield func(PageInfo, error) bool) {
		f.pageCalls.Add(1)
		if f.pagesErr != nil {
			yield(PageInfo{}, f.pagesErr)
			return
		}
		for p := int64(1); (p-1)*f.size < f.n; p++ {
			if !yield(PageInfo{Number: p, LastMod: f.lastMod.Add(time.Duration(p) * time.Hour), Version: f.version}, nil) {
				return
			}
		}
	}
}

func (f *fakeSource) URLs(ctx context.Context, page int64) iter.Seq2[URL, error] {
	return func(yield func(URL, error) bool) {
		f.urlsCalls.Add(1)
		if page < 1 {
			return
		}
		for i := (page - 1) * f.size; i < min(page*f.size, f.n); i++ {
			if f.onURL != nil {
				if err := f.onURL(ctx, page, i); err != nil {
					yield(URL{}, err)
					return
				}
			}
			u := URL{Loc: fmt.Sprintf("https://example.com/p/%d?a=1&b=2", i), LastMod: f.lastMod.Add(time.Duration(page) * time.Hour)}
			if page == f.edited {
				u.Loc += "&edited"
			}
			if !yield(u, nil) {
				return
			}
		}
	}
}

func newTestSitemap(t testing.TB, cfg Config, secs ...Section) *Sitemap {
	t.Helper()
	if cfg.BaseURL == "" {
		cfg.BaseURL = "https://example.com"
	}
	if cfg.Logger == nil { // nil is slog.Default() (TestUnavailableSaysWhy): quiet tests
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	sm, err := New(cfg, secs...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sm.Close() })
	return sm
}

func get(h http.Handler, path string, hdr ...string) *httptest.ResponseRecorder {
	return do(h, http.MethodGet, path, hdr...)
}

func do(h http.Handler, method, path string, hdr ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, path, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

type recorder struct {
	header http.Header
	code   int
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) Write(b []byte) (int, error) { return len(b), nil }

func (r *recorder) WriteHeader(code int) { r.code = code }

// numbered returns n URLs testBase+"p/0" ... under testBase.
func numbered(n int) []URL {
	urls := make([]URL, n)
	for i := range urls {
		urls[i] = URL{Loc: testBase + "p/" + strconv.Itoa(i)}
	}
	return urls
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

// TestMain reports what was not tested for want of a service (xmllint and
// the schemas here), or fails under SITEMAP_REQUIRE_SERVICES=1.
func TestMain(m *testing.M) { testenv.Main(m) }

// cachedEntry returns the cached copy of k, fresh or not, without marking
// it used.
func cachedEntry(sm *Sitemap, k docKey) (*entry, bool) {
	sl, ok := sm.docs.cache.Peek(k)
	if !ok {
		return nil, false
	}
	return sl.e, true
}

// waitGoroutines waits until no more goroutines run than before, failing
// t with their stacks after 5 s: a goroutine that has handed over its
// result may take a moment to return (more under the race detector).
func waitGoroutines(t testing.TB, before int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > before; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines left, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
	}
}

// floorAhead is how far a fresh process's floor is ahead of its start
// (floorAfter), or a new Store era's ahead of its first look: the first
// clocks are served as Last-Modified once the Sitemap's clock has moved
// that far (TestLastModifiedNotAfterDate). Tests of what follows a first
// Last-Modified move a fake clock by it first.
const floorAhead = maxAhead + time.Second
