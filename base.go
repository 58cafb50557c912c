package sitemap

import (
	"strings"

	"github.com/freshmap/sitemap/internal/xmlenc"
)

// parseBase checks a configured base URL and returns it in canonical form
// (xmlenc.ParseBase): lower-case scheme and host, no query or fragment,
// and a path that ends in '/'. Every loc a sitemap lists must start with it.
func parseBase(s string) (string, error) { return xmlenc.ParseBase(s) }

// baseURL is the canonical base URL, split once.
type baseURL struct {
	url    string // "https://example.com/shop/": scheme, host, path, ending in '/'
	scheme string // "https"
	host   string // "example.com", with its port if it has one
	path   string // "/shop/"
}

func splitBase(canonical string) baseURL {
	scheme, rest, _ := strings.Cut(canonical, "://")
	i := strings.IndexByte(rest, '/')
	return baseURL{url: canonical, scheme: scheme, host: rest[:i], path: rest[i:]}
}
