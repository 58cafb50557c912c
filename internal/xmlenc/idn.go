package xmlenc

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// idnaAuthority converts the internationalized host of authority a (a
// host name with a non-ASCII letter, such as "bücher.example:8080") to its
// ASCII form with IDNA's lookup profile ("xn--bcher-kva.example:8080"), in
// lower case. It reports false if a has no non-ASCII byte (the caller
// checks such an authority as it is), or if its host is no valid IDN.
func idnaAuthority(a string) (string, bool) {
	if !hasNonASCII(a) || strings.HasPrefix(a, "[") {
		return "", false
	}
	host, port := a, ""
	if i := strings.LastIndexByte(a, ':'); i >= 0 {
		host, port = a[:i], a[i:]
	}
	ascii, err := idna.Lookup.ToASCII(host)
	if err != nil {
		return "", false
	}
	ascii = strings.ToLower(ascii) + port
	if !validAuthority(ascii) {
		return "", false
	}
	return ascii, true
}

func hasNonASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return true
		}
	}
	return false
}
