package sqlsource

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/freshmap/sitemap"
)

// baseURL is a parsed Config.BaseURL, which turns the paths a table stores
// into absolute URLs. The zero value resolves nothing.
type baseURL struct {
	prefix string // the base without a trailing slash, such as "https://example.com/shop"
	scheme string // its scheme and colon, such as "https:", for "//host/path" references
}

// parseBaseURL checks s, once, in New: the rows are then joined to it as
// strings, with no URL parsing per row.
func parseBaseURL(s string) (baseURL, error) {
	if s == "" {
		return baseURL{}, nil
	}
	u, err := url.Parse(s)
	if err != nil {
		return baseURL{}, fmt.Errorf("sqlsource: Config.BaseURL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.Opaque != "" {
		return baseURL{}, fmt.Errorf("sqlsource: Config.BaseURL %q is not an absolute http or https URL", s)
	}
	if u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.HasSuffix(s, "#") {
		return baseURL{}, fmt.Errorf("sqlsource: Config.BaseURL %q must not have user info, a query or a fragment", s)
	}
	return baseURL{prefix: strings.TrimRight(s, "/"), scheme: u.Scheme + ":"}, nil
}

// isPath reports whether ref is a reference that b resolves: it is set and
// ref starts with a slash.
func (b *baseURL) isPath(ref string) bool {
	return b.prefix != "" && ref != "" && ref[0] == '/'
}

// resolve returns ref made absolute: "/p/1" becomes the base followed by
// "/p/1", "//cdn.example.com/x.jpg" gets the base's scheme, and anything
// else is returned as it is.
func (b *baseURL) resolve(ref string) string {
	if p, ok := b.prefixOf(ref); ok {
		return p + ref
	}
	return ref
}

// prefixOf returns what resolve puts before ref, with ok false when ref
// is no path and is returned as it is.
func (b *baseURL) prefixOf(ref string) (prefix string, ok bool) {
	switch {
	case !b.isPath(ref):
		return "", false
	case len(ref) > 1 && ref[1] == '/':
		return b.scheme, true
	}
	return b.prefix, true
}

// writeResolved writes ref made absolute, as resolve returns it, to w
// when it is a path, and nothing otherwise.
func (b *baseURL) writeResolved(w *strings.Builder, ref string) {
	if p, ok := b.prefixOf(ref); ok {
		w.WriteString(p)
		w.WriteString(ref)
	}
}

// resolvedLen returns the length of ref made absolute when it is a path,
// and 0 otherwise.
func (b *baseURL) resolvedLen(ref string) int {
	if p, ok := b.prefixOf(ref); ok {
		return len(p) + len(ref)
	}
	return 0
}

// resolveURL resolves the loc, image locs and licenses and alternate hrefs
// of u that are still paths, such as those a custom Loader or Annotate
// set. Slices that hold one are copied into the scratch slices, which the
// caller reuses from URL to URL: they may be shared with other URLs. The
// ready-made Loaders resolve as they load, so their slices are never
// copied.
func (b *baseURL) resolveURL(u *sitemap.URL, images *[]sitemap.Image, alts *[]sitemap.Alternate) {
	u.Loc = b.resolve(u.Loc)
	for i, img := range u.Images {
		if b.isPath(img.Loc) || b.isPath(img.License) {
			*images = append((*images)[:0], u.Images...)
			for j := i; j < len(*images); j++ {
				im := &(*images)[j]
				im.Loc, im.License = b.resolve(im.Loc), b.resolve(im.License)
			}
			u.Images = *images
			break
		}
	}
	for i, a := range u.Alternates {
		if b.isPath(a.Href) {
			*alts = append((*alts)[:0], u.Alternates...)
			for j := i; j < len(*alts); j++ {
				(*alts)[j].Href = b.resolve((*alts)[j].Href)
			}
			u.Alternates = *alts
			break
		}
	}
}
