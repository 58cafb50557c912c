package xmlenc

import (
	"encoding/xml"
	"strings"
	"testing"

	"github.com/freshmap/sitemap/internal/testkit"
)

func TestAppendEscaped(t *testing.T) {
	const fffd = "\uFFFD"
	for _, tc := range []struct{ in, text, attr string }{
		{"plain text", "plain text", "plain text"},
		{"", "", ""},
		// the five entities
		{`a&b<c>d'e"f`, "a&amp;b&lt;c&gt;d&apos;e&quot;f", "a&amp;b&lt;c&gt;d&apos;e&quot;f"},
		{"&amp;", "&amp;amp;", "&amp;amp;"},
		{"]]>", "]]&gt;", "]]&gt;"},
		// whitespace XML allows; \r would be read back as \n, and in an
		// attribute all three would be read as spaces
		{"a\tb\nc\rd", "a\tb\nc&#xD;d", "a&#x9;b&#xA;c&#xD;d"},
		// C0 controls XML 1.0 forbids become U+FFFD; DEL and C1 are allowed
		{"a\x00b\x01\x08\x0b\x0c\x1f", "a" + fffd + "b" + strings.Repeat(fffd, 5), "a" + fffd + "b" + strings.Repeat(fffd, 5)},
		{"\x7f\u0085\u009f", "\x7f\u0085\u009f", "\x7f\u0085\u009f"},
		// non-characters and invalid UTF-8
		{"\uFFFE\uFFFF", fffd + fffd, fffd + fffd},
		{"\uFFFD", fffd, fffd},
		{"a\xffb", "a" + fffd + "b", "a" + fffd + "b"},
		{"a\xc3", "a" + fffd, "a" + fffd},
		{"\xed\xa0\x80", fffd + fffd + fffd, fffd + fffd + fffd}, // an encoded surrogate: three bad bytes
		{"\xf4\x90\x80\x80", strings.Repeat(fffd, 4), strings.Repeat(fffd, 4)},
		// what XML allows, kept
		{"ümlaut 日本 😀 \uE000 \U0010FFFD", "ümlaut 日本 😀 \uE000 \U0010FFFD", "ümlaut 日本 😀 \uE000 \U0010FFFD"},
	} {
		if got := string(AppendEscaped([]byte("x"), tc.in)); got != "x"+tc.text {
			t.Errorf("AppendEscaped(%q) = %q, want %q", tc.in, got[1:], tc.text)
		}
		if got := string(AppendAttr([]byte("x"), tc.in)); got != "x"+tc.attr {
			t.Errorf("AppendAttr(%q) = %q, want %q", tc.in, got[1:], tc.attr)
		}
		// encoding/xml reads back the input with only forbidden runes replaced
		var v struct {
			Text string `xml:",chardata"`
			Attr string `xml:"a,attr"`
		}
		doc := `<e a="` + string(AppendAttr(nil, tc.in)) + `">` + string(AppendEscaped(nil, tc.in)) + `</e>`
		if err := xml.Unmarshal([]byte(doc), &v); err != nil {
			t.Errorf("%q: %v", doc, err)
			continue
		}
		want := testkit.XMLText(tc.in)
		if v.Text != want || v.Attr != want {
			t.Errorf("%q read back as text %q, attribute %q; want %q", tc.in, v.Text, v.Attr, want)
		}
	}
}
