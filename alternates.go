package sitemap

import (
	"bytes"
	"errors"
	"strings"

	"github.com/freshmap/sitemap/internal/langtag"
)

// ErrSelfLinkAdded is reported (to Config.OnNotice, and logged at info) for
// a URL that WAS written, with one more hreflang alternate than its Source
// gave: none of its Alternates linked to the page itself, as the protocol
// asks, so the link {URL.Hreflang, URL.Loc} was added.
var ErrSelfLinkAdded = errors.New("sitemap: hreflang self link added")

// Rules of the hreflang alternates, wrapped in an *InvalidURLError.
var (
	errNoSelfLink    = errors.New("no alternate links to the page itself: list it, or set URL.Hreflang to have it added")
	errLanguageTwice = errors.New("a language is listed twice")
	errXDefaultTwice = errors.New("x-default is listed twice")
	errLanguageTag   = errors.New("not a well-formed BCP 47 language tag")
)

// appendAlternates writes the hreflang <xhtml:link> elements of u, whose
// own location was written as loc. Every hreflang is a well-formed BCP 47
// tag, listed once (compared without regard to case), and one of the links
// is the page itself: if none is, the self link is added with u.Hreflang,
// and e.amended says so.
func (e *encoder) appendAlternates(b []byte, u *URL, loc []byte) ([]byte, error) {
	if e.ext&ExtAlternates == 0 {
		return b, invalid(u, "xhtml:link", errUndeclared)
	}
	var err error
	self := false
	for i := range u.Alternates {
		a := &u.Alternates[i]
		if err := e.tags.check(u, a.Hreflang, u.Alternates[:i]); err != nil {
			return b, err
		}
		b = append(b, `<xhtml:link rel="alternate" hreflang="`...)
		b = append(b, a.Hreflang...)
		b = append(b, `" href="`...)
		href := len(b)
		if b, err = e.appendLoc(b, "xhtml:link.href", u.Loc, a.Href, false); err != nil {
			return b, err
		}
		self = self || bytes.Equal(b[href:], loc)
		b = append(b, `"/>`...)
	}
	if self {
		return b, nil
	}
	if u.Hreflang == "" {
		return b, invalid(u, "xhtml:link", errNoSelfLink)
	}
	if err := e.tags.check(u, u.Hreflang, u.Alternates); err != nil {
		return b, err
	}
	b = append(b, `<xhtml:link rel="alternate" hreflang="`...)
	b = append(b, u.Hreflang...)
	b = append(b, `" href="`...)
	b = append(b, loc...)
	e.amended = ErrSelfLinkAdded
	return append(b, `"/>`...), nil
}

// hreflangs remembers the last few hreflang values found well-formed: a
// page's alternates use a few languages again and again.
type hreflangs struct {
	valid [8]string
	next  int // where the next one goes, round the ring
}

// check checks the hreflang h of a link that follows the links before.
func (t *hreflangs) check(u *URL, h string, before []Alternate) error {
	if !t.known(h) {
		if !langtag.Valid(h) {
			return invalid(u, "xhtml:link.hreflang", errLanguageTag)
		}
		t.valid[t.next] = h
		t.next = (t.next + 1) % len(t.valid)
	}
	for i := range before {
		if p := before[i].Hreflang; len(p) == len(h) && strings.EqualFold(p, h) {
			if strings.EqualFold(h, "x-default") {
				return invalid(u, "xhtml:link.hreflang", errXDefaultTwice)
			}
			return invalid(u, "xhtml:link.hreflang", errLanguageTwice)
		}
	}
	return nil
}

// known reports whether h was found well-formed lately.
func (t *hreflangs) known(h string) bool {
	for _, v := range t.valid {
		if v == h && h != "" {
			return true
		}
	}
	return false
}
