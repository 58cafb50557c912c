package langtag

import "testing"

func TestValid(t *testing.T) {
	for tag, want := range map[string]bool{
		"en": true, "de-AT": true, "zh-Hant-TW": true, "sr-Latn": true, "es-419": true, "x-default": true, "X-DEFAULT": true,
		"zh-Hant": true, "en-US": true, "en-us": true, "ast": true, "abcd": true, "abcdefgh": true, "de-CH-1901": true,
		"sl-rozaj-biske": true, "en-a-bbb-x-a-ccc": true, "en-a-bb-b-cc": true, "zh-yue": true, "ar-afb-aao-ajp": true,
		"i-klingon": true, "I-KLINGON": true, "sgn-BE-FR": true, "en-GB-oed": true, "x-a": true, "en-x-1": true,
		"de-419-1996": true, "qtx-Qaaa-AA-12345": true,

		"": false, "de_DE": false, "en-US-": false, "123": false, "-en": false, "en--us": false, "e": false, "1en": false,
		"abcdefghi": false, "en-abcdefghi": false, "en-US-ab": false, "en-a": false, "en-a-b": false, "en-x": false,
		"x": false, "i-foo": false, "ar-afb-aao-ajp-abc": false, "en-1234-US": false, "en-Latn-Latn": false,
		"en-US-US": false, "en-u-": false, "ab1": false, "en US": false, `en"`: false, "é": false, "en-12": false,
		"de-DE-abcd": false, "en-1234": true, // a variant: a digit and three alphanumerics
	} {
		if got := Valid(tag); got != want {
			t.Errorf("Valid(%q) = %v, want %v", tag, got, want)
		}
	}
}
