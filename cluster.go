package sitemap

import (
	"errors"
	"fmt"
	"strings"

	"github.com/freshmap/sitemap/internal/langtag"
)

// Hreflang declares, once for a whole section, that each of its pages
// exists in several languages, as Django's i18n, alternates and x_default
// do: the Source yields each page once, and the section's files hold the
// page in every language, each <url> listing every language version
// (itself included) and the x-default, as the hreflang rules ask.
//
// A language's version of a page is the Source's loc with the language's
// Prefix put after the base URL: with the base URL https://example.com/
// and the Languages {"en", ""}, {"de", "de"}, the Source's
// https://example.com/p/1 is written as https://example.com/p/1 and
// https://example.com/de/p/1, each with the links en, de and x-default.
//
// A URL that has Alternates of its own is written as given, alone: that is
// how a page that exists in fewer languages, or under other paths, says
// so. A Source's loc that does not start with the base URL as New
// canonicalised it (such as "https://example.com/") is not written and is
// reported.
//
// Each file holds the section's page size times the number of Languages
// <url> entries, at most 50,000: New refuses a page size that would hold
// more, and a zero Section.PageSize means 50,000 divided by that number.
// A FromSlice list short enough for one file is taken whatever its page
// size.
// Only page files are expanded: the section's Atom feed lists the
// Source's URLs as they are. It needs ExtAlternates, and is not for news
// sections (a news article has one language).
type Hreflang struct {
	// Languages are the languages every page of the section exists in, in
	// the order written: each a BCP 47 tag, none twice (without regard to
	// case), and each with its own Prefix.
	Languages []Language
	// XDefault is the Tag of the language whose version is also the
	// x-default link, for visitors of no listed language; "" writes no
	// x-default.
	XDefault string
}

// Language is one language of a Hreflang cluster.
type Language struct {
	// Tag is the BCP 47 language tag written as the hreflang, such as
	// "de", "en-GB" or "es-419". "x-default" is not a language: name it
	// with Hreflang.XDefault.
	Tag string
	// Prefix is the path the language's pages have after the base URL's
	// path, such as "de" or "/de" for /de/p/1 (slashes at its ends are
	// ignored); "" for the language whose pages are the Source's own
	// locs. It is one or more path segments of letters, digits and
	// "-._~".
	Prefix string
}

// errClusterBase is why a URL of a section with Hreflang is not written
// when its loc cannot be given the languages' prefixes.
var errClusterBase = errors.New("does not start with the base URL as written in the sitemap, so no language prefix can follow it")

// cluster is a section's Hreflang, checked by newCluster: what pageRun
// needs to write each URL once per language.
type cluster struct {
	tags     []string
	prefixes []string // each "" or ending in "/", to put between the base URL and the rest of a loc
	xDefault int      // the index of the x-default's language; -1 for none
}

// newCluster checks h, the Hreflang of the section named name.
func newCluster(name string, h *Hreflang) (*cluster, error) {
	if len(h.Languages) == 0 {
		return nil, fmt.Errorf("section %q: Hreflang has no Languages", name)
	}
	c := &cluster{xDefault: -1}
	for i, l := range h.Languages {
		switch {
		case strings.EqualFold(l.Tag, "x-default"):
			return nil, fmt.Errorf("section %q: Hreflang.Languages[%d]: x-default is not a language; name one with XDefault", name, i)
		case !langtag.Valid(l.Tag):
			return nil, fmt.Errorf("section %q: Hreflang.Languages[%d]: %q is not a well-formed BCP 47 language tag", name, i, l.Tag)
		}
		p := strings.Trim(l.Prefix, "/")
		if p != "" && !validPrefix(p) {
			return nil, fmt.Errorf("section %q: Hreflang.Languages[%d]: Prefix %q is not path segments of letters, digits and -._~", name, i, l.Prefix)
		}
		if p != "" {
			p += "/"
		}
		for j, t := range c.tags {
			switch {
			case strings.EqualFold(t, l.Tag):
				return nil, fmt.Errorf("section %q: Hreflang lists %q twice", name, l.Tag)
			case c.prefixes[j] == p:
				return nil, fmt.Errorf("section %q: Hreflang gives %q and %q the same Prefix %q", name, t, l.Tag, l.Prefix)
			}
		}
		if l.Tag == h.XDefault {
			c.xDefault = i
		}
		c.tags, c.prefixes = append(c.tags, l.Tag), append(c.prefixes, p)
	}
	if h.XDefault != "" && c.xDefault < 0 {
		return nil, fmt.Errorf("section %q: Hreflang.XDefault %q is not the Tag of one of its Languages", name, h.XDefault)
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

// size is the number of <url> entries one URL of the Source becomes.
func (c *cluster) size() int { return len(c.tags) }

// members fills alts, reused from one URL to the next, with the links of
// the cluster of loc, the Source's loc under base: one per language, then
// the x-default. The hrefs of the prefixed languages share one string, so
// a URL costs one allocation whatever the number of languages. It fails
// with errClusterBase if loc does not start with base.
func (c *cluster) members(base, loc string, alts []Alternate) ([]Alternate, error) {
	rest, ok := strings.CutPrefix(loc, base)
	if !ok {
		return alts[:0], errClusterBase
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
		alts = append(alts, Alternate{Hreflang: c.tags[i], Href: href})
	}
	if c.xDefault >= 0 {
		alts = append(alts, Alternate{Hreflang: "x-default", Href: alts[c.xDefault].Href})
	}
	return alts, nil
}
