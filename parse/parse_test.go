package parse

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
)

const head = `<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n"

// TestGoldens parses every document of the root package's testdata.
func TestGoldens(t *testing.T) {
	files, _ := filepath.Glob("../testdata/*.golden")
	if len(files) == 0 {
		t.Fatal("no golden files")
	}
	count := map[string]int{"urlset": 5, "image": 1, "video": 2, "news": 2, "alternates": 1, "all": 1, "index": 3}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".golden")
		t.Run(name, func(t *testing.T) {
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var n int
			var errs []error
			if name == "index" {
				var sms []Sitemap
				sms, errs = collect(Index(f, Limits{}))
				n = len(sms)
			} else {
				var urls []sitemap.URL
				urls, errs = collect(URLs(f, Limits{}))
				n = len(urls)
				if name == "all" && len(urls) == 1 {
					checkAll(t, urls[0])
				}
			}
			if len(errs) > 0 || n != count[name] {
				t.Errorf("%d entries, errors %v; want %d", n, errs, count[name])
			}
		})
	}
}

// checkAll spot-checks all.golden, the URL with every extension.
func checkAll(t *testing.T, u sitemap.URL) {
	t.Helper()
	v := u.Videos[0]
	switch {
	case u.Loc != "https://example.com/everything?with=all&the=extensions",
		!u.LastMod.Equal(time.Date(2024, 6, 1, 8, 30, 15, 0, time.UTC)), u.ChangeFreq != sitemap.Daily, *u.Priority != 1,
		len(u.Images) != 2, u.Images[1].Caption != "A dog & a <cat>",
		v.Duration != 600*time.Second, *v.Rating != 4.2, *v.ViewCount != 12345, len(v.Tags) != 4,
		v.Prices[1].Type != "purchase", v.Platform.Platforms[1] != "tv", v.UploaderInfo == "", v.AllowEmbed != "yes",
		u.News.Keywords[2] != "acquisition", u.News.Genres[1] != "Blog", len(u.Alternates) != 5: // with the self link the encoder added
		t.Errorf("all.golden read as %+v", u)
	}
}

// TestNamespaces matches elements by namespace URI, whatever their prefix,
// and skips what it does not know.
func TestNamespaces(t *testing.T) {
	doc := `<?xml version="1.0"?><s:urlset xmlns:s="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:img="http://www.google.com/schemas/sitemap-image/1.1" xmlns:image="urn:not-images" xmlns:m="http://www.google.com/schemas/sitemap-mobile/1.0">
<!-- a comment --><?pi x?>
<s:url><s:loc> https://example.com/a </s:loc><m:mobile/><img:image><img:loc>https://example.com/i.jpg</img:loc></img:image>
<image:image><image:loc>https://example.com/not-an-image.jpg</image:loc></image:image>
<x:deep xmlns:x="urn:x"><x:a><x:b>text</x:b></x:a></x:deep><s:unknown>1</s:unknown></s:url>
<other xmlns="urn:other"><url><loc>https://example.com/skipped</loc></url></other>
</s:urlset>`
	urls, errs := parseString(doc)
	if len(errs) > 0 || len(urls) != 1 {
		t.Fatalf("%v, %v", urls, errs)
	}
	if u := urls[0]; u.Loc != "https://example.com/a" || len(u.Images) != 1 || u.Images[0].Loc != "https://example.com/i.jpg" {
		t.Errorf("got %+v", u)
	}
}

// TestInvalidValues: a bad value is an error at its element, the URL is
// yielded with it, and reading goes on.
func TestInvalidValues(t *testing.T) {
	for _, tc := range []struct {
		name, url, path string
		col             int
	}{
		{"date", `<url><loc>https://example.com/</loc><lastmod>2024-13-01</lastmod></url>`, "urlset/url/lastmod", 37},
		{"priority", `<url><loc>https://example.com/</loc><priority>high</priority></url>`, "urlset/url/priority", 37},
		{"priority NaN", `<url><loc>https://example.com/</loc><priority>NaN</priority></url>`, "urlset/url/priority", 37},
		{"changefreq", `<url><loc>https://example.com/</loc><changefreq>sometimes</changefreq></url>`, "urlset/url/changefreq", 37},
		{"no loc", `<url><lastmod>2024</lastmod></url>`, "urlset/url", 1},
		{"element in loc", `<url><loc>https://example.com/<b>x</b></loc></url>`, "urlset/url/loc", 6},
		{"image without loc", `<url><loc>https://example.com/</loc><image:image xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"/></url>`, "urlset/url/image:image", 37},
		{"duration", `<url><loc>https://example.com/</loc><v:video xmlns:v="http://www.google.com/schemas/sitemap-video/1.1"><v:duration>-1</v:duration></v:video></url>`, "urlset/url/video:video/video:duration", 104},
		{"view count", `<url><loc>https://example.com/</loc><v:video xmlns:v="http://www.google.com/schemas/sitemap-video/1.1"><v:view_count>1e3</v:view_count></v:video></url>`, "urlset/url/video:video/video:view_count", 104},
		{"news date", `<url><loc>https://example.com/</loc><n:news xmlns:n="http://www.google.com/schemas/sitemap-news/0.9"><n:publication_date>yesterday</n:publication_date></n:news></url>`, "urlset/url/news:news/news:publication_date", 102},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := head + tc.url + "\n<url><loc>https://example.com/next</loc></url>\n</urlset>\n"
			var got []error
			var locs []string
			for u, err := range URLs(strings.NewReader(doc), Limits{}) {
				got = append(got, err)
				locs = append(locs, u.Loc)
			}
			if len(got) != 2 || got[1] != nil || locs[1] != "https://example.com/next" {
				t.Fatalf("yielded %q with %v; want the bad URL, then the next", locs, got)
			}
			var e *Error
			if !errors.As(got[0], &e) || !errors.Is(e, ErrInvalid) {
				t.Fatalf("error %v, want an *Error wrapping ErrInvalid", got[0])
			}
			if e.Line != 3 || e.Column != tc.col || e.Path != tc.path {
				t.Errorf("error at %d:%d %s, want 3:%d %s (%v)", e.Line, e.Column, e.Path, tc.col, tc.path, e)
			}
		})
	}
}

// TestFatal: malformed XML, a wrong root and refused constructs end the
// sequence with one error at a position.
func TestFatal(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		is        error
		line      int
	}{
		{"index as urlset", `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"></sitemapindex>`, ErrRoot, 1},
		{"no namespace", "\n<urlset><url><loc>https://example.com/</loc></url></urlset>", ErrRoot, 2},
		{"old namespace", `<urlset xmlns="http://www.google.com/schemas/sitemap/0.84"></urlset>`, ErrRoot, 1},
		{"empty", ``, ErrRoot, 1},
		{"text before root", `hello<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"></urlset>`, ErrRoot, 1},
		{"second root", head + "</urlset>\n<urlset/>", ErrRoot, 4},
		{"doctype", `<?xml version="1.0"?>` + "\n" + `<!DOCTYPE urlset [<!ENTITY x "boom">]>` + "\n" + head[39:] + `<url><loc>&x;</loc></url></urlset>`, ErrDirective, 2},
		{"undeclared entity", head + `<url><loc>https://example.com/&nbsp;</loc></url></urlset>`, nil, 3},
		{"unclosed", head + "<url><loc>https://example.com/</loc>\n", nil, 4},
		{"mismatched", head + "<url><loc>https://example.com/</url></loc></urlset>", nil, 3},
		{"latin-1", `<?xml version="1.0" encoding="ISO-8859-1"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"/>`, nil, 1},
		{"bad gzip", "\x1f\x8b\x08\x00garbage", nil, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			urls, errs := parseString(tc.doc)
			if len(errs) != 1 || len(urls) != 0 {
				t.Fatalf("got %v, %v; want one error", urls, errs)
			}
			var e *Error
			if !errors.As(errs[0], &e) || tc.is != nil && !errors.Is(e, tc.is) || errors.Is(e, ErrInvalid) {
				t.Fatalf("error %v, want an *Error wrapping %v", errs[0], tc.is)
			}
			if e.Line != tc.line || e.Column < 1 {
				t.Errorf("error at %d:%d, want line %d (%v)", e.Line, e.Column, tc.line, e)
			}
		})
	}
}

// TestStopEarly: breaking out of the loop stops reading.
func TestStopEarly(t *testing.T) {
	doc := head + strings.Repeat("<url><loc>https://example.com/</loc></url>\n", 3) + "</urlset>"
	n := 0
	for range URLs(strings.NewReader(doc), Limits{}) {
		if n++; n == 2 {
			break
		}
	}
	if n != 2 {
		t.Errorf("%d iterations", n)
	}
}

func TestErrorString(t *testing.T) {
	e := &Error{Line: 3, Column: 7, Path: "urlset/url/lastmod", Err: ErrInvalid}
	if got, want := e.Error(), "3:7: urlset/url/lastmod: sitemap: invalid value"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}
