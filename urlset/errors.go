package urlset

import (
	"errors"
	"unicode/utf8"
)

// ErrPageFull is reported for a URL that was not written because writing
// it would have taken the file past MaxBytes. The page keeps the URLs
// before it, and every URL after it is reported with ErrPageFull too.
// Lower the section's PageSize if this happens: pages heavy with images or
// hreflang alternates can reach the byte limit before the URL limit. (A
// URL past the page size is no ErrPageFull: it fails the page, see
// sitemap.Source.)
var ErrPageFull = errors.New("sitemap: page full")

// ErrElementDropped matches, with errors.Is, an *InvalidURLError whose URL
// was written without the element that broke a rule (its Dropped field).
// Such errors reach the sitemap package's Config.OnNotice, not OnReject:
// the URL is in the file.
var ErrElementDropped = errors.New("sitemap: element dropped")

// ErrSelfLinkAdded is reported (to Config.OnNotice, and logged at info) for
// a URL that WAS written, with one more hreflang alternate than its Source
// gave: none of its Alternates linked to the page itself, as the protocol
// asks, so the link {URL.Hreflang, URL.Loc} was added.
var ErrSelfLinkAdded = errors.New("sitemap: hreflang self link added")

// InvalidURLError reports a URL that breaks a protocol rule. Either the
// URL was skipped (Dropped is "", reported to the sitemap package's
// Config.OnReject), or it was written without the element at fault
// (Dropped names it, reported to Config.OnNotice, and
// errors.Is(err, ErrElementDropped) holds).
type InvalidURLError struct {
	Loc   string // the URL's Loc as the source gave it
	Field string // the offending field, such as "loc", "lastmod" or "video.title"
	Err   error  // the rule it breaks
	// Dropped is the element left out of the URL, which was written
	// without it: "lastmod", "changefreq", "priority", "image:image",
	// "video:video", "news:news" or "xhtml:link". It is "" when the URL
	// itself was skipped.
	Dropped string
}

func (e *InvalidURLError) Error() string {
	if e.Dropped != "" {
		return "sitemap: <" + e.Dropped + "> dropped from URL " + quote(e.Loc) + ": " + e.Field + ": " + e.Err.Error()
	}
	return "sitemap: invalid URL " + quote(e.Loc) + ": " + e.Field + ": " + e.Err.Error()
}

func (e *InvalidURLError) Unwrap() error { return e.Err }

// Is reports whether target is ErrElementDropped and the URL was written
// without the element.
func (e *InvalidURLError) Is(target error) bool {
	return target == ErrElementDropped && e.Dropped != ""
}

// quote shortens a loc for an error message, cutting it at a rune
// boundary.
func quote(s string) string {
	const max = 200
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return `"` + s + `"`
}
