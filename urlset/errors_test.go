package urlset

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestInvalidURLError(t *testing.T) {
	errLength := errors.New("too long")
	long := "https://example.com/x" + strings.Repeat("ü", 150) // byte 200 is inside a rune
	for _, tc := range []struct {
		err     *InvalidURLError
		want    string
		dropped bool
	}{
		{&InvalidURLError{Loc: "/a", Field: "loc", Err: errLength}, `sitemap: invalid URL "/a": loc: too long`, false},
		{&InvalidURLError{Loc: long, Field: "video.title", Err: errLength}, `sitemap: invalid URL "` + long[:199] + `...": video.title: too long`, false},
		{&InvalidURLError{Loc: "/a", Field: "image.loc", Err: errLength, Dropped: "image:image"}, `sitemap: <image:image> dropped from URL "/a": image.loc: too long`, true},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
		if !utf8.ValidString(tc.err.Error()) {
			t.Errorf("Error() = %q is not valid UTF-8", tc.err.Error())
		}
		if !errors.Is(tc.err, errLength) {
			t.Errorf("%v does not unwrap to %v", tc.err, errLength)
		}
		if got := errors.Is(tc.err, ErrElementDropped); got != tc.dropped {
			t.Errorf("errors.Is(%v, ErrElementDropped) = %v, want %v", tc.err, got, tc.dropped)
		}
	}
}

func TestDeclared(t *testing.T) {
	for _, tc := range []struct{ in, want Extensions }{
		{0, ExtImage | ExtVideo | ExtAlternates},
		{ExtNews, ExtNews},
		{ExtAll, ExtAll},
		{ExtNone, 0},
		{ExtNone | ExtImage, 0},
		{ExtImage | 1<<7, ExtImage},
	} {
		if got := tc.in.Declared(); got != tc.want {
			t.Errorf("%08b.Declared() = %08b, want %08b", tc.in, got, tc.want)
		}
	}
}
