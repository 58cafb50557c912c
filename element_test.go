package sitemap

import (
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/xmlenc"
	"github.com/freshmap/sitemap/internal/xsdcheck"
)

func TestStandardFields(t *testing.T) {
	loc := testBase + "page"
	u := func(mod func(*URL)) URL {
		u := URL{Loc: loc}
		mod(&u)
		return u
	}
	plus2 := time.FixedZone("+02:00", 2*60*60)
	cases := []ruleCase{
		// lastmod: W3C Datetime in UTC to the second, or a date; years 0001-9999
		{name: "lastmod UTC", u: u(func(u *URL) { u.LastMod = time.Date(2024, 2, 29, 13, 4, 5, 0, time.UTC) }), want: "<lastmod>2024-02-29T13:04:05Z</lastmod>"},
		{name: "lastmod converted to UTC", u: u(func(u *URL) { u.LastMod = time.Date(2024, 3, 1, 1, 30, 0, 0, plus2) }), want: "<lastmod>2024-02-29T23:30:00Z</lastmod>"},
		{name: "lastmod truncated to the second", u: u(func(u *URL) { u.LastMod = time.Date(2024, 1, 2, 3, 4, 5, 999_999_999, time.UTC) }), want: "<lastmod>2024-01-02T03:04:05Z</lastmod>"},
		{name: "lastmod date only", u: u(func(u *URL) { u.LastMod, u.LastModDateOnly = time.Date(2024, 3, 1, 1, 30, 0, 0, plus2), true }), want: "<lastmod>2024-02-29</lastmod>"},
		{name: "lastmod year 1", u: u(func(u *URL) { u.LastMod = day(1, 1, 2) }), want: "<lastmod>0001-01-02T00:00:00Z</lastmod>"},
		{name: "lastmod zero time is unknown", u: u(func(u *URL) { u.LastMod = day(1, 1, 1) }), want: "<url><loc>" + loc + "</loc></url>"},
		{name: "lastmod zero time in a zone is unknown", u: u(func(u *URL) { u.LastMod = time.Date(1, 1, 1, 2, 0, 0, 0, plus2) }), want: "<url><loc>" + loc + "</loc></url>"},
		{name: "lastmod a nanosecond after the zero time", u: u(func(u *URL) { u.LastMod = day(1, 1, 1).Add(time.Nanosecond) }), want: "<lastmod>0001-01-01T00:00:00Z</lastmod>"},
		// Years that can be written, but in the future of the build: written
		// as the build time (encodePage, maxLastModSkew).
		{name: "lastmod year 9999", u: u(func(u *URL) { u.LastMod = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC) }), want: "<lastmod>" + testNow.Format("2006-01-02T15:04:05Z") + "</lastmod>"},
		{name: "lastmod year 10000 local is 9999 UTC", u: u(func(u *URL) { u.LastMod = time.Date(10000, 1, 1, 1, 0, 0, 0, plus2) }), want: "<lastmod>" + testNow.Format("2006-01-02T15:04:05Z") + "</lastmod>"},
		{name: "lastmod year 0", u: u(func(u *URL) { u.LastMod = day(0, 12, 31) }), field: "lastmod", err: xmlenc.ErrYear, dropped: "lastmod", want: "<url><loc>" + loc + "</loc></url>"},
		{name: "lastmod year 10000", u: u(func(u *URL) { u.LastMod = day(10000, 1, 1) }), field: "lastmod", err: xmlenc.ErrYear, dropped: "lastmod", want: "<url><loc>" + loc + "</loc></url>"},
		{name: "lastmod year -5", u: u(func(u *URL) { u.LastMod = day(-5, 1, 1) }), field: "lastmod", err: xmlenc.ErrYear, dropped: "lastmod", want: "<url><loc>" + loc + "</loc></url>"},
		{name: "no lastmod", u: u(func(u *URL) {}), want: "<url><loc>" + loc + "</loc></url>"},

		// changefreq
		{name: "changefreq always", u: u(func(u *URL) { u.ChangeFreq = Always }), want: "<changefreq>always</changefreq>"},
		{name: "changefreq hourly", u: u(func(u *URL) { u.ChangeFreq = Hourly }), want: "<changefreq>hourly</changefreq>"},
		{name: "changefreq daily", u: u(func(u *URL) { u.ChangeFreq = Daily }), want: "<changefreq>daily</changefreq>"},
		{name: "changefreq weekly", u: u(func(u *URL) { u.ChangeFreq = Weekly }), want: "<changefreq>weekly</changefreq>"},
		{name: "changefreq monthly", u: u(func(u *URL) { u.ChangeFreq = Monthly }), want: "<changefreq>monthly</changefreq>"},
		{name: "changefreq yearly", u: u(func(u *URL) { u.ChangeFreq = Yearly }), want: "<changefreq>yearly</changefreq>"},
		{name: "changefreq never", u: u(func(u *URL) { u.ChangeFreq = Never }), want: "<changefreq>never</changefreq>"},
		{name: "changefreq sometimes", u: u(func(u *URL) { u.ChangeFreq = "sometimes" }), field: "changefreq", err: xmlenc.ErrChangeFreq, dropped: "changefreq", want: "<url><loc>" + loc + "</loc></url>"},
		{name: "changefreq capitalised", u: u(func(u *URL) { u.ChangeFreq = "Daily" }), field: "changefreq", err: xmlenc.ErrChangeFreq, dropped: "changefreq", want: "<url><loc>" + loc + "</loc></url>"},

		// priority: 0.0 to 1.0, an explicit 0.0 is written
		{name: "priority 0.0", u: u(func(u *URL) { u.Priority = new(0.0) }), want: "<priority>0.0</priority>"},
		{name: "priority -0.0", u: u(func(u *URL) { u.Priority = new(math.Copysign(0, -1)) }), want: "<priority>0.0</priority>"},
		{name: "priority 0.8", u: u(func(u *URL) { u.Priority = new(0.8) }), want: "<priority>0.8</priority>"},
		{name: "priority 0.25", u: u(func(u *URL) { u.Priority = new(0.25) }), want: "<priority>0.25</priority>"},
		{name: "priority 1", u: u(func(u *URL) { u.Priority = new(1.0) }), want: "<priority>1.0</priority>"},
		{name: "priority -0.1", u: u(func(u *URL) { u.Priority = new(-0.1) }), field: "priority", err: xmlenc.ErrPriority, dropped: "priority", want: "<url><loc>" + loc + "</loc></url>"},
		{name: "priority 1.1", u: u(func(u *URL) { u.Priority = new(1.1) }), field: "priority", err: xmlenc.ErrPriority, dropped: "priority", want: "<url><loc>" + loc + "</loc></url>"},
		{name: "priority NaN", u: u(func(u *URL) { u.Priority = new(math.NaN()) }), field: "priority", err: xmlenc.ErrPriority, dropped: "priority", want: "<url><loc>" + loc + "</loc></url>"},
		{name: "priority +Inf", u: u(func(u *URL) { u.Priority = new(math.Inf(1)) }), field: "priority", err: xmlenc.ErrPriority, dropped: "priority", want: "<url><loc>" + loc + "</loc></url>"},
		{name: "all standard fields in schema order", u: u(func(u *URL) {
			u.LastMod, u.ChangeFreq, u.Priority = day(2024, 5, 6), Weekly, new(0.5)
		}), want: "<url><loc>" + loc + "</loc><lastmod>2024-05-06T00:00:00Z</lastmod><changefreq>weekly</changefreq><priority>0.5</priority></url>"},
	}
	runRules(t, cases)
}

func imageURL(n int, mod func(*Image)) URL {
	u := URL{Loc: testBase + "gallery"}
	for i := range n {
		img := Image{Loc: "https://cdn.example.net/img/" + strings.Repeat("x", i%7) + ".jpg"}
		if mod != nil {
			mod(&img)
		}
		u.Images = append(u.Images, img)
	}
	return u
}

func TestImageRules(t *testing.T) {
	img := func(mod func(*Image)) URL { return imageURL(1, mod) }
	runRules(t, []ruleCase{
		{name: "on a CDN", u: img(nil), want: "<image:image><image:loc>https://cdn.example.net/img/.jpg</image:loc></image:image>"},
		{name: "every field", u: img(func(i *Image) {
			i.Caption, i.GeoLocation, i.Title, i.License = "A <b>dog</b> & a cat", "Limerick, Ireland", `"Dogs"`, "https://example.com/license?id=1&v=2"
		}), want: "<image:caption>A &lt;b&gt;dog&lt;/b&gt; &amp; a cat</image:caption><image:geo_location>Limerick, Ireland</image:geo_location>" +
			"<image:title>&quot;Dogs&quot;</image:title><image:license>https://example.com/license?id=1&amp;v=2</image:license></image:image>"},
		{name: "1000 images", u: imageURL(1000, nil), want: "<image:image>"},
		{name: "1001 images", u: imageURL(1001, nil), field: "image", err: xmlenc.ErrTooMany, dropped: "image:image"},
		{name: "no image loc", u: img(func(i *Image) { i.Loc = "" }), field: "image.loc", err: xmlenc.ErrNotAbsolute, dropped: "image:image"},
		{name: "relative image loc", u: img(func(i *Image) { i.Loc = "/img/a.jpg" }), field: "image.loc", err: xmlenc.ErrNotAbsolute, dropped: "image:image"},
		{name: "data image loc", u: img(func(i *Image) { i.Loc = "data:image/png;base64,AAAA" }), field: "image.loc", err: xmlenc.ErrNotAbsolute, dropped: "image:image"},
		{name: "image loc with a control character", u: img(func(i *Image) { i.Loc = "https://cdn.example.net/a\x00.jpg" }), field: "image.loc", err: xmlenc.ErrControl, dropped: "image:image"},
		{name: "image loc with user info", u: img(func(i *Image) { i.Loc = "https://me@cdn.example.net/a.jpg" }), field: "image.loc", err: xmlenc.ErrBadHost, dropped: "image:image"},
		{name: "image license not a URL", u: img(func(i *Image) { i.License = "CC-BY" }), field: "image.license", err: xmlenc.ErrNotAbsolute, dropped: "image:image"},
		{name: "image loc percent-encoded", u: img(func(i *Image) { i.Loc = "https://cdn.example.net/bild über.jpg" }), want: "<image:loc>https://cdn.example.net/bild%20%C3%BCber.jpg</image:loc>"},
	})
}

// TestUndeclaredExtension: the elements of an extension the section does
// not declare are dropped, all of them with one report, and the URL is
// written without them.
func TestUndeclaredExtension(t *testing.T) {
	full := URL{Loc: testBase + "x", Images: []Image{{Loc: "https://cdn.example.net/a.jpg"}, {Loc: "https://cdn.example.net/b.jpg"}}}
	for _, tc := range []struct {
		name           string
		ext            Extensions
		u              URL
		field, element string
	}{
		{"image with video only", ExtVideo, full, "image", "image:image"},
		{"image with none", ExtNone, full, "image", "image:image"},
		{"video with image only", ExtImage, videoURL(nil), "video", "video:video"},
		{"news with the others", ExtImage | ExtVideo | ExtAlternates, newsURL(nil), "news", "news:news"},
		{"news with the default", 0, newsURL(nil), "news", "news:news"},
		{"alternates with news only", ExtNews, alternatesURL("en", "de"), "xhtml:link", "xhtml:link"},
		{"ExtNone wins over the others", ExtNone | ExtImage, full, "image", "image:image"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := encodeSpec(t, listSource(URL{Loc: anchorLoc}, tc.u), pageSpec{base: testBase, ext: tc.ext})
			if r.err != nil || len(r.rejected) > 0 || r.st.urls != 2 {
				t.Fatalf("err %v, rejected %v, %d URLs written", r.err, r.rejected, r.st.urls)
			}
			checkDropped(t, r, tc.u, tc.field, xmlenc.ErrUndeclared, tc.element)
			if want := "<url><loc>" + tc.u.Loc + "</loc></url>"; !strings.Contains(string(r.doc), want) {
				t.Errorf("document lacks %s:\n%s", want, r.doc)
			}
			xsdcheck.URLSet(t, r.doc)
		})
	}
}

func TestNamespaces(t *testing.T) {
	const (
		img   = ` xmlns:image="` + xmlenc.NSImage + `"`
		video = ` xmlns:video="` + xmlenc.NSVideo + `"`
		news  = ` xmlns:news="` + xmlenc.NSNews + `"`
		xhtml = ` xmlns:xhtml="` + xmlenc.NSXHTML + `"`
	)
	for _, tc := range []struct {
		ext  Extensions
		want string
	}{
		{0, img + video + xhtml}, // news is opt-in
		{ExtNone, ""},
		{ExtImage, img},
		{ExtVideo | ExtAlternates, video + xhtml},
		{ExtNews, news},
		{ExtImage | ExtVideo | ExtNews | ExtAlternates, img + video + news + xhtml},
	} {
		r := encodeSpec(t, listSource(URL{Loc: anchorLoc}), pageSpec{base: testBase, ext: tc.ext})
		want := xmlenc.XMLHeader + `<urlset xmlns="` + xmlenc.NSSitemap + `"` + tc.want + ">\n<url>"
		if !strings.HasPrefix(string(r.doc), want) {
			t.Errorf("Extensions %#x: document starts\n%.300s\nwant\n%s", tc.ext, r.doc, want)
		}
		xsdcheck.URLSet(t, r.doc)
	}
}

// TestOneBadElement: a URL with one bad image among good ones (a loc of
// 2,048 characters or more), one bad video, one bad alternate, or a news
// article in a section that does not declare news, is served without that
// element, with the others; the drop reaches OnNotice (not OnReject),
// Stats and SectionStats, and the page is schema-valid. A bad article in a
// news section skips its URL instead (appendNews).
func TestOneBadElement(t *testing.T) {
	const page = testBase + "product"
	long := "https://cdn.example.net/" + strings.Repeat("x", 2048) + ".jpg"
	good := videoURL(nil).Videos[0]
	badVideo := good
	badVideo.Title = strings.Repeat("t", 101)
	for _, tc := range []struct {
		name           string
		u              URL
		ext            Extensions
		field, element string
		err            error
		want, unwanted []string // fragments the page holds, and does not
	}{
		{name: "image", u: URL{Loc: page, Images: []Image{{Loc: "https://cdn.example.net/1.jpg"}, {Loc: long}, {Loc: "https://cdn.example.net/3.jpg"}}},
			field: "image.loc", element: "image:image", err: xmlenc.ErrTooLong,
			want:     []string{"<image:image><image:loc>https://cdn.example.net/1.jpg</image:loc></image:image><image:image><image:loc>https://cdn.example.net/3.jpg</image:loc></image:image></url>"},
			unwanted: []string{"xxxx"}},
		{name: "video", u: URL{Loc: page, Videos: []Video{good, badVideo}},
			field: "video.title", element: "video:video", err: xmlenc.ErrLength,
			want:     []string{"<video:title>" + good.Title + "</video:title>"},
			unwanted: []string{"ttttt"}},
		{name: "alternate", u: URL{Loc: page, Alternates: []Alternate{{Hreflang: "en", Href: page}, {Hreflang: "de", Href: long}, {Hreflang: "fr", Href: testBase + "fr/product"}}},
			field: "xhtml:link.href", element: "xhtml:link", err: xmlenc.ErrTooLong,
			want:     []string{"</loc>" + link("en", page) + link("fr", testBase+"fr/product") + "</url>"},
			unwanted: []string{`hreflang="de"`}},
		{name: "news undeclared", u: URL{Loc: page, Images: []Image{{Loc: "https://cdn.example.net/1.jpg"}}, News: newsURL(nil).News},
			field: "news", element: "news:news", err: xmlenc.ErrUndeclared,
			want: []string{"<image:loc>https://cdn.example.net/1.jpg</image:loc></image:image></url>"}, unwanted: []string{"news:"}},
		{name: "news too old in a news section", ext: ExtNews, u: URL{Loc: page, News: newsURL(func(n *News) { n.PublicationDate = testNow.Add(-72 * time.Hour) }).News},
			field: "news.publication_date", err: xmlenc.ErrNewsTooOld, unwanted: []string{"<loc>" + page + "</loc>"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var rejected, noticed []error
			hook := func(to *[]error) func(string, int64, string, error) {
				return func(section string, p int64, loc string, err error) {
					if section != "s" || p != 1 || loc != page {
						t.Errorf("reported (%q, %d, %q)", section, p, loc)
					}
					mu.Lock()
					*to = append(*to, err)
					mu.Unlock()
				}
			}
			sm := newTestSitemap(t, Config{Now: func() time.Time { return testNow }, OnReject: hook(&rejected), OnNotice: hook(&noticed)},
				Section{Name: "s", Source: FromSlice([]URL{{Loc: anchorLoc}, tc.u}, 1000), Extensions: tc.ext})
			w := get(sm, "/sitemap-s-1.xml")
			if w.Code != 200 {
				t.Fatalf("status %d", w.Code)
			}
			body := w.Body.String()
			for _, f := range tc.want {
				if !strings.Contains(body, f) {
					t.Errorf("page lacks %.300q:\n%.3000s", f, body)
				}
			}
			for _, f := range tc.unwanted {
				if strings.Contains(body, f) {
					t.Errorf("page holds %.300q:\n%.3000s", f, body)
				}
			}
			xsdcheck.URLSet(t, w.Body.Bytes())
			reported, others := noticed, rejected
			if tc.element == "" { // the URL is skipped
				reported, others = rejected, noticed
			}
			var bad *InvalidURLError
			if len(reported) != 1 || len(others) != 0 || !errors.As(reported[0], &bad) || bad.Field != tc.field || bad.Dropped != tc.element ||
				!errors.Is(reported[0], tc.err) || errors.Is(reported[0], ErrElementDropped) != (tc.element != "") {
				t.Fatalf("rejected %v, noticed %v; want one %s on %s, dropping %q", rejected, noticed, tc.err, tc.field, tc.element)
			}
			st, sec := sm.Stats(), sectionStatsOf(t, sm, "s")
			if tc.element == "" {
				if st.RejectedURLs != 1 || st.DroppedElements != 0 || sec.RejectedURLs[tc.field] != 1 {
					t.Errorf("stats %+v, section %+v", st, sec)
				}
				return
			}
			if st.RejectedURLs != 0 || st.DroppedElements != 1 || st.CorrectedURLs != 1 || sec.DroppedElements[tc.field] != 1 || sec.RejectedURLs != nil {
				t.Errorf("stats %+v, section %+v", st, sec)
			}
		})
	}
}

func TestLocRules(t *testing.T) {
	loc := func(s string) URL { return URL{Loc: s} }
	// The loc is under 2,048 characters once percent-encoded; XML
	// entities do not count.
	fill := func(n int, tail string) string { // a loc of n characters ending in tail
		return testBase + strings.Repeat("a", n-len(testBase)-len(tail)) + tail
	}
	runRules(t, []ruleCase{
		{name: "plain", u: loc(testBase + "a"), want: "<loc>https://example.com/a</loc>"},
		{name: "the base itself", u: loc(testBase), want: "<loc>https://example.com/</loc>"},
		{name: "no path", u: loc("https://example.com"), want: "<loc>https://example.com/</loc>"},
		{name: "upper-case host", u: loc("HTTPS://EXAMPLE.COM/A"), want: "<loc>https://example.com/A</loc>"},
		{name: "iri", u: loc("https://example.com/ümlat.php&q=name"), want: "<loc>https://example.com/%C3%BCmlat.php&amp;q=name</loc>"},
		{name: "dots inside a segment", u: loc(testBase + "a..b/.well-known/x."), want: "<loc>https://example.com/a..b/.well-known/x.</loc>"},
		{name: "dots in the query", u: loc(testBase + "a?p=/../x"), want: "<loc>https://example.com/a?p=/../x</loc>"},
		{name: "dots in the query and a fragment", u: loc(testBase + "a?p=/../x#/./y#z"), want: "<loc>https://example.com/a?p=/../x#/./y%23z</loc>"},
		{name: "dots in the fragment", u: loc(testBase + "a#/../x?y"), want: "<loc>https://example.com/a#/../x?y</loc>"},
		{name: "2047 characters", u: loc(fill(2047, "")), want: fill(2047, "") + "</loc>"},
		{name: "2047 characters with &", u: loc(fill(2047, "&")), want: strings.TrimSuffix(fill(2047, "&"), "&") + "&amp;</loc>"},
		{name: "2047 characters percent-encoded", u: loc(fill(2043, "ü")), want: strings.TrimSuffix(fill(2043, "ü"), "ü") + "%C3%BC</loc>"},
		{name: "2048 characters", u: loc(fill(2048, "")), field: "loc", err: xmlenc.ErrTooLong},
		{name: "2048 characters percent-encoded", u: loc(fill(2044, "ü")), field: "loc", err: xmlenc.ErrTooLong},
		{name: "2048 characters from a space", u: loc(fill(2046, " ")), field: "loc", err: xmlenc.ErrTooLong},
		{name: "a megabyte", u: loc(fill(1<<20, "")), field: "loc", err: xmlenc.ErrTooLong},

		{name: "relative", u: loc("/products/item-1234"), field: "loc", err: xmlenc.ErrNotAbsolute},
		{name: "empty", u: loc(""), field: "loc", err: xmlenc.ErrNotAbsolute},
		{name: "ftp", u: loc("ftp://example.com/a"), field: "loc", err: xmlenc.ErrNotAbsolute},
		{name: "bad host", u: loc("https://exa mple.com/a"), field: "loc", err: xmlenc.ErrBadHost},
		{name: "bad IDN host", u: loc("https://bü_cher.example/a"), field: "loc", err: xmlenc.ErrBadHost},
		{name: "user info", u: loc("https://admin@example.com/a"), field: "loc", err: xmlenc.ErrBadHost},
		{name: "nul", u: loc(testBase + "a\x00"), field: "loc", err: xmlenc.ErrControl},
		{name: "newline", u: loc(testBase + "a\nb"), field: "loc", err: xmlenc.ErrControl},
		{name: "invalid UTF-8", u: loc(testBase + "\xc3\x28"), field: "loc", err: xmlenc.ErrControl},

		// outside the base: other scheme, host, port, or a name that only
		// starts like it
		{name: "other host", u: loc("https://example.org/a"), field: "loc", err: xmlenc.ErrOutsideBase},
		{name: "subdomain", u: loc("https://www.example.com/a"), field: "loc", err: xmlenc.ErrOutsideBase},
		{name: "longer host", u: loc("https://example.com.evil.net/a"), field: "loc", err: xmlenc.ErrOutsideBase},
		{name: "http", u: loc("http://example.com/a"), field: "loc", err: xmlenc.ErrOutsideBase},
		{name: "port", u: loc("https://example.com:8443/a"), field: "loc", err: xmlenc.ErrOutsideBase},
		{name: "dot segment", u: loc(testBase + "a/../b"), field: "loc", err: xmlenc.ErrDotSegment},
		{name: "dot segment at the end", u: loc(testBase + "a/.."), field: "loc", err: xmlenc.ErrDotSegment},
		{name: "single dot", u: loc(testBase + "./a"), field: "loc", err: xmlenc.ErrDotSegment},
		{name: "encoded dot segment", u: loc(testBase + "a/%2E%2e/b"), field: "loc", err: xmlenc.ErrDotSegment},
		{name: "half-encoded dot segment", u: loc(testBase + "a/.%2E?x"), field: "loc", err: xmlenc.ErrDotSegment},
	})
}

func TestLocUnderPathBase(t *testing.T) {
	for _, tc := range []struct {
		base, loc string
		err       error
	}{
		{"https://example.com/shop/", "https://example.com/shop/a", nil},
		{"https://example.com/shop/", "https://EXAMPLE.com/shop/", nil},
		{"https://example.com/shop/", "https://example.com/shop", xmlenc.ErrOutsideBase},
		{"https://example.com/shop/", "https://example.com/shopping", xmlenc.ErrOutsideBase},
		{"https://example.com/shop/", "https://example.com/Shop/a", xmlenc.ErrOutsideBase}, // the path is case-sensitive
		{"https://example.com/shop/", "https://example.com/a/../shop/x", xmlenc.ErrOutsideBase},
		{"https://example.com/shop/", "https://example.com/shop/../admin", xmlenc.ErrDotSegment},
		{"https://example.com/shop/", "https://example.com/shop/%2e%2e/admin", xmlenc.ErrDotSegment},
		{"https://example.com/d%C3%BC/", "https://example.com/dü/x", nil},
		{"http://a.b/", "http://a.b/c", nil},               // 12 characters
		{"http://a.b/", "http://a.b/", xmlenc.ErrTooShort}, // 11: under the schema's minLength
		{"http://a.b/", "http://a.b", xmlenc.ErrTooShort},
	} {
		t.Run(tc.base+" "+tc.loc, func(t *testing.T) {
			r := encodeSpec(t, listSource(URL{Loc: tc.loc}), pageSpec{base: tc.base})
			if tc.err == nil {
				if r.err != nil || len(r.rejected) > 0 {
					t.Fatalf("err %v, rejected %v", r.err, r.rejected)
				}
				xsdcheck.URLSet(t, r.doc)
				return
			}
			if !errors.Is(r.err, errEmptyPage) {
				t.Errorf("err %v, want errEmptyPage", r.err)
			}
			checkRejected(t, r, tc.loc, "loc", tc.err)
		})
	}
}
