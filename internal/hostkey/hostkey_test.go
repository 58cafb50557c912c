package hostkey

import (
	"net/url"
	"strings"
	"testing"
)

// TestKeys: a request's host and a base URL's scheme and authority
// normalised to one key, or none.
func TestKeys(t *testing.T) {
	for host, want := range map[string]string{
		"Example.COM":               "example.com",
		"example.com.:8080":         "example.com:8080",
		"example.com:":              "example.com",
		"\u212a.example":            "", // Kelvin sign: strings.ToLower would make it "k.example"
		"ex\u0131mple.com":          "", // dotless i
		"[::1]:8080":                "[::1]:8080",
		"[0:0::1]":                  "[::1]",
		"[::FFFF:1.2.3.4]:80":       "[::ffff:1.2.3.4]:80",
		"[fe80::1%25eth0]:80":       "",
		"[1.2.3.4]":                 "",
		"::1":                       "",
		"[::1]8080":                 "",
		"[::1":                      "",
		"127.0.0.1:8080":            "127.0.0.1:8080",
		"x:0":                       "",
		strings.Repeat("a", MaxLen): "",
	} {
		if got := string(Append(nil, host)); got != want {
			t.Errorf("Append(%q) = %q, want %q", host, got, want)
		}
	}
	for base, want := range map[string]string{
		"https://a.example/":             "a.example:443 a.example",
		"http://a.example/x/":            "a.example:80 a.example",
		"https://b.example:8443/":        "b.example:8443",
		"http://b.example:443/":          "b.example:443",
		"http://[::1]:8080/":             "[::1]:8080",
		"https://[0:0::1]/":              "[::1]:443 [::1]",
		"https://xn--bcher-kva.example/": "xn--bcher-kva.example:443 xn--bcher-kva.example",
	} {
		u, err := url.Parse(base)
		if err != nil {
			t.Fatal(err)
		}
		keys, ok := Keys(u.Scheme, u.Host)
		if got := strings.Join(keys, " "); !ok || got != want {
			t.Errorf("Keys of %q = %q, %v; want %q", base, got, ok, want)
		}
	}
}

// TestKeysRefused: a base URL's host that no request could match has no
// keys.
func TestKeysRefused(t *testing.T) {
	for _, authority := range []string{"", "a.example:0", "a.example:65536", "ex\u0131mple.com", "[fe80::1%25eth0]", "a:b:c"} {
		if keys, ok := Keys("https", authority); ok {
			t.Errorf("Keys of %q = %q, want none", authority, keys)
		}
	}
}
