package sitemap

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestInvalidURLError(t *testing.T) {
	long := testBase + "x" + strings.Repeat("ü", 150) // byte 200 is inside a rune
	for _, tc := range []struct {
		err  *InvalidURLError
		want string
	}{
		{&InvalidURLError{Loc: "/a", Field: "loc", Err: errNotAbsolute}, `sitemap: invalid URL "/a": loc: not an absolute http or https URL`},
		{&InvalidURLError{Loc: long, Field: "video.title", Err: errLength}, `sitemap: invalid URL "` + long[:199] + `...": video.title: too long`},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
		if !utf8.ValidString(tc.err.Error()) {
			t.Errorf("Error() = %q is not valid UTF-8", tc.err.Error())
		}
		if !errors.Is(tc.err, tc.err.Err) {
			t.Errorf("%v does not unwrap to %v", tc.err, tc.err.Err)
		}
	}
}
