package sitemap

import (
	"bytes"
	"flag"
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
	}}
	return plain, images, videos, news, alternates, all
}

func TestGolden(t *testing.T) {
	plain, images, videos, news, alternates, all := goldenURLs()
	index := []URL{
		{Loc: testBase + "sitemap-products-1.xml.gz", LastMod: time.Date(2004, 10, 1, 18, 23, 17, 0, time.UTC)},
		{Loc: testBase + "sitemap-products-2.xml.gz"},
		{Loc: testBase + "sitemap-news-1.xml.gz", LastMod: time.Date(2005, 1, 1, 0, 0, 0, 0, time.FixedZone("+02:00", 7200))},
	}
	for _, tc := range []struct {
		name string
		spec pageSpec
		urls []URL
	}{
		{"urlset", pageSpec{kind: kindURLSet, ext: ExtNone}, plain},
		{"image", pageSpec{kind: kindURLSet, ext: ExtImage}, images},
		{"video", pageSpec{kind: kindURLSet, ext: ExtVideo}, videos},
		{"news", pageSpec{kind: kindURLSet, ext: ExtNews}, news},
		{"alternates", pageSpec{kind: kindURLSet, ext: ExtAlternates}, alternates},
		{"all", pageSpec{kind: kindURLSet, ext: extAll}, all},
		{"index", pageSpec{kind: kindIndex}, index},
		{"text", pageSpec{kind: kindText}, plain},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.spec.base = testBase
			r := encodeSpec(t, listSource(tc.urls...), tc.spec)
			if r.err != nil || len(r.rejected) > 0 || r.st.urls != len(tc.urls) {
				t.Fatalf("err %v, rejected %v, %d of %d written", r.err, r.rejected, r.st.urls, len(tc.urls))
			}
			file := filepath.Join("testdata", tc.name+".golden")
			if *update {
				if err := os.WriteFile(file, r.doc, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run go test -run TestGolden -update)", err)
			}
			if !bytes.Equal(r.doc, want) {
				t.Errorf("%s differs from the output (go test -run TestGolden -update rewrites it):\ngot:\n%s\nwant:\n%s", file, r.doc, want)
			}
			switch tc.spec.kind {
			case kindURLSet:
				xsdcheck.URLSet(t, want)
			case kindIndex:
				xsdcheck.Index(t, want)
			}
		})
	}
}
