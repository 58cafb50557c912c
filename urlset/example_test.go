package urlset_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/freshmap/sitemap/urlset"
)

// A URL with an image and its language versions. Only Loc is required;
// a zero field writes nothing.
func ExampleURL() {
	u := urlset.URL{
		Loc:        "https://example.com/shoes/red",
		LastMod:    time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC),
		ChangeFreq: urlset.Weekly,
		Images:     []urlset.Image{{Loc: "https://cdn.example.com/red.jpg", Title: "Red shoes"}},
		Alternates: []urlset.Alternate{
			{Hreflang: "en", Href: "https://example.com/shoes/red"},
			{Hreflang: "de", Href: "https://example.com/de/schuhe/rot"},
		},
	}
	fmt.Println(u.Loc, u.ChangeFreq, len(u.Images), len(u.Alternates))
	// Output: https://example.com/shoes/red weekly 1 2
}

// An *InvalidURLError with Dropped set names an element left out of a URL
// that was written; errors.Is tells it from a URL that was skipped.
func ExampleInvalidURLError() {
	tooLong := errors.New("too long")
	for _, err := range []error{
		&urlset.InvalidURLError{Loc: "https://example.com/a", Field: "video.title", Err: tooLong, Dropped: "video:video"},
		&urlset.InvalidURLError{Loc: "/b", Field: "loc", Err: errors.New("not an absolute http or https URL")},
	} {
		fmt.Println(errors.Is(err, urlset.ErrElementDropped), err)
	}
	// Output:
	// true sitemap: <video:video> dropped from URL "https://example.com/a": video.title: too long
	// false sitemap: invalid URL "/b": loc: not an absolute http or https URL
}

// The zero Extensions declares image, video and hreflang; news is asked
// for by name, and ExtNone declares only the sitemap namespace.
func ExampleExtensions_Declared() {
	for _, x := range []urlset.Extensions{0, urlset.ExtNews, urlset.ExtNone} {
		d := x.Declared()
		fmt.Println(d&urlset.ExtImage != 0, d&urlset.ExtVideo != 0, d&urlset.ExtNews != 0, d&urlset.ExtAlternates != 0)
	}
	// Output:
	// true true false true
	// false false true false
	// false false false false
}
