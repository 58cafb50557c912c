package parse_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/freshmap/sitemap/parse"
)

// Reading a sitemap back, as a checker would: a bad value is reported at
// its line and column, and reading goes on with the next URL.
func Example() {
	doc := `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>https://example.com/</loc><lastmod>2025-06-01</lastmod></url>
<url><loc>https://example.com/about</loc><priority>high</priority></url>
<url><loc>https://example.com/contact</loc><priority>0.3</priority></url>
</urlset>`
	for u, err := range parse.URLs(strings.NewReader(doc), parse.Limits{}) { // plain or gzip
		var perr *parse.Error
		if errors.As(err, &perr) {
			fmt.Printf("sitemap.xml:%d:%d: %s: %v\n", perr.Line, perr.Column, perr.Path, perr.Err)
			if !errors.Is(err, parse.ErrInvalid) {
				break // malformed XML or a limit: the document ends here
			}
			continue
		}
		fmt.Println(u.Loc, u.LastMod.Format("2006-01-02"), u.LastModDateOnly)
	}
	// Output:
	// https://example.com/ 2025-06-01 true
	// sitemap.xml:4:42: urlset/url/priority: sitemap: invalid value: not a decimal number: "high"
	// https://example.com/contact 0001-01-01 false
}
