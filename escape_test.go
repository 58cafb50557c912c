package sitemap

import (
	"encoding/xml"
	"strings"
	"testing"
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
		if got := string(appendEscaped([]byte("x"), tc.in)); got != "x"+tc.text {
			t.Errorf("appendEscaped(%q) = %q, want %q", tc.in, got[1:], tc.text)
		}
		if got := string(appendAttr([]byte("x"), tc.in)); got != "x"+tc.attr {
			t.Errorf("appendAttr(%q) = %q, want %q", tc.in, got[1:], tc.attr)
		}
		// encoding/xml reads back the input with only forbidden runes replaced
		var v struct {
			Text string `xml:",chardata"`
			Attr string `xml:"a,attr"`
		}
		doc := `<e a="` + string(appendAttr(nil, tc.in)) + `">` + string(appendEscaped(nil, tc.in)) + `</e>`
		if err := xml.Unmarshal([]byte(doc), &v); err != nil {
			t.Errorf("%q: %v", doc, err)
			continue
		}
		want := sanitized(tc.in)
		if v.Text != want || v.Attr != want {
			t.Errorf("%q read back as text %q, attribute %q; want %q", tc.in, v.Text, v.Attr, want)
		}
	}
}

// sanitized is s with every rune XML 1.0 forbids, and every byte of
// invalid UTF-8, replaced by U+FFFD.
func sanitized(s string) string {
	var b strings.Builder
	for _, r := range s { // invalid bytes come as U+FFFD, one each
		if r == '\t' || r == '\n' || r == '\r' || r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF {
			b.WriteRune(r)
		} else {
			b.WriteRune('\uFFFD')
		}
	}
	return b.String()
}
