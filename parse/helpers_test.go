package parse

import (
	"bytes"
	"iter"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
)

// richURLs are URLs with every field the encoder writes, as the root
// package's golden tests build them. want holds what parsing their
// encoding gives back: canonical locations, "own" prices as "purchase".
func richURLs() (in, want []sitemap.URL) {
	t0 := time.Date(2024, 6, 1, 8, 30, 15, 0, time.UTC)
	video := sitemap.Video{
		ThumbnailLoc:         "https://cdn.example.net/thumbs/123.jpg",
		Title:                "Grilling steaks for summer & <more>",
		Description:          "Alkis shows you how to get \"perfectly\" done steaks every time",
		ContentLoc:           "https://cdn.example.net/video123.mp4",
		PlayerLoc:            "https://www.example.com/videoplayer.php?video=123&x=1",
		AllowEmbed:           "yes",
		Autoplay:             "ap=1",
		Duration:             600 * time.Second,
		ExpirationDate:       time.Date(2031, 11, 5, 19, 20, 30, 0, time.UTC),
		Rating:               new(4.2),
		ViewCount:            new(int64(12345)),
		PublicationDate:      time.Date(2007, 11, 5, 19, 20, 30, 0, time.UTC),
		Tags:                 []string{"steak", "meat", "summer", "<outdoor>"},
		Category:             "Grilling",
		FamilyFriendly:       "yes",
		Restriction:          &sitemap.Restriction{Relationship: "allow", Countries: []string{"IE", "GB", "US", "CA"}},
		GalleryLoc:           "https://cooking.example.com",
		GalleryTitle:         "Cooking \"Videos\"",
		Prices:               []sitemap.Price{{Amount: "1.99", Currency: "EUR", Type: "rent", Resolution: "HD"}, {Amount: "9.99", Currency: "EUR", Type: "own"}, {Type: "purchase"}},
		RequiresSubscription: "no",
		Uploader:             "GrillyMcGrillerson",
		UploaderInfo:         "https://www.example.com/users/grillymcgrillerson",
		Platform:             &sitemap.Platform{Relationship: "deny", Platforms: []string{"web", "tv"}},
		Live:                 "no",
	}
	minimal := sitemap.Video{ThumbnailLoc: "https://cdn.example.net/t.jpg", Title: "T", Description: "D", PlayerLoc: "https://p.example.net/"}
	news := &sitemap.News{
		PublicationName: "The Example Times", Language: "en", PublicationDate: time.Date(2024, 6, 1, 8, 30, 0, 0, time.UTC),
		Title: "Companies A, B in merger talks", Genres: []string{"PressRelease", "Blog"},
		Keywords: []string{"business", "merger & acquisition"}, StockTickers: []string{"NASDAQ:A", "NASDAQ:B"},
	}
	images := []sitemap.Image{
		{Loc: "https://example.com/image.jpg"},
		{Loc: "https://cdn.example.net/photo.jpg", Caption: "A dog & a <cat>", GeoLocation: "Limerick, Ireland", Title: "Pets", License: "https://example.com/license"},
	}
	alternates := []sitemap.Alternate{
		{Hreflang: "de", Href: "https://example.com/deutsch/page.html"},
		{Hreflang: "en", Href: "https://example.com/english/page.html"},
		{Hreflang: "x-default", Href: "https://example.com/page.html"},
		{Hreflang: "fr", Href: "https://example.com/everything"}, // the page itself, as the encoder requires
	}
	in = []sitemap.URL{
		{Loc: "https://example.com/"},
		{Loc: "https://example.com/catalogue?item=12&desc=vacation", LastMod: t0, ChangeFreq: sitemap.Monthly, Priority: new(0.8)},
		{Loc: "https://example.com/ümlat.php&q=name", LastMod: t0, LastModDateOnly: true},
		{Loc: "https://example.com/it's/a \"quote\"/<tag>", Priority: new(0.0)},
		{Loc: "HTTPS://EXAMPLE.COM/Upper/Case", ChangeFreq: sitemap.Never},
		{Loc: "https://example.com/everything", LastMod: t0.Add(123 * time.Millisecond), ChangeFreq: sitemap.Daily, Priority: new(1.0),
			Images: images, Videos: []sitemap.Video{video, minimal}, News: news, Alternates: alternates},
	}
	want = clone(in)
	want[2].Loc = "https://example.com/%C3%BCmlat.php&q=name"
	want[3].Loc = "https://example.com/it's/a%20%22quote%22/%3Ctag%3E"
	want[4].Loc = "https://example.com/Upper/Case"
	want[2].LastMod = t0.Truncate(24 * time.Hour) // a date alone reads as midnight UTC
	want[5].LastMod = t0                          // written to the second
	v := &want[5].Videos[0]
	v.GalleryLoc = "https://cooking.example.com/"
	v.Prices = []sitemap.Price{v.Prices[0], {Amount: "9.99", Currency: "EUR", Type: "purchase"}, v.Prices[2]}
	return in, want
}

// clone copies urls deeply enough for want to be changed apart from in.
func clone(urls []sitemap.URL) []sitemap.URL {
	out := append([]sitemap.URL(nil), urls...)
	for i := range out {
		out[i].Videos = append([]sitemap.Video(nil), out[i].Videos...)
	}
	return out
}

// serve encodes urls through the public API: one section with the given
// extensions, fetched as the gzip file and the index.
func serve(t testing.TB, urls []sitemap.URL, pageSize int, ext sitemap.Extensions) (page func(n int) []byte, index []byte) {
	t.Helper()
	// Built the day after the news article: the encoder writes only news
	// of the last two days.
	now := func() time.Time { return time.Date(2024, 6, 2, 8, 0, 0, 0, time.UTC) }
	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://example.com", Strict: true, Now: now},
		sitemap.Section{Source: sitemap.FromSlice(urls, pageSize),
			Extensions: ext})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sm.Close() })
	get := func(path string) []byte {
		w := httptest.NewRecorder()
		sm.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		if w.Code != http.StatusOK {
			t.Fatalf("GET %s = %d", path, w.Code)
		}
		return w.Body.Bytes()
	}
	return func(n int) []byte {
		return get("/sitemap-" + itoa(n) + ".xml.gz")
	}, get("/sitemap_index.xml")
}

func itoa(n int) string {
	b := []byte{}
	for ; n > 0 || len(b) == 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// collect ranges over seq and returns the entries and errors it yields.
func collect[T any](seq iter.Seq2[T, error]) (entries []T, errs []error) {
	for v, err := range seq {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		entries = append(entries, v)
	}
	return entries, errs
}

// parseString parses a document with default limits.
func parseString(doc string) ([]sitemap.URL, []error) {
	return collect(URLs(bytes.NewReader([]byte(doc)), Limits{}))
}
