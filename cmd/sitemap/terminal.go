package main

import (
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Nothing a server sends reaches the terminal as raw bytes: every name,
// message and log line the command prints goes through clean, which
// escapes what a terminal would act on or show as garbage (control
// characters, escape sequences, invalid UTF-8) and cuts what is long.

// maxLine is the most bytes of one value clean keeps.
const maxLine = 400

// clean returns s with every rune that is not printable (but tab) escaped
// as Go escapes it, invalid UTF-8 as \xNN, cut to maxLine bytes with "…".
func clean(s string) string {
	ok := len(s) <= maxLine
	for _, r := range s {
		if r == utf8.RuneError || r != '\t' && !unicode.IsPrint(r) {
			ok = false
			break
		}
	}
	if ok {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s) && b.Len() < maxLine; {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x` + strconv.FormatUint(uint64(s[i])|0x100, 16)[1:])
		case r != '\t' && !unicode.IsPrint(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
		if i < len(s) && b.Len() >= maxLine {
			b.WriteString("…")
		}
	}
	return b.String()
}

// cleanLines is a writer that cleans each line written to w, for the
// standard logger, where net/http writes what it cannot hand to a caller.
type cleanLines struct{ w io.Writer }

func (c cleanLines) Write(p []byte) (int, error) {
	for line := range strings.Lines(string(p)) {
		if _, err := io.WriteString(c.w, clean(strings.TrimSuffix(line, "\n"))+"\n"); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}
