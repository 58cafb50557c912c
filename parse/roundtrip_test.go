package parse

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
)

// TestRoundTrip encodes URLs with every field through sitemap.New and
// parses the served gzip file and index back.
func TestRoundTrip(t *testing.T) {
	in, want := richURLs()
	page, index := serve(t, in, 1000, sitemap.ExtImage|sitemap.ExtVideo|sitemap.ExtNews|sitemap.ExtAlternates)
	doc := page(1)
	if !bytes.HasPrefix(doc, []byte{0x1f, 0x8b}) {
		t.Fatalf("page is not gzip: %q", doc[:10])
	}
	got, errs := collect(URLs(bytes.NewReader(doc), Limits{}))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if len(got) != len(want) {
		t.Fatalf("%d URLs, want %d", len(got), len(want))
	}
	for i := range want {
		if g, w := fmt.Sprintf("%+v", normal(got[i])), fmt.Sprintf("%+v", normal(want[i])); g != w {
			t.Errorf("URL %d:\n got %s\nwant %s", i, g, w)
		}
	}
	sms, errs := collect(Index(bytes.NewReader(index), Limits{}))
	wantIndex := []Sitemap{{Loc: "https://example.com/sitemap-1.xml.gz", LastMod: time.Date(2024, 6, 1, 8, 30, 15, 0, time.UTC)}}
	if len(errs) > 0 || !reflect.DeepEqual(sms, wantIndex) {
		t.Errorf("index = %v, %v; want %v", sms, errs, wantIndex)
	}
}

// normal dereferences pointers and formats times, so that URLs compare
// with %+v: times by instant, in UTC.
func normal(u sitemap.URL) any {
	type video struct {
		sitemap.Video
		Rating, ViewCount any
		Exp, Pub          string
		R                 sitemap.Restriction
		P                 sitemap.Platform
	}
	ts := func(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
	var videos []video
	for _, v := range u.Videos {
		w := video{Video: v, Exp: ts(v.ExpirationDate), Pub: ts(v.PublicationDate)}
		if v.Rating != nil {
			w.Rating = *v.Rating
		}
		if v.ViewCount != nil {
			w.ViewCount = *v.ViewCount
		}
		if v.Restriction != nil {
			w.R = *v.Restriction
		}
		if v.Platform != nil {
			w.P = *v.Platform
		}
		w.Video.Rating, w.Video.ViewCount, w.Restriction, w.Platform = nil, nil, nil, nil
		w.ExpirationDate, w.PublicationDate = time.Time{}, time.Time{}
		videos = append(videos, w)
	}
	var news any
	if u.News != nil {
		n := *u.News
		news = []any{n.PublicationName, n.Language, ts(n.PublicationDate), n.Title, n.Keywords, n.Genres, n.StockTickers}
	}
	var prio any
	if u.Priority != nil {
		prio = *u.Priority
	}
	return []any{u.Loc, ts(u.LastMod), u.LastModDateOnly, u.ChangeFreq, prio, u.Images, videos, news, u.Alternates}
}

// A file that names a stylesheet (sitemap.Config.Stylesheet) reads back the
// same: the instruction before the root is not an entry.
func TestStylesheetInstruction(t *testing.T) {
	doc := `<?xml version="1.0" encoding="UTF-8"?>
<?xml-stylesheet type="text/xsl" href="/sitemap.xsl"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>https://example.com/a</loc></url>
</urlset>
`
	got, errs := parseString(doc)
	if len(errs) > 0 || len(got) != 1 || got[0].Loc != "https://example.com/a" {
		t.Errorf("got %v, %v", got, errs)
	}
	index := strings.Replace(doc, "urlset", "sitemapindex", 2)
	index = strings.Replace(index, "<url><loc>https://example.com/a</loc></url>", "<sitemap><loc>https://example.com/sitemap-1.xml.gz</loc></sitemap>", 1)
	sms, errs := collect(Index(strings.NewReader(index), Limits{}))
	if len(errs) > 0 || len(sms) != 1 {
		t.Errorf("index: %v, %v", sms, errs)
	}
}
