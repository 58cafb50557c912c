package htmlview

import "unicode/utf8"

// appendText appends s to b as the text of an element: '&', '<', '>',
// apostrophe and quote as references, '\r' as &#xD;, and what XML 1.0 forbids
// (C0 controls but tab and newline, U+FFFE, U+FFFF) and invalid UTF-8 as
// U+FFFD. The sitemap's own escaper does the same, so that a view shows a
// file's text as its XML holds it.
func appendText(b []byte, s string) []byte { return appendRef(b, s, false) }

// appendAttr is appendText for a value between double quotes: tab and
// newline as references too, which an attribute would read as spaces.
func appendAttr(b []byte, s string) []byte { return appendRef(b, s, true) }

func appendRef(b []byte, s string, attr bool) []byte {
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c >= 0x20 && c < utf8.RuneSelf && c != '&' && c != '<' && c != '>' && c != '\'' && c != '"' {
			i++ // the common case: copied as it is
			continue
		}
		var ref string
		c, size := rune(s[i]), 1
		if c >= utf8.RuneSelf {
			c, size = utf8.DecodeRuneInString(s[i:])
		}
		switch {
		case c == '&':
			ref = "&amp;"
		case c == '<':
			ref = "&lt;"
		case c == '>':
			ref = "&gt;"
		case c == '\'':
			ref = "&apos;"
		case c == '"':
			ref = "&quot;"
		case c == '\r':
			ref = "&#xD;"
		case c == '\t' && attr:
			ref = "&#x9;"
		case c == '\n' && attr:
			ref = "&#xA;"
		case c < 0x20 && c != '\t' && c != '\n', c == utf8.RuneError && size == 1, c == 0xFFFE, c == 0xFFFF:
			ref = "\uFFFD"
		default:
			i += size
			continue
		}
		b = append(append(b, s[start:i]...), ref...)
		i += size
		start = i
	}
	return append(b, s[start:]...)
}
