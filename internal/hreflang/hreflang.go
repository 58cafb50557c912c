// Package hreflang writes a section's languages, declared once, into each
// of its URLs: the checked cluster of languages (a tag and a path prefix
// each, and the x-default) and, for one location, the links of every
// language's version of it. It is given plain strings and knows nothing of
// the sitemap's sections; the root package's Section.Hreflang is its
// public face.
package hreflang

import (
	"errors"
	"fmt"
	"strings"

	"github.com/freshmap/sitemap/internal/langtag"
	"github.com/freshmap/sitemap/urlset"
)

// ErrBase is why a URL of a section with a cluster is not written when
// its loc cannot be given the languages' prefixes.
var ErrBase = errors.New("does not start with the base URL as written in the sitemap, so no language prefix can follow it")

// Cluster is a section's languages, checked by New: what the page
// encoder needs to write each URL once per language.
type Cluster struct {
	tags     []string
	prefixes []string // each "" or ending in "/", to put between the base URL and the rest of a loc
	xDefault int      // the index of the x-default's language; -1 for none
}

// New checks the languages of the section named section: tags[i] is a
// language's BCP 47 tag and prefixes[i] its path after the base URL (as
// given: slashes at its ends are ignored); xDefault is the tag whose
// version is also the x-default, or "". Its errors name the section and
// the Hreflang field at fault.
func New(section string, tags, prefixes []string, xDefault string) (*Cluster, error) {
	if len(tags) == 0 {
		return nil, fmt.Errorf("section %q: Hreflang has no Languages", section)
	}
	c := &Cluster{xDefault: -1}
	for i, tag := range tags {
		switch {
		case strings.EqualFold(tag, "x-default"):
			return nil, fmt.Errorf("section %q: Hreflang.Languages[%d]: x-default is not a language; name one with XDefault", section, i)
		case !langtag.Valid(tag):
			return nil, fmt.Errorf("section %q: Hreflang.Languages[%d]: %q is not a well-formed BCP 47 language tag", section, i, tag)
		}
		p := strings.Trim(prefixes[i], "/")
		if p != "" && !validPrefix(p) {
			return nil, fmt.Errorf("section %q: Hreflang.Languages[%d]: Prefix %q is not path segments of letters, digits and -._~", section, i, prefixes[i])
		}
		if p != "" {
			p += "/"
		}
		for j, t := range c.tags {
			switch {
			case strings.EqualFold(t, tag):
				return nil, fmt.Errorf("section %q: Hreflang lists %q twice", section, tag)
			case c.prefixes[j] == p:
				return nil, fmt.Errorf("section %q: Hreflang gives %q and %q the same Prefix %q", section, t, tag, prefixes[i])
			}
		}
		if tag == xDefault {
			c.xDefault = i
		}
		c.tags, c.prefixes = append(c.tags, tag), append(c.prefixes, p)
	}
	if xDefault != "" && c.xDefault < 0 {
		return nil, fmt.Errorf("section %q: Hreflang.XDefault %q is not the Tag of one of its Languages", section, xDefault)
	}
	return c, nil
}

// validPrefix reports whether p is slash-separated segments of
// unreserved characters, none of them empty, "." or "..".
func validPrefix(p string) bool {
	for seg := range strings.SplitSeq(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
		for i := 0; i < len(seg); i++ {
			c := seg[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
				return false
			}
		}
	}
	return true
}

// Size is the number of <url> entries one URL of the Source becomes.
func (c *Cluster) Size() int { return len(c.tags) }

// Members fills alts, reused from one URL to the next, with the links of
// the cluster of loc, the Source's loc under base: one per language, then
// the x-default. The hrefs of the prefixed languages share one string, so
// a URL costs one allocation whatever the number of languages. It fails
// with ErrBase if loc does not start with base.
func (c *Cluster) Members(base, loc string, alts []urlset.Alternate) ([]urlset.Alternate, error) {
	rest, ok := strings.CutPrefix(loc, base)
	if !ok {
		return alts[:0], ErrBase
	}
	n := 0
	for _, p := range c.prefixes {
		if p != "" {
			n += len(base) + len(p) + len(rest)
		}
	}
	var b strings.Builder
	b.Grow(n)
	for _, p := range c.prefixes {
		if p != "" {
			b.WriteString(base)
			b.WriteString(p)
			b.WriteString(rest)
		}
	}
	hrefs := b.String()
	alts = alts[:0]
	for i, p := range c.prefixes {
		href := loc
		if p != "" {
			n := len(base) + len(p) + len(rest)
			href, hrefs = hrefs[:n], hrefs[n:]
		}
		alts = append(alts, urlset.Alternate{Hreflang: c.tags[i], Href: href})
	}
	if c.xDefault >= 0 {
		alts = append(alts, urlset.Alternate{Hreflang: "x-default", Href: alts[c.xDefault].Href})
	}
	return alts, nil
}
