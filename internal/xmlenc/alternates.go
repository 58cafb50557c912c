package xmlenc

import (
	"bytes"
	"errors"
	"strings"

	"github.com/freshmap/sitemap/internal/langtag"
	"github.com/freshmap/sitemap/urlset"
)

// Rules of the hreflang alternates, wrapped in an *InvalidURLError.
var (
	ErrNoSelfLink    = errors.New("no alternate links to the page itself: list it, or set URL.Hreflang to have it added")
	ErrLanguageTwice = errors.New("a language is listed twice")
	ErrXDefaultTwice = errors.New("x-default is listed twice")
	ErrLanguageTag   = errors.New("not a well-formed BCP 47 language tag")
)

// appendAlternates writes the hreflang <xhtml:link> elements of u, whose
// own location was written as loc, in their order:
//  1. A link whose hreflang is not a well-formed BCP 47 tag, or whose
//     language a link kept before it has (compared without regard to
//     case), or whose href is not a URL, is dropped alone.
//  2. One of the links kept must be the page itself. If none is, the self
//     link {u.Hreflang, loc} is added and e.notes says so
//     (ErrSelfLinkAdded).
//  3. If it cannot be (no u.Hreflang, or one that breaks rule 1), every
//     link is dropped, with one report: the engines ignore a set of
//     alternates that does not list the page.
//
// The pages the dropped links named still list this one; the engines
// ignore a link that is not returned, and the rest of the set stands.
func (e *Encoder) appendAlternates(b []byte, u *urlset.URL, loc []byte) []byte {
	if e.ext&urlset.ExtAlternates == 0 {
		e.drop(Invalid(u, "xhtml:link", ErrUndeclared), "xhtml:link")
		return b
	}
	start := len(b)
	var keep [16]int
	kept := keep[:0] // indexes of the links written
	self := false
	for i := range u.Alternates {
		a := &u.Alternates[i]
		if err := e.tags.check(u, a.Hreflang, kept); err != nil {
			e.drop(err, "xhtml:link")
			continue
		}
		mark := len(b)
		b = append(b, `<xhtml:link rel="alternate" hreflang="`...)
		b = append(b, a.Hreflang...)
		b = append(b, `" href="`...)
		href := len(b)
		var err error
		if b, err = e.appendLoc(b, "xhtml:link.href", u.Loc, a.Href, false); err != nil {
			b = b[:mark]
			e.drop(err, "xhtml:link")
			continue
		}
		self = self || bytes.Equal(b[href:], loc)
		b = append(b, `"/>`...)
		kept = append(kept, i)
	}
	if self || len(kept) == 0 {
		return b
	}
	err := Invalid(u, "xhtml:link", ErrNoSelfLink)
	if u.Hreflang != "" {
		err = e.tags.check(u, u.Hreflang, kept)
	}
	if err != nil {
		e.drop(err, "xhtml:link")
		return b[:start]
	}
	b = append(b, `<xhtml:link rel="alternate" hreflang="`...)
	b = append(b, u.Hreflang...)
	b = append(b, `" href="`...)
	b = append(b, loc...)
	e.notes = append(e.notes, urlset.ErrSelfLinkAdded)
	return append(b, `"/>`...)
}

// hreflangs remembers the last few hreflang values found well-formed: a
// page's alternates use a few languages again and again.
type hreflangs struct {
	valid [8]string
	next  int // where the next one goes, round the ring
}

// check checks the hreflang h of a link that follows the links of u kept
// (their indexes in u.Alternates).
func (t *hreflangs) check(u *urlset.URL, h string, kept []int) error {
	if !t.known(h) {
		if !langtag.Valid(h) {
			return Invalid(u, "xhtml:link.hreflang", ErrLanguageTag)
		}
		t.valid[t.next] = h
		t.next = (t.next + 1) % len(t.valid)
	}
	for _, i := range kept {
		if p := u.Alternates[i].Hreflang; len(p) == len(h) && strings.EqualFold(p, h) {
			if strings.EqualFold(h, "x-default") {
				return Invalid(u, "xhtml:link.hreflang", ErrXDefaultTwice)
			}
			return Invalid(u, "xhtml:link.hreflang", ErrLanguageTwice)
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
