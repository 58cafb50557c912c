package testkit

import "testing"

func TestXMLText(t *testing.T) {
	for in, want := range map[string]string{
		"plain \t\r\n text":      "plain \t\r\n text",
		"nul\x00 bell\x07":       "nul\uFFFD bell\uFFFD",
		"bad \xc3\x28 utf-8":     "bad \uFFFD( utf-8",
		"\uFFFE \U0001F600":      "\uFFFD \U0001F600",
		"surrogate \xed\xa0\x80": "surrogate \uFFFD\uFFFD\uFFFD",
	} {
		if got := XMLText(in); got != want {
			t.Errorf("XMLText(%q) = %q, want %q", in, got, want)
		}
	}
}
