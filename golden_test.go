package sitemap

import (
	"bytes"
	"context"
	"flag"
	"iter"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/xsdcheck"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden with the current output")

// goldenURLs are the URLs of the golden documents.
func goldenURLs() (plain, images, videos, news, alternates, all []URL) {
	t0 := time.Date(2024, 6, 1, 8, 30, 15, 0, time.UTC)
	plain = []URL{
		{Loc: "https://example.com/"},
		{Loc: "https://example.com/catalogue?item=12&desc=vacation", LastMod: t0, ChangeFreq: Monthly, Priority: new(0.8)},
		{Loc: "https://example.com/ümlat.php&q=name", LastMod: t0, LastModDateOnly: true},
		{Loc: "https://example.com/it's/a \"quote\"/<tag>", Priority: new(0.0)},
		{Loc: "HTTPS://EXAMPLE.COM/Upper/Case", ChangeFreq: Never},
	}
	images = []URL{
		{Loc: "https://example.com/sample1.html", Images: []Image{
			{Loc: "https://example.com/image.jpg"},
			{Loc: "https://cdn.example.net/photo.jpg", Caption: "A dog & a <cat>", GeoLocation: "Limerick, Ireland", Title: "Pets", License: "https://example.com/license"},
		}},
	}
	full := fullVideo()
	videos = []URL{
		{Loc: "https://example.com/videos/some_video_landing_page.html", Videos: []Video{full}},
		videoURL(nil),
	}
	n := newsURL(func(n *News) {
		n.Genres = []string{"PressRelease", "Blog"}
		n.Keywords = []string{"business", "merger", "acquisition"}
		n.StockTickers = []string{"NASDAQ:A", "NASDAQ:B"}
	})
	news = []URL{n, newsURL(nil)}
	news[1].Loc = "https://example.com/business/article56.html"
	alternates = []URL{
		{Loc: "https://example.com/english/page.html", Alternates: []Alternate{
			{Hreflang: "de", Href: "https://example.com/deutsch/page.html"},
			{Hreflang: "de-ch", Href: "https://example.com/schweiz-deutsch/page.html"},
			{Hreflang: "en", Href: "https://example.com/english/page.html"},
			{Hreflang: "x-default", Href: "https://example.com/page.html"},
		}},
	}
	all = []URL{{
		Loc:        "https://example.com/everything?with=all&the=extensions",
		LastMod:    t0,
		ChangeFreq: Daily,
		Priority:   new(1.0),
		Images:     images[0].Images,
		Videos:     []Video{full},
		News:       n.News,
		Alternates: alternates[0].Alternates,
		Hreflang:   "fr", // none of the alternates is the page: its self link is added
	}}
	return plain, images, videos, news, alternates, all
}

func TestGolden(t *testing.T) {
	plain, images, videos, news, alternates, all := goldenURLs()
	for _, tc := range []struct {
		name string
		ext  Extensions
		urls []URL
	}{
		{"urlset", ExtNone, plain},
		{"image", ExtImage, images},
		{"video", ExtVideo, videos},
		{"news", ExtNews, news},
		{"alternates", ExtAlternates, alternates},
		{"all", extAll, all},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The news articles are from the day before testNow.
			r := encodeSpec(t, listSource(tc.urls...), pageSpec{base: testBase, ext: tc.ext, now: testNow})
			if r.err != nil || len(r.rejected) > 0 || r.st.urls != len(tc.urls) {
				t.Fatalf("err %v, rejected %v, %d of %d written", r.err, r.rejected, r.st.urls, len(tc.urls))
			}
			added := 0 // the URLs whose self link is added: those with a Hreflang here
			for _, u := range tc.urls {
				if u.Hreflang != "" {
					added++
				}
			}
			if len(r.notices) != added {
				t.Errorf("notices %v, want %d", r.notices, added)
			}
			checkGolden(t, tc.name, r.doc)
			xsdcheck.URLSet(t, r.doc)
		})
	}
}

// TestGoldenIndex checks the index as it is served: built from the
// sections' Pages, in section order, lastmods in UTC, and a page without
// one dated by its content clock (here the first build time).
func TestGoldenIndex(t *testing.T) {
	pages := func(infos ...PageInfo) Source {
		return SourceFunc{
			PagesFunc: func(context.Context) iter.Seq2[PageInfo, error] {
				return func(yield func(PageInfo, error) bool) {
					for _, p := range infos {
						if !yield(p, nil) {
							return
						}
					}
				}
			},
			URLsFunc: func(context.Context, int64) iter.Seq2[URL, error] { return func(func(URL, error) bool) {} },
		}
	}
	now := func() time.Time { return time.Date(2006, 1, 2, 15, 4, 5, 0, time.UTC) } // the clock of page 2, which has no lastmod
	sm := newTestSitemap(t, Config{Now: now},
		Section{Name: "products", Source: pages(
			PageInfo{Number: 1, LastMod: time.Date(2004, 10, 1, 18, 23, 17, 0, time.UTC)},
			PageInfo{Number: 2})},
		Section{Name: "news", Source: pages(
			PageInfo{Number: 1, LastMod: time.Date(2005, 1, 1, 0, 0, 0, 0, time.FixedZone("+02:00", 7200))})})
	w := get(sm, "/sitemap_index.xml")
	if w.Code != 200 {
		t.Fatalf("index = %d", w.Code)
	}
	checkGolden(t, "index", w.Body.Bytes())
	xsdcheck.Index(t, w.Body.Bytes())
}

// checkGolden compares doc with testdata/NAME.golden, or rewrites the file
// with -update.
func checkGolden(t *testing.T, name string, doc []byte) {
	t.Helper()
	file := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(file, doc, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test -run TestGolden -update)", err)
	}
	if !bytes.Equal(doc, want) {
		t.Errorf("%s differs from the output (go test -run TestGolden -update rewrites it):\ngot:\n%s\nwant:\n%s", file, doc, want)
	}
}
