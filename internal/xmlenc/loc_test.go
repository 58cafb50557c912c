package xmlenc

import (
	"errors"
	"strings"
	"testing"
)

func TestAppendURI(t *testing.T) {
	for _, tc := range []struct {
		in, want string // want "" means rejected with err
		text     bool   // plain text: no XML entities
		err      error
	}{
		// the protocol's example: IRI to URI, then XML escaping
		{in: "http://www.example.com/ümlat.php&q=name", want: "http://www.example.com/%C3%BCmlat.php&amp;q=name"},
		{in: "http://www.example.com/ümlat.php&q=name", text: true, want: "http://www.example.com/%C3%BCmlat.php&q=name"},
		{in: "https://example.com/it's", want: "https://example.com/it&apos;s"},
		{in: "https://example.com/日本語", want: "https://example.com/%E6%97%A5%E6%9C%AC%E8%AA%9E"},
		{in: "https://example.com/😀", want: "https://example.com/%F0%9F%98%80"},
		// characters a URI may not hold
		{in: `https://example.com/a b"c<d>e`, want: "https://example.com/a%20b%22c%3Cd%3Ee"},
		{in: "https://example.com/{a}|b\\c^d`e", want: "https://example.com/%7Ba%7D%7Cb%5Cc%5Ed%60e"},
		{in: "https://example.com/a[1]", want: "https://example.com/a%5B1%5D"},
		{in: "https://example.com/a#b#c", want: "https://example.com/a#b%23c"},
		{in: "https://example.com/a?b=/c?d#e?f", want: "https://example.com/a?b=/c?d#e?f"},
		{in: "https://example.com/-._~:@!$()*+,;=", want: "https://example.com/-._~:@!$()*+,;="},
		// percent signs: kept when they start an escape, else encoded
		{in: "https://example.com/100%", want: "https://example.com/100%25"},
		{in: "https://example.com/%zz", want: "https://example.com/%25zz"},
		{in: "https://example.com/%4", want: "https://example.com/%254"},
		{in: "https://example.com/%41%c3%bc", want: "https://example.com/%41%c3%bc"},
		{in: "https://example.com/%%41", want: "https://example.com/%25%41"},
		// canonical scheme and host; the path keeps its case
		{in: "HTTPS://WWW.Example.COM/Path?Q=A", want: "https://www.example.com/Path?Q=A"},
		{in: "https://example.com", want: "https://example.com/"},
		{in: "https://example.com?q=1", want: "https://example.com/?q=1"},
		{in: "https://example.com#top", want: "https://example.com/#top"},
		{in: "https://example.com:8080/a", want: "https://example.com:8080/a"},
		{in: "https://192.0.2.1/a", want: "https://192.0.2.1/a"},
		{in: "https://[2001:DB8::1]:8443/a", want: "https://[2001:db8::1]:8443/a"},
		{in: "https://example.com./a", want: "https://example.com./a"},
		{in: "https://xn--bcher-kva.example/a", want: "https://xn--bcher-kva.example/a"},
		// internationalized hosts: punycode by the IDNA lookup profile
		{in: "https://bücher.example/", want: "https://xn--bcher-kva.example/"},
		{in: "HTTPS://BÜCHER.Example:8443/Bücher?q=ü", want: "https://xn--bcher-kva.example:8443/B%C3%BCcher?q=%C3%BC"},
		{in: "https://bücher.example", want: "https://xn--bcher-kva.example/"},
		{in: "https://日本語.jp/a", want: "https://xn--wgv71a119e.jp/a"},
		{in: "https://bücher。example/", want: "https://xn--bcher-kva.example/"}, // an ideographic full stop
		{in: "https://faß.de/", want: "https://xn--fa-hia.de/"},                 // nontransitional: ß is kept
		{in: "https://ｅｘａｍｐｌｅ.com/", want: "https://example.com/"},              // full-width letters map to ASCII
		// punycode can be shorter than UTF-8: 2,049 bytes in, 2,044 out
		{in: "https://😀😀😀😀.com/" + strings.Repeat("a", 2020), want: "https://xn--e28haaa.com/" + strings.Repeat("a", 2020)},
		{in: "https://😀😀😀😀.com/" + strings.Repeat("a", 2024), err: ErrTooLong},
		// not absolute http(s)
		{in: "", err: ErrNotAbsolute},
		{in: "/relative", err: ErrNotAbsolute},
		{in: "example.com/a", err: ErrNotAbsolute},
		{in: "//example.com/a", err: ErrNotAbsolute},
		{in: "ftp://example.com/a", err: ErrNotAbsolute},
		{in: "javascript:alert(1)", err: ErrNotAbsolute},
		{in: "https:/example.com/a", err: ErrNotAbsolute},
		{in: " https://example.com/a", err: ErrNotAbsolute},
		// bad hosts and user info
		{in: "https:///a", err: ErrBadHost},
		{in: "https://exa mple.com/", err: ErrBadHost},
		{in: "https://ex_ample.com/", err: ErrBadHost},
		{in: "https://bü_cher.example/", err: ErrBadHost},         // not a host name under STD3 rules
		{in: "https://bücher.example@evil.com/", err: ErrBadHost}, // user info
		{in: "https://ü-.example/", err: ErrBadHost},              // a hyphen ends the label
		{in: "https://[ü::1]/", err: ErrBadHost},
		{in: "https://bücher.example:ü/", err: ErrBadHost},
		{in: "https://\u200d.example/", err: ErrBadHost},
		{in: "https://example..com/", err: ErrBadHost},
		{in: "https://.example.com/", err: ErrBadHost},
		{in: "https://-example.com/", err: ErrBadHost},
		{in: "https://example-.com/", err: ErrBadHost},
		{in: "https://" + strings.Repeat("a", 64) + ".com/", err: ErrBadHost},
		{in: "https://example.com:/", err: ErrBadHost},
		{in: "https://example.com:http/", err: ErrBadHost},
		{in: "https://example.com:65536/", err: ErrBadHost},
		{in: "https://example.com:1:2/", err: ErrBadHost},
		{in: "https://[::1/", err: ErrBadHost},
		{in: "https://[]/", err: ErrBadHost},
		{in: "https://[example.com]/", err: ErrBadHost},
		{in: "https://[::1]x/", err: ErrBadHost},
		{in: "https://user@example.com/", err: ErrBadHost},
		{in: "https://user:pass@example.com/", err: ErrBadHost},
		{in: "https://example.com\\@evil.com/", err: ErrBadHost},
		{in: "https://example.com%2F/", err: ErrBadHost},
		// control characters and invalid UTF-8
		{in: "https://example.com/a\x00b", err: ErrControl},
		{in: "https://example.com/a\tb", err: ErrControl},
		{in: "https://example.com/a\nb", err: ErrControl},
		{in: "https://example.com/a\rb", err: ErrControl},
		{in: "https://example.com/a\x7fb", err: ErrControl},
		{in: "https://example.com/a\xffb", err: ErrControl},
		{in: "https://example.com/a\xc3", err: ErrControl},
		{in: "https://example.com/\xed\xa0\x80", err: ErrControl}, // a surrogate
		{in: "https://example.com/\uFFFE", err: ErrControl},
		{in: "https://example.com/\uFFFF", err: ErrControl},
	} {
		b, err := AppendURI([]byte("prefix"), tc.in, "", !tc.text)
		if tc.err != nil {
			if !errors.Is(err, tc.err) || string(b) != "prefix" {
				t.Errorf("AppendURI(%q) = %q, %v; want it rejected with %v", tc.in, b, err, tc.err)
			}
			continue
		}
		if err != nil || string(b) != "prefix"+tc.want {
			t.Errorf("AppendURI(%q, text %v) = %q, %v; want %q", tc.in, tc.text, strings.TrimPrefix(string(b), "prefix"), err, tc.want)
		}
	}
}

// TestAppendURIOrigin: a URI that starts with the origin given is
// written as it is without one, or rejected for the same reason, as a
// page's loc or not, with a base or none.
func TestAppendURIOrigin(t *testing.T) {
	const origin = "https://example.com/"
	if got := originOf("https://example.com:8080/shop/"); got != "https://example.com:8080/" {
		t.Errorf("originOf = %q", got)
	}
	for _, path := range []string{"", "a", "shop/a", "shop/./a", "shop/%2e%2E/a", "a/..", ".", "..", "./a", "a?b=/./c",
		"shop/a b&c'd", "shop/ümlat", "shop/100%", "shop/a#b#c", "shop/a\x00b", "shop/\xff", "x", "shop/" + strings.Repeat("a", 2030),
		"/a", "//a", "shop"} {
		s := origin + path
		for _, base := range []string{"", "https://example.com/shop/", "https://example.org/"} {
			for _, page := range []bool{false, true} {
				want, wantErr := appendURIRules([]byte("p"), s, base, "", 0, true, page)
				got, err := appendURIRules([]byte("p"), s, base, origin, 0, true, page)
				if string(got) != string(want) || err != wantErr {
					t.Errorf("%q, base %q, page %v: %q, %v from the origin; want %q, %v", s, base, page, got, err, want, wantErr)
				}
			}
		}
	}
}

func TestParseBase(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"https://example.com", "https://example.com/"},
		{"https://example.com/", "https://example.com/"},
		{"HTTPS://Example.COM/Shop", "https://example.com/Shop/"},
		{"http://example.com:8080/a/b/", "http://example.com:8080/a/b/"},
		{"https://example.com/dü", "https://example.com/d%C3%BC/"},
		{"https://[::1]:8443", "https://[::1]:8443/"},
		{"https://bücher.example", "https://xn--bcher-kva.example/"},
		{"https://Bücher.Example:8443/Läden", "https://xn--bcher-kva.example:8443/L%C3%A4den/"},
		{"https://bü_cher.example", ""},
		{"https://ü-.example", ""},
		{"", ""},
		{"example.com", ""},
		{"/shop", ""},
		{"ftp://example.com", ""},
		{"https://user@example.com", ""},
		{"https://example.com/?q=1", ""},
		{"https://example.com/#top", ""},
		{"https://example.com/?", ""},
		{"https://exa_mple.com", ""},
		{"https://example.com:99999", ""},
		{"https://example.com/it's", ""},
		{"https://example.com/a&b", ""},
		{"https://example.com/a/../b", ""},
		{"https://example.com/a/%2e/b", ""},
	} {
		got, err := ParseBase(tc.in)
		if got != tc.want || (err == nil) != (tc.want != "") {
			t.Errorf("ParseBase(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "BaseURL") { // New wraps it in ErrConfig, which says sitemap:
			t.Errorf("ParseBase(%q) error %q does not name BaseURL first", tc.in, err)
		}
	}
}
