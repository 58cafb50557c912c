package sitemap

import (
	"bytes"
	"context"
	"errors"
	"iter"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/xsdcheck"
)

// testBase is the base URL of the test documents.
const testBase = "https://example.com/"

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
	r.st, r.err = encodePage(context.Background(), src, 1, &buf, &spec)
	r.doc = buf.Bytes()
	if r.err == nil {
		if r.st.rejected != len(r.rejected) {
			t.Errorf("stats say %d rejected, %d were reported", r.st.rejected, len(r.rejected))
		}
		if r.st.bytes != int64(len(r.doc)) {
			t.Errorf("stats say %d bytes, the document has %d", r.st.bytes, len(r.doc))
		}
		entry := "<url>"
		switch spec.kind {
		case kindIndex:
			entry = "<sitemap>"
		case kindText:
			entry = "\n"
		}
		if got := bytes.Count(r.doc, []byte(entry)); got != r.st.urls {
			t.Errorf("stats say %d entries written, the document has %d", r.st.urls, got)
		}
	}
	return r
}

// encodeURLs encodes urls as one <urlset> page under testBase with every
// extension declared.
func encodeURLs(t testing.TB, urls ...URL) result {
	t.Helper()
	return encodeSpec(t, listSource(urls...), pageSpec{kind: kindURLSet, base: testBase, ext: extAll})
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
type ruleCase struct {
	name  string
	u     URL
	field string // "" if the URL must be written
	err   error  // the rule broken, for errors.Is
	want  string // with field "": a fragment of the written <url>
}

const anchorLoc = testBase + "anchor"

// runRules encodes each case after a valid anchor URL and checks that it is
// written or rejected as the table says. All written URLs are then encoded
// together and validated against the schemas.
func runRules(t *testing.T, cases []ruleCase) {
	t.Helper()
	var accepted []URL
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := encodeURLs(t, URL{Loc: anchorLoc}, tc.u)
			if r.err != nil {
				t.Fatalf("encodePage: %v", r.err)
			}
			if tc.field == "" && tc.err == nil {
				if len(r.rejected) > 0 {
					t.Fatalf("rejected: %v", r.rejected[0].err)
				}
				if r.st.urls != 2 {
					t.Fatalf("%d URLs written, want 2", r.st.urls)
				}
				if !bytes.Contains(r.doc, []byte(tc.want)) {
					t.Errorf("document lacks %.500q:\n%.3000s", tc.want, r.doc)
				}
				accepted = append(accepted, tc.u)
				return
			}
			checkRejected(t, r, tc.u.Loc, tc.field, tc.err)
			if r.st.urls != 1 {
				t.Errorf("%d URLs written, want only the anchor", r.st.urls)
			}
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
