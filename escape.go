package sitemap

import (
	"strconv"
	"time"
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

// appendEscaped appends s to b as XML character data. The five special
// characters become entities, '\r' becomes &#xD; (a parser would turn it
// into '\n'), and runes that XML 1.0 forbids and invalid UTF-8 become
// U+FFFD, so the output is always well-formed whatever s holds, and a
// parser reads back s with only those runes replaced.
func appendEscaped(b []byte, s string) []byte {
	return appendEscapedWith(b, s, &textSafe)
}

// appendAttr is appendEscaped for a value between double quotes: tab and
// newline are written as references as well, since a parser would read
// them as spaces.
func appendAttr(b []byte, s string) []byte {
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

// runeCount counts characters the way the schema's maxLength does.
func runeCount(s string) int { return utf8.RuneCountInString(s) }

// appendW3CTime appends t in W3C Datetime form, in UTC to the second
// (2006-01-02T15:04:05Z), or as a date alone (2006-01-02) when dateOnly.
// It does not allocate. The caller checks the year with validYear first.
func appendW3CTime(b []byte, t time.Time, dateOnly bool) []byte {
	t = t.UTC()
	y, m, d := t.Date()
	b = append4(b, y)
	b = append(b, '-')
	b = append2(b, int(m))
	b = append(b, '-')
	b = append2(b, d)
	if dateOnly {
		return b
	}
	hh, mm, ss := t.Clock()
	b = append(b, 'T')
	b = append2(b, hh)
	b = append(b, ':')
	b = append2(b, mm)
	b = append(b, ':')
	b = append2(b, ss)
	return append(b, 'Z')
}

// validYear reports whether t can be written as a four-digit W3C year.
func validYear(t time.Time) bool {
	y := t.UTC().Year()
	return y >= 1 && y <= 9999
}

func append2(b []byte, v int) []byte {
	return append(b, byte('0'+v/10), byte('0'+v%10))
}

func append4(b []byte, v int) []byte {
	return append(b, byte('0'+v/1000), byte('0'+v/100%10), byte('0'+v/10%10), byte('0'+v%10))
}

// appendDecimal writes f with as few digits as round-trip, always with a
// fractional part: 0.8, 1.0, 0.0, 4.25. Negative zero is written as 0.0.
func appendDecimal(b []byte, f float64) []byte {
	if f == 0 {
		f = 0 // drops the sign of -0
	}
	n := len(b)
	b = strconv.AppendFloat(b, f, 'f', -1, 64)
	for _, c := range b[n:] {
		if c == '.' {
			return b
		}
	}
	return append(b, ".0"...)
}
