package sitemap

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/freshmap/sitemap/internal/testkit"
	"github.com/freshmap/sitemap/internal/xmlenc"
	"github.com/freshmap/sitemap/internal/xsdcheck"
)

// alternatesURL is a URL with one alternate per hreflang: the first links
// to the page itself, the others to https://example.com/HREFLANG/page.
func alternatesURL(hreflangs ...string) URL {
	u := URL{Loc: testBase + "page"}
	for i, h := range hreflangs {
		href := "https://example.com/" + h + "/page"
		if i == 0 {
			href = u.Loc
		}
		u.Alternates = append(u.Alternates, Alternate{Hreflang: h, Href: href})
	}
	return u
}

// link is the <xhtml:link> of hreflang h to href.
func link(h, href string) string {
	return `<xhtml:link rel="alternate" hreflang="` + h + `" href="` + href + `"/>`
}

func TestAlternateRules(t *testing.T) {
	a := alternatesURL
	with := func(u URL, f func(*URL)) URL { f(&u); return u }
	runRules(t, []ruleCase{
		{name: "en", u: a("en"), want: link("en", testBase+"page")},
		{name: "x-default", u: a("en", "x-default"), want: link("en", testBase+"page") + link("x-default", "https://example.com/x-default/page")},
		{name: "the page as x-default", u: a("x-default", "en"), want: link("x-default", testBase+"page")},
		{name: "the page as en and x-default", u: with(a("en", "de"), func(u *URL) {
			u.Alternates = append(u.Alternates, Alternate{Hreflang: "x-default", Href: u.Loc})
		}), want: link("x-default", testBase+"page") + "</url>"},
		{name: "another host", u: with(a("en"), func(u *URL) {
			u.Alternates = append(u.Alternates, Alternate{Hreflang: "fr", Href: "https://example.fr/page"})
		}), want: `href="https://example.fr/page"`},
		{name: "href with query", u: with(a("en"), func(u *URL) {
			u.Alternates = append(u.Alternates, Alternate{Hreflang: "fr", Href: "https://example.com/page?lang=fr&x='y'"})
		}), want: `href="https://example.com/page?lang=fr&amp;x=&apos;y&apos;"`},
		{name: "IDN href", u: with(a("en"), func(u *URL) {
			u.Alternates = append(u.Alternates, Alternate{Hreflang: "de", Href: "https://bücher.example/seite"})
		}), want: link("de", "https://xn--bcher-kva.example/seite")},

		// the page lists itself: compared in canonical form, or added
		// from URL.Hreflang and reported
		{name: "self link in another form", u: with(a("de", "en"), func(u *URL) { u.Alternates[0].Href = "HTTPS://Example.com/page" }),
			want: link("de", testBase+"page")},
		{name: "self link with an IRI", u: URL{Loc: testBase + "seité", Alternates: []Alternate{{Hreflang: "fr", Href: "https://EXAMPLE.com/seit%C3%A9"}}},
			want: link("fr", testBase+"seit%C3%A9") + "</url>"},
		{name: "self link added", u: with(a("de", "fr"), func(u *URL) { u.Alternates[0].Href = "https://example.com/de/page"; u.Hreflang = "en" }),
			want: link("fr", "https://example.com/fr/page") + link("en", testBase+"page") + "</url>", notice: ErrSelfLinkAdded},
		{name: "self link added with a query", u: URL{Loc: testBase + "p?a=1&b=2", Hreflang: "en-GB", Alternates: []Alternate{{Hreflang: "de", Href: testBase + "de/p"}}},
			want: link("en-GB", testBase+"p?a=1&amp;b=2") + "</url>", notice: ErrSelfLinkAdded},
		{name: "Hreflang unused", u: with(a("en", "de"), func(u *URL) { u.Hreflang = "en" }), want: link("de", "https://example.com/de/page") + "</url>"},
		{name: "no self link", u: with(a("de", "fr"), func(u *URL) { u.Alternates[0].Href = "https://example.com/de/page" }),
			field: "xhtml:link", err: xmlenc.ErrNoSelfLink, dropped: "xhtml:link", want: "<url><loc>" + testBase + "page</loc></url>"},
		{name: "self link only in the path's case", u: with(a("de"), func(u *URL) { u.Alternates[0].Href = "https://example.com/Page" }),
			field: "xhtml:link", err: xmlenc.ErrNoSelfLink, dropped: "xhtml:link"},
		{name: "added self link's language taken", u: with(a("de", "en"), func(u *URL) { u.Alternates[0].Href = "https://example.com/de/page"; u.Hreflang = "EN" }),
			field: "xhtml:link.hreflang", err: xmlenc.ErrLanguageTwice, dropped: "xhtml:link", want: "<url><loc>" + testBase + "page</loc></url>"},
		{name: "added self link's language malformed", u: with(a("de"), func(u *URL) { u.Alternates[0].Href = "https://example.com/de/page"; u.Hreflang = "en_US" }),
			field: "xhtml:link.hreflang", err: xmlenc.ErrLanguageTag, dropped: "xhtml:link"},

		// no language twice, x-default at most once
		{name: "language twice", u: a("en", "de", "en"), field: "xhtml:link.hreflang", err: xmlenc.ErrLanguageTwice, dropped: "xhtml:link",
			want: link("en", testBase+"page") + link("de", "https://example.com/de/page") + "</url>"},
		{name: "language twice in other case", u: a("de-AT", "en", "de-at"), field: "xhtml:link.hreflang", err: xmlenc.ErrLanguageTwice, dropped: "xhtml:link"},
		{name: "x-default twice", u: a("x-default", "en", "X-Default"), field: "xhtml:link.hreflang", err: xmlenc.ErrXDefaultTwice, dropped: "xhtml:link",
			want: link("x-default", testBase+"page") + link("en", "https://example.com/en/page") + "</url>"},
		// a link dropped leaves the others, and the self link is looked
		// for among those kept
		{name: "bad href among good ones", u: with(a("en", "de", "fr"), func(u *URL) { u.Alternates[1].Href = "/de/page" }),
			field: "xhtml:link.href", err: xmlenc.ErrNotAbsolute, dropped: "xhtml:link",
			want: link("en", testBase+"page") + link("fr", "https://example.com/fr/page") + "</url>"},
		{name: "the self link malformed, added again", u: with(a("en_GB", "de"), func(u *URL) { u.Hreflang = "en-GB" }),
			field: "xhtml:link.hreflang", err: xmlenc.ErrLanguageTag, dropped: "xhtml:link",
			want: link("de", "https://example.com/de/page") + link("en-GB", testBase+"page") + "</url>"},
		{name: "a language kept after its malformed twin", u: with(a("en", "de"), func(u *URL) {
			u.Alternates = append([]Alternate{{Hreflang: "de", Href: "/de/page"}}, u.Alternates...)
		}), field: "xhtml:link.href", err: xmlenc.ErrNotAbsolute, dropped: "xhtml:link",
			want: "</loc>" + link("en", testBase+"page") + link("de", "https://example.com/de/page") + "</url>"},
		{name: "the only link dropped, no self link added", u: with(a("en_GB"), func(u *URL) { u.Hreflang = "en" }),
			field: "xhtml:link.hreflang", err: xmlenc.ErrLanguageTag, dropped: "xhtml:link", want: "<url><loc>" + testBase + "page</loc></url>"},
		{name: "a language and its region", u: a("de", "de-DE", "de-AT", "x-default"), want: link("de-AT", "https://example.com/de-AT/page")},

		// well-formed BCP 47 tags (RFC 5646), any case
		{name: "region and script", u: a("en", "de-AT", "zh-Hant", "zh-Hant-TW", "es-419", "sr-Latn", "sr-Latn-RS"), want: `hreflang="es-419"`},
		{name: "eight letters and a variant", u: a("abcdefgh-12345678"), want: `hreflang="abcdefgh-12345678"`},
		{name: "upper case", u: a("EN-us", "ZH-hANT-tw"), want: `hreflang="ZH-hANT-tw"`},
		{name: "tag zoo", u: a("en", "zh-yue-HK", "de-CH-1901", "sl-rozaj-biske", "hy-Latn-IT-arevela", "de-DE-u-co-phonebk",
			"en-US-x-twain", "x-whatever", "i-klingon", "en-GB-oed", "zh-min-nan", "art-lojban", "ar-afb-aao-ajp", "qaa-Qaaa-QM-x-southern"),
			want: `hreflang="de-DE-u-co-phonebk"`},
	})
}

// TestSelfLinkNotice: a URL whose self link is added is written, and
// reported through OnNotice, the info log and Stats.CorrectedURLs, not as a
// rejection; Strict does not fail its page.
func TestSelfLinkNotice(t *testing.T) {
	u := URL{Loc: testBase + "en/page", Hreflang: "en", Alternates: []Alternate{{Hreflang: "de", Href: testBase + "de/page"}}}
	for _, strict := range []bool{false, true} {
		t.Run(fmt.Sprint("Strict=", strict), func(t *testing.T) {
			var notices []error
			var logs testkit.SyncBuffer
			sm := newTestSitemap(t, Config{Strict: strict, Logger: slog.New(slog.NewTextHandler(&logs, nil)),
				OnReject: func(_ string, _ int64, loc string, err error) { t.Errorf("OnReject(%q, %v)", loc, err) },
				OnNotice: func(section string, page int64, loc string, err error) {
					if section != "pages" || page != 1 || loc != u.Loc {
						t.Errorf("OnNotice(%q, %d, %q)", section, page, loc)
					}
					notices = append(notices, err)
				}},
				Section{Name: "pages", Source: FromSlice([]URL{{Loc: anchorLoc}, u}, 0)})
			w := get(sm, "/sitemap-pages-1.xml")
			if w.Code != 200 {
				t.Fatalf("status %d", w.Code)
			}
			if want := link("de", testBase+"de/page") + link("en", u.Loc) + "</url>"; !strings.Contains(w.Body.String(), want) {
				t.Errorf("page lacks %s:\n%s", want, w.Body)
			}
			st := sm.Stats()
			if len(notices) != 1 || !errors.Is(notices[0], ErrSelfLinkAdded) || st.CorrectedURLs != 1 || st.RejectedURLs != 0 {
				t.Errorf("notices %v, stats %+v", notices, st)
			}
			if l := logs.String(); !strings.Contains(l, "level=INFO msg=\"sitemap: URLs corrected\"") || !strings.Contains(l, "self link added") {
				t.Errorf("log lacks the notice:\n%s", l)
			}
			xsdcheck.URLSet(t, w.Body.Bytes())
		})
	}
}

// TestSelfLinkNotWrittenNoNotice: a URL whose self link was added but that
// does not fit in its page's bytes is reported as rejected only.
func TestSelfLinkNotWrittenNoNotice(t *testing.T) {
	u := URL{Loc: testBase + "en/page", Hreflang: "en", Alternates: []Alternate{{Hreflang: "de", Href: testBase + "de/page"}}}
	anchor := encodeSpec(t, listSource(URL{Loc: anchorLoc}), pageSpec{base: testBase, ext: ExtAlternates})
	r := encodeSpec(t, listSource(URL{Loc: anchorLoc}, u), pageSpec{base: testBase, ext: ExtAlternates, maxBytes: int64(len(anchor.doc) + 100)})
	if r.err != nil || len(r.notices) != 0 || len(r.rejected) != 1 || !errors.Is(r.rejected[0].err, ErrPageFull) {
		t.Errorf("err %v, notices %v, rejected %v", r.err, r.notices, r.rejected)
	}
}

// TestHreflangsRemembered: the encoder remembers hreflangs it found
// well-formed, and only those: after nine languages (more than it keeps),
// a malformed tag on a later URL of the page is still refused, and the
// ones it knows are still written. The malformed link is left out alone.
func TestHreflangsRemembered(t *testing.T) {
	langs := []string{"en", "de", "fr", "it", "es", "nl", "pt", "pl", "sv"}
	urls := []URL{alternatesURL(langs...), alternatesURL(langs...), alternatesURL("en", "e_n"), alternatesURL("sv", "en")}
	urls[2].Loc = testBase + "bad"
	urls[2].Alternates[0].Href = urls[2].Loc
	r := encodeURLs(t, urls...)
	var bad *InvalidURLError
	if len(r.rejected) != 0 || len(r.notices) != 1 || r.notices[0].loc != testBase+"bad" || !errors.Is(r.notices[0].err, ErrElementDropped) ||
		!errors.Is(r.notices[0].err, xmlenc.ErrLanguageTag) || !errors.As(r.notices[0].err, &bad) || bad.Field != "xhtml:link.hreflang" {
		t.Errorf("rejected %v, notices %v; want the link in e_n of %sbad dropped", r.rejected, r.notices, testBase)
	}
	if strings.Contains(string(r.doc), `hreflang="e_n"`) || !strings.Contains(string(r.doc), testBase+"bad</loc>") {
		t.Errorf("the malformed link is written, or its URL is not:\n%s", r.doc)
	}
	if n := strings.Count(string(r.doc), `hreflang="sv"`); n != 3 {
		t.Errorf("%d links in sv, want 3", n)
	}
}
