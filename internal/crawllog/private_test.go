package crawllog

import "testing"

func TestPrivateCacheControl(t *testing.T) {
	for in, want := range map[string]string{
		"": "private",
		"public, max-age=900, stale-while-revalidate=3600": "private, max-age=900, stale-while-revalidate=3600",
		"public, max-age=60, s-maxage=600":                 "private, max-age=60",
		"PUBLIC,S-MAXAGE=1,max-age=5":                      "private, max-age=5",
		"no-store":                                         "no-store",
		"private, max-age=60":                              "private, max-age=60",
		`no-cache="a, public", public`:                     `private, no-cache="a, public"`,
		`no-cache="a\", public", public`:                   `private, no-cache="a\", public"`,
		"max-age=60,,":                                     "private, max-age=60",
	} {
		if got := PrivateCacheControl(in); got != want {
			t.Errorf("PrivateCacheControl(%q) = %q, want %q", in, got, want)
		}
	}
}
