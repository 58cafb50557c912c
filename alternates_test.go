package sitemap

import (
	"testing"
)

// alternatesURL is a URL with one alternate per hreflang.
func alternatesURL(hreflangs ...string) URL {
	u := URL{Loc: testBase + "page"}
	for _, h := range hreflangs {
		u.Alternates = append(u.Alternates, Alternate{Hreflang: h, Href: "https://example.com/" + h + "/page"})
	}
	return u
}

func TestAlternateRules(t *testing.T) {
	a := alternatesURL
	runRules(t, []ruleCase{
		{name: "en", u: a("en"), want: `<xhtml:link rel="alternate" hreflang="en" href="https://example.com/en/page"/>`},
		{name: "x-default", u: a("x-default", "en"), want: `<xhtml:link rel="alternate" hreflang="x-default" href="https://example.com/x-default/page"/>`},
		{name: "region and script", u: a("de-AT", "zh-Hant", "zh-Hant-TW", "es-419", "sr-Latn-RS"), want: `hreflang="es-419"`},
		{name: "eight letters", u: a("abcdefgh-12345678"), want: `hreflang="abcdefgh-12345678"`},
		{name: "another host", u: URL{Loc: testBase + "page", Alternates: []Alternate{{Hreflang: "fr", Href: "https://example.fr/page"}}},
			want: `href="https://example.fr/page"`},
		{name: "href with query", u: URL{Loc: testBase + "page", Alternates: []Alternate{{Hreflang: "fr", Href: "https://example.com/page?lang=fr&x='y'"}}},
			want: `href="https://example.com/page?lang=fr&amp;x=&apos;y&apos;"`},
		{name: "underscore de_DE", u: a("en", "de_DE"), field: "xhtml:link.hreflang", err: errValue},
		{name: "empty", u: a(""), field: "xhtml:link.hreflang", err: errValue},
		{name: "nine letters", u: a("abcdefghi"), field: "xhtml:link.hreflang", err: errValue},
		{name: "digit first", u: a("1en"), field: "xhtml:link.hreflang", err: errValue},
		{name: "trailing hyphen", u: a("en-"), field: "xhtml:link.hreflang", err: errValue},
		{name: "leading hyphen", u: a("-en"), field: "xhtml:link.hreflang", err: errValue},
		{name: "double hyphen", u: a("en--us"), field: "xhtml:link.hreflang", err: errValue},
		{name: "quote", u: a(`en"`), field: "xhtml:link.hreflang", err: errValue},
		{name: "href missing", u: URL{Loc: testBase + "page", Alternates: []Alternate{{Hreflang: "fr"}}}, field: "xhtml:link.href", err: errNotAbsolute},
		{name: "href relative", u: URL{Loc: testBase + "page", Alternates: []Alternate{{Hreflang: "fr", Href: "/fr/page"}}}, field: "xhtml:link.href", err: errNotAbsolute},
	})
}
