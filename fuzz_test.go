package sitemap

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/freshmap/sitemap/internal/langtag"
	"github.com/freshmap/sitemap/internal/readback"
	"github.com/freshmap/sitemap/internal/testkit"
	"github.com/freshmap/sitemap/internal/xmlenc"
	"github.com/freshmap/sitemap/internal/xsdcheck"

	"github.com/freshmap/sitemap/internal/limits"
)

// fuzzArgs are the values FuzzEncode varies. Text goes into the free-text
// fields of images, videos and news; Value into the constrained ones.
type fuzzArgs struct {
	Loc, ImageLoc, Caption, Title, VideoLoc, VideoTitle, Description, Text, Value,
	NewsName, Language, NewsTitle, Keyword, Ticker, Hreflang, Href string
	Number float64 // priority, rating
	Secs   int64   // lastmod, dates, duration
}

var fuzzSeeds = []fuzzArgs{
	{Loc: "https://example.com/a", ImageLoc: "https://cdn.example.net/a.jpg", Caption: "A <b>dog</b> & 'a' \"cat\"", Title: "Pets",
		VideoLoc: "https://cdn.example.net/v.mp4", VideoTitle: "Grilling", Description: "How to grill", Text: "steak", Value: "yes",
		NewsName: "The Times", Language: "en", NewsTitle: "Merger", Keyword: "business", Ticker: "NASDAQ:A",
		Hreflang: "x-default", Href: "https://example.com/a", Number: 0.5, Secs: 1_700_000_000},
	{Loc: "http://www.example.com/ümlat.php&q=name", ImageLoc: "https://cdn.example.net/bild über.jpg", Caption: "\x00\x01\x1f\x7f\r\n\t",
		Title: "\xff\xfe\xed\xa0\x80", VideoTitle: strings.Repeat("ü", 101), Description: strings.Repeat("é", 2048),
		Text: "\uFFFE\uFFFF\uFFFD", Value: "YES", Language: "zh-cn", NewsTitle: "]]>", Hreflang: "de_DE", Href: "/relative", Number: math.NaN(), Secs: -62135596801},
	{Loc: "HTTPS://EXAMPLE.COM", ImageLoc: "https://[::1]:8080/a", VideoLoc: "https://user@host/", Text: "allow", Value: "IE GB",
		Language: "EN", Ticker: "NYSE:BRK_B", Hreflang: "en-GB", Href: "https://example.com/%zz%41#a#b", Number: 1.1, Secs: 253402300800},
	{Loc: "a/../b", ImageLoc: "javascript:alert(1)", VideoLoc: "https://cdn.example.net/" + strings.Repeat("x", 2040),
		Text: strings.Repeat("t", 300), Value: "purchase", Language: "haw", Hreflang: "", Number: math.Copysign(0, -1), Secs: 0},
	{Loc: "?q=1&r='2'#frag", Caption: "😀 日本語 \u0085", VideoTitle: " ", Description: "", Value: "web tv", Keyword: "a, b",
		Ticker: "A:B:C", Hreflang: "zh-Hant-TW", Href: "https://example.fr/page?x=1&y=2", Number: 5, Secs: 28800},
	{Loc: "https://example.com/" + strings.Repeat("a", 2027), ImageLoc: "https://cdn.example.net/%", Value: "1.99",
		Language: "zh-tw", Hreflang: "abcdefghi", Number: 0.0000001, Secs: 1},
	{Loc: "https://example.com./x", ImageLoc: "HTTP://CDN.EXAMPLE.NET", VideoLoc: "https://a.b", Value: "no", Hreflang: "es-419",
		Href: "https://example.com/dü", Number: math.Inf(1), Secs: -1},
	// a fresh article, a self link added, IDN hosts
	{Loc: "https://Example.com/a", ImageLoc: "https://bücher.example/bild.jpg", VideoLoc: "https://例え.jp/v", NewsName: "Die Zeit",
		Language: "de", NewsTitle: "Neu", Hreflang: "de-AT", Href: "https://bücher.example/a", Number: 0.5, Secs: 1_717_326_000},
	{Loc: "https://example.com/b", ImageLoc: "https://bü_cher.example/", Language: "en", Hreflang: "EN", Href: "https://example.com/b",
		Number: 0.5, Secs: 1_717_329_600 + 301},
}

func (a fuzzArgs) add(f *testing.F) {
	f.Add(a.Loc, a.ImageLoc, a.Caption, a.Title, a.VideoLoc, a.VideoTitle, a.Description, a.Text, a.Value,
		a.NewsName, a.Language, a.NewsTitle, a.Keyword, a.Ticker, a.Hreflang, a.Href, a.Number, a.Secs)
}

// urls builds the URLs of one fuzz run: the fuzzed values go both where
// they stand alone and behind valid prefixes, so that one invalid field
// does not hide the others.
func (a fuzzArgs) urls() []URL {
	when := time.Unix(a.Secs, 0)
	under := func(s string) string { return testBase + s }
	cdn := func(s string) string { return "https://cdn.example.net/" + s }
	video := Video{
		ThumbnailLoc: a.VideoLoc, Title: a.VideoTitle, Description: a.Description,
		ContentLoc: a.VideoLoc, PlayerLoc: a.VideoLoc, AllowEmbed: a.Value, Autoplay: a.Text,
		Duration: time.Duration(a.Secs) * time.Second, ExpirationDate: when, Rating: new(a.Number * 5),
		ViewCount: new(a.Secs), PublicationDate: when, Tags: []string{a.Text, a.Value}, Category: a.Text,
		FamilyFriendly: a.Value, Restriction: &Restriction{Relationship: a.Text, Countries: strings.Fields(a.Value)},
		GalleryLoc: a.VideoLoc, GalleryTitle: a.Text, Prices: []Price{{Amount: a.Value, Currency: "EUR", Type: a.Value}},
		RequiresSubscription: a.Value, Uploader: a.Text, UploaderInfo: a.Href,
		Platform: &Platform{Relationship: a.Text, Platforms: strings.Fields(a.Value)}, Live: a.Value,
	}
	textVideo := Video{ // only the free text is fuzzed
		ThumbnailLoc: cdn("t.jpg"), Title: a.VideoTitle, Description: a.Description, PlayerLoc: cdn(a.VideoLoc),
		Autoplay: a.Text, Tags: []string{a.Text}, Category: a.Text, GalleryLoc: cdn("g"), GalleryTitle: a.Text, Uploader: a.Text,
	}
	news := News{PublicationName: a.NewsName, Language: a.Language, PublicationDate: when, Title: a.NewsTitle,
		Keywords: []string{a.Keyword}, Genres: strings.Fields(a.Value), StockTickers: []string{a.Ticker}}
	textNews := News{PublicationName: a.NewsName, Language: "en", PublicationDate: testNow.Add(-time.Hour), Title: a.NewsTitle, Keywords: []string{a.Keyword}}
	return []URL{
		{Loc: a.Loc},
		{Loc: under(a.Loc), LastMod: when, LastModDateOnly: a.Secs%2 == 0, ChangeFreq: ChangeFreq(a.Value), Priority: new(a.Number)},
		{Loc: under("img"), Images: []Image{{Loc: a.ImageLoc, Caption: a.Caption, Title: a.Title, GeoLocation: a.Text, License: a.Href}}},
		{Loc: under("img2"), Images: []Image{{Loc: cdn(a.ImageLoc), Caption: a.Caption, Title: a.Title}}},
		{Loc: under("video"), Videos: []Video{video}},
		{Loc: under("video2"), Videos: []Video{textVideo}},
		{Loc: under("news"), News: &news},
		{Loc: under("news2"), News: &textNews},
		{Loc: under("alt"), Alternates: []Alternate{{Hreflang: a.Hreflang, Href: a.Href}, {Hreflang: "en", Href: under(a.Href)}},
			Hreflang: a.Language}, // the self link is added if Language is a tag
		{Loc: under("alt2"), Alternates: []Alternate{{Hreflang: a.Hreflang, Href: a.Href}, {Hreflang: "x-default", Href: under("alt2")}}},
		{Loc: a.Loc, LastMod: when, Images: []Image{{Loc: a.ImageLoc}}, Videos: []Video{video}, News: &news,
			Alternates: []Alternate{{Hreflang: a.Hreflang, Href: a.Href}}},
	}
}

func FuzzEncode(f *testing.F) {
	for _, a := range fuzzSeeds {
		a.add(f)
	}
	f.Fuzz(func(t *testing.T, loc, imageLoc, caption, title, videoLoc, videoTitle, description, text, value,
		newsName, language, newsTitle, keyword, ticker, hreflang, href string, number float64, secs int64) {
		checkEncode(t, fuzzArgs{loc, imageLoc, caption, title, videoLoc, videoTitle, description, text, value,
			newsName, language, newsTitle, keyword, ticker, hreflang, href, number, secs})
	})
}

// TestFuzzSeeds runs the seeds through the fuzz checks and validates their
// documents against the schemas, which the fuzzer itself cannot afford to.
func TestFuzzSeeds(t *testing.T) {
	for i, a := range fuzzSeeds {
		doc := checkEncode(t, a)
		if doc == nil {
			t.Errorf("seed %d wrote no URL", i)
			continue
		}
		xsdcheck.URLSet(t, doc)
	}
}

// checkEncode encodes the URLs of a and checks the rules every output must
// keep, whatever the input. It returns the <urlset>, or nil if no URL was
// written.
func checkEncode(t *testing.T, a fuzzArgs) []byte {
	urls := a.urls()
	var rejected, notices []rejection
	var buf bytes.Buffer
	spec := pageSpec{base: testBase, ext: extAll, now: testNow, report: func(loc string, err error) {
		rejected = append(rejected, rejection{loc, err})
	}, notice: func(loc string, notes []error) {
		for _, err := range notes {
			notices = append(notices, rejection{loc, err})
		}
	}}
	st, err := encodePage(context.Background(), listSource(urls...), 1, &buf, &spec)
	switch {
	case errors.Is(err, errEmptyPage):
		if len(rejected) != len(urls) {
			t.Fatalf("empty page, but %d of %d URLs rejected", len(rejected), len(urls))
		}
	case err != nil:
		t.Fatalf("encodePage: %v", err)
	case st.urls+len(rejected) != len(urls):
		t.Fatalf("%d written + %d rejected != %d given", st.urls, len(rejected), len(urls))
	}
	// rejections are invalid URLs, reported in order: a bad loc, or a bad
	// article in a news section; no other element skips a URL
	next := 0
	for _, r := range rejected {
		var bad *InvalidURLError
		if !errors.As(r.err, &bad) || bad.Loc != r.loc || bad.Dropped != "" || errors.Is(r.err, ErrElementDropped) ||
			bad.Field != "loc" && !strings.HasPrefix(bad.Field, "news.") || !strings.HasPrefix(r.err.Error(), "sitemap: invalid URL ") {
			t.Fatalf("rejected %q with %v, want an *InvalidURLError of its loc or news", r.loc, r.err)
		}
		for next < len(urls) && urls[next].Loc != r.loc {
			next++
		}
		if next == len(urls) {
			t.Fatalf("rejections %v are not the given URLs in order", rejected)
		}
		next++
	}
	// notices are elements dropped, and self links added to URLs written
	// with a Hreflang
	if len(notices) != st.notes {
		t.Fatalf("%d notices, stats say %d", len(notices), st.notes)
	}
	for _, n := range notices {
		var bad *InvalidURLError
		switch {
		case errors.Is(n.err, ErrSelfLinkAdded):
			if !slices.ContainsFunc(urls, func(u URL) bool { return u.Loc == n.loc && u.Hreflang != "" }) {
				t.Fatalf("self link added to %q, which has no Hreflang", n.loc)
			}
		case errors.As(n.err, &bad):
			if bad.Loc != n.loc || bad.Dropped == "" || !errors.Is(n.err, ErrElementDropped) || strings.HasPrefix(bad.Field, "news.") ||
				!strings.HasPrefix(n.err.Error(), "sitemap: <"+bad.Dropped+"> dropped from URL ") {
				t.Fatalf("notice %#v for %q", n.err, n.loc)
			}
		default:
			t.Fatalf("notice %v for %q", n.err, n.loc)
		}
	}
	if err != nil {
		return nil
	}
	doc := buf.Bytes()
	checkDocument(t, doc, a, st.urls)
	checkTextForm(t, doc, st.urls)
	return doc
}

// checkDocument decodes doc whole with encoding/xml and checks every value.
func checkDocument(t *testing.T, doc []byte, a fuzzArgs, urls int) {
	d := xml.NewDecoder(bytes.NewReader(doc))
	var stack []string
	var text strings.Builder
	seen := 0
	var loc string             // of the current <url>
	var hrefs []string         // of its alternates
	langs := map[string]bool{} // its hreflangs, in lower case
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the document does not parse: %v\n%s", err, doc)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			name := prefixOf(tok.Name.Space) + tok.Name.Local
			stack = append(stack, name)
			text.Reset()
			if name == "url" {
				seen++
				loc, hrefs = "", hrefs[:0]
				clear(langs)
			}
			for _, at := range tok.Attr {
				attr := name + "@" + at.Name.Local
				switch attr {
				case "xhtml:link@href", "video:uploader@info":
					checkURI(t, attr, at.Value, false)
					if attr == "xhtml:link@href" {
						hrefs = append(hrefs, at.Value)
					}
				case "video:player_loc@autoplay", "video:gallery_loc@title":
					checkText(t, attr, at.Value, a.Text)
				case "xhtml:link@hreflang":
					if !langtag.Valid(at.Value) || langs[strings.ToLower(at.Value)] {
						t.Errorf("hreflang %q written (again)", at.Value)
					}
					langs[strings.ToLower(at.Value)] = true
				}
			}
		case xml.CharData:
			text.Write(tok)
		case xml.EndElement:
			name := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			v := text.String()
			switch name {
			case "url":
				if len(hrefs) > 0 && !slices.Contains(hrefs, loc) {
					t.Errorf("%s has alternates %q, none of them itself", loc, hrefs)
				}
			case "loc":
				checkURI(t, "loc", v, true)
				loc = v
			case "image:loc", "image:license", "video:thumbnail_loc", "video:content_loc", "video:player_loc", "video:gallery_loc":
				checkURI(t, name, v, false)
			case "image:caption":
				checkText(t, name, v, a.Caption)
			case "image:title":
				checkText(t, name, v, a.Title)
			case "image:geo_location", "video:category", "video:uploader":
				checkText(t, name, v, a.Text)
			case "video:title":
				checkText(t, name, v, a.VideoTitle)
				if utf8.RuneCountInString(v) > limits.VideoTitle {
					t.Errorf("video title of %d characters written", utf8.RuneCountInString(v))
				}
			case "video:description":
				checkText(t, name, v, a.Description)
				if utf8.RuneCountInString(v) > limits.VideoDesc {
					t.Errorf("video description of %d characters written", utf8.RuneCountInString(v))
				}
			case "news:name":
				checkText(t, name, v, a.NewsName)
			case "news:title":
				checkText(t, name, v, a.NewsTitle)
			case "news:keywords":
				checkText(t, name, v, a.Keyword)
			case "lastmod", "video:expiration_date", "video:publication_date", "news:publication_date":
				when, err := time.Parse(time.RFC3339, v)
				if err != nil {
					if _, err := time.Parse(time.DateOnly, v); err != nil || name != "lastmod" {
						t.Errorf("%s %q is not a W3C datetime", name, v)
					}
				}
				if name == "news:publication_date" && (when.Before(testNow.Add(-xmlenc.MaxNewsAge)) || when.After(testNow.Add(xmlenc.MaxNewsSkew))) {
					t.Errorf("news of %s written at %s", v, testNow)
				}
			}
			text.Reset()
		}
	}
	if seen != urls {
		t.Errorf("decoded %d <url>, stats say %d", seen, urls)
	}
}

func prefixOf(space string) string {
	switch space {
	case xmlenc.NSImage:
		return "image:"
	case xmlenc.NSVideo:
		return "video:"
	case xmlenc.NSNews:
		return "news:"
	case xmlenc.NSXHTML:
		return "xhtml:"
	}
	return ""
}

// checkURI checks a written URI: absolute http(s), under 2,048 characters,
// only characters a URI may hold, and in canonical form (encoding it again
// changes nothing). A page's own loc is also under the base.
func checkURI(t *testing.T, what, v string, page bool) {
	t.Helper()
	if !strings.HasPrefix(v, "http://") && !strings.HasPrefix(v, "https://") || len(v) >= 2048 {
		t.Errorf("%s %q written", what, v)
	}
	for i := range len(v) {
		if c := v[i]; c >= utf8.RuneSelf || !uriByte[c] {
			t.Errorf("%s %q holds %q", what, v, c)
		}
	}
	if page && (!strings.HasPrefix(v, testBase) || len(v) < 12) {
		t.Errorf("%s %q is not a page under %s", what, v, testBase)
	}
	again, err := xmlenc.AppendURI(nil, v, "", false) // rejects a bad authority
	if page {
		again, err = xmlenc.AppendPageURI(nil, v, "", false)
	}
	if err != nil || string(again) != v {
		t.Errorf("%s %q encodes again as %q, %v", what, v, again, err)
	}
}

// uriByte holds the bytes a URI may hold as they are: RFC 3986's
// unreserved and reserved characters, and '%' of a percent-encoding.
var uriByte = func() (t [utf8.RuneSelf]bool) {
	for _, c := range "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=%" {
		t[c] = true
	}
	return t
}()

// checkText checks that a text value reads back as what was given, with
// only the runes XML forbids replaced.
func checkText(t *testing.T, what, got, given string) {
	t.Helper()
	if want := testkit.XMLText(given); got != want {
		t.Errorf("%s reads back as %q, want %q", what, got, want)
	}
}

// checkTextForm derives the plain-text form of doc as plain.go does and
// checks it has one line per URL written, each a canonical URI: no
// caption, title or other text can pass for a location.
func checkTextForm(t *testing.T, doc []byte, urls int) {
	gz, _, err := compress(1, func(w io.Writer) error { _, err := w.Write(doc); return err })
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	if err := readback.Text(&text, gz); err != nil {
		t.Fatalf("text form: %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(text.String(), "\n"), "\n")
	if len(lines) != urls {
		t.Fatalf("text form has %d lines for %d URLs:\n%s", len(lines), urls, text.String())
	}
	for _, l := range lines {
		checkURI(t, "text line", l, true)
	}
}
