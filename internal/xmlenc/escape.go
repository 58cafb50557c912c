package xmlenc

import (
	"unicode/utf8"
)

// textSafe and attrSafe mark the ASCII bytes that are copied unchanged to
// XML character data and to a quoted attribute value. Every other ASCII
// byte is an entity or, for the control characters XML 1.0 forbids, U+FFFD.
var textSafe, attrSafe = func() (text, attr [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		text[c] = true
	}
	for _, c := range "&<>'\"" {
		text[c] = false
	}
	attr = text
	text['\t'], text['\n'] = true, true
	return text, attr
}()

const replacementChar = "\uFFFD"

// AppendEscaped appends s to b as XML character data. The five special
// characters become entities, '\r' becomes &#xD; (a parser would turn it
// into '\n'), and runes that XML 1.0 forbids and invalid UTF-8 become
// U+FFFD, so the output is always well-formed whatever s holds, and a
// parser reads back s with only those runes replaced.
func AppendEscaped(b []byte, s string) []byte {
	return appendEscapedWith(b, s, &textSafe)
}

// AppendAttr is AppendEscaped for a value between double quotes: tab and
// newline are written as references as well, since a parser would read
// them as spaces.
func AppendAttr(b []byte, s string) []byte {
	return appendEscapedWith(b, s, &attrSafe)
}

func appendEscapedWith(b []byte, s string, safe *[utf8.RuneSelf]bool) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if safe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '&':
				b = append(b, "&amp;"...)
			case '<':
				b = append(b, "&lt;"...)
			case '>':
				b = append(b, "&gt;"...)
			case '\'':
				b = append(b, "&apos;"...)
			case '"':
				b = append(b, "&quot;"...)
			case '\t':
				b = append(b, "&#x9;"...)
			case '\n':
				b = append(b, "&#xA;"...)
			case '\r':
				b = append(b, "&#xD;"...)
			default:
				b = append(b, replacementChar...)
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || r == 0xFFFE || r == 0xFFFF {
			b = append(b, s[start:i]...)
			b = append(b, replacementChar...)
			start = i + size
		}
		i += size
	}
	return append(b, s[start:]...)
}
