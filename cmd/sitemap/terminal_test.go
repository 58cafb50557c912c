package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestClean: control characters, escape sequences and invalid UTF-8 are
// escaped, long values cut, and printable text left as it is.
func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, ümlaut\tand tab": "plain text, ümlaut\tand tab",
		"\x1b[2Jcleared":              `\x1b[2Jcleared`,
		"gzip \x1f\x8b\x08\x00":       `gzip \x1f\x8b\b\x00`,
		"line\nbreak\r":               `line\nbreak\r`,
	} {
		if got := clean(in); got != want {
			t.Errorf("clean(%q) = %q, want %q", in, got, want)
		}
	}
	long := clean(strings.Repeat("\x00", 10_000))
	if len(long) > maxLine+8 || !strings.HasSuffix(long, "…") {
		t.Errorf("clean of 10,000 NULs: %d bytes, %q…", len(long), long[:20])
	}
	var b bytes.Buffer
	cleanLines{&b}.Write([]byte("a\x00b\nc\n"))
	if b.String() != "a\\x00b\nc\n" {
		t.Errorf("cleanLines wrote %q", b.String())
	}
}
