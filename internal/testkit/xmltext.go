package testkit

import "strings"

// XMLText is s as XML text reads back once written by the encoder: every
// rune XML 1.0 forbids, and every byte of invalid UTF-8, replaced by
// U+FFFD.
func XMLText(s string) string {
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
