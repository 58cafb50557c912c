package xmlenc

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/xsdcheck"
	"github.com/freshmap/sitemap/urlset"
)

// TestIndexRules drives the Encoder's index entries with what the index
// builder could pass it.
func TestIndexRules(t *testing.T) {
	for _, tc := range []struct {
		name    string
		loc     string
		lastmod time.Time
		field   string
		err     error
		want    string
	}{
		{name: "plain", loc: testBase + "s.xml", want: "<sitemap><loc>https://example.com/s.xml</loc></sitemap>"},
		{name: "escaped", loc: testBase + "s.xml?a=1&b=ü", want: "<sitemap><loc>https://example.com/s.xml?a=1&amp;b=%C3%BC</loc></sitemap>"},
		{name: "lastmod in UTC", loc: testBase + "s.xml", lastmod: time.Date(2024, 2, 3, 1, 0, 0, 0, time.FixedZone("", 3600)),
			want: "<sitemap><loc>https://example.com/s.xml</loc><lastmod>2024-02-03T00:00:00Z</lastmod></sitemap>"},
		{name: "other host", loc: "https://example.org/s.xml", field: "loc", err: ErrOutsideBase},
		{name: "relative", loc: "s.xml", field: "loc", err: ErrNotAbsolute},
		{name: "lastmod year 10000", loc: testBase + "s.xml", lastmod: day(10000, 1, 1), field: "lastmod", err: ErrYear},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			var e Encoder
			e.Reset(&buf, Index, 0, testBase, 0, 0, "")
			if err := e.AddSitemap(testBase+"anchor", time.Time{}); err != nil {
				t.Fatal(err)
			}
			err := e.AddSitemap(tc.loc, tc.lastmod)
			if cerr := e.Close(); cerr != nil {
				t.Fatal(cerr)
			}
			doc := buf.Bytes()
			if tc.err != nil {
				var bad *urlset.InvalidURLError
				if !errors.As(err, &bad) || bad.Loc != tc.loc || bad.Field != tc.field || !errors.Is(err, tc.err) || e.Count() != 1 {
					t.Errorf("err %v (%d entries), want %s: %v", err, e.Count(), tc.field, tc.err)
				}
			} else if err != nil || !bytes.Contains(doc, []byte(tc.want)) {
				t.Errorf("err %v; document:\n%s\nwant %s", err, doc, tc.want)
			}
			xsdcheck.Index(t, doc)
		})
	}
}

// TestIndexEncoder drives the Encoder the way the index builder does.
func TestIndexEncoder(t *testing.T) {
	var buf bytes.Buffer
	var e Encoder
	e.Reset(&buf, Index, 0, testBase, 2, 0, "")
	for i, tc := range []struct {
		loc     string
		lastmod time.Time
		err     error
	}{
		{testBase + "sitemap-1.xml.gz", day(2024, 3, 4), nil},
		{testBase + "../sitemap-2.xml.gz", time.Time{}, ErrDotSegment},
		{testBase + "sitemap-2.xml.gz", time.Time{}, nil},
		{testBase + "sitemap-3.xml.gz", time.Time{}, urlset.ErrPageFull},
	} {
		if err := e.AddSitemap(tc.loc, tc.lastmod); !errors.Is(err, tc.err) {
			t.Errorf("entry %d: %v, want %v", i, err, tc.err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	want := IndexStart + "<sitemap><loc>https://example.com/sitemap-1.xml.gz</loc><lastmod>2024-03-04T00:00:00Z</lastmod></sitemap>\n" +
		"<sitemap><loc>https://example.com/sitemap-2.xml.gz</loc></sitemap>\n" + IndexEnd
	if buf.String() != want || e.Size() != int64(len(want)) || e.Count() != 2 {
		t.Errorf("index (%d bytes, %d entries):\n%s\nwant:\n%s", e.Size(), e.Count(), buf.String(), want)
	}
	xsdcheck.Index(t, buf.Bytes())
}
