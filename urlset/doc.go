// Package urlset is the vocabulary of the sitemap protocol
// (sitemaps.org 0.9) and of the extensions search engines read beside
// it: Google's image, video and news sitemaps, and the xhtml hreflang
// links. A [URL] is one <url> entry of a <urlset> file, with its
// [Image], [Video], [News] and [Alternate] parts; [Extensions] names the
// namespaces a file declares; [InvalidURLError] and the Err values are
// the rules a URL can break; [MaxURLs] and [MaxBytes] are the limits of
// one file.
//
// The package only describes: it writes and reads nothing. The sitemap
// package (github.com/freshmap/sitemap) serves URLs as files and names
// every type here under the same name (sitemap.URL is urlset.URL), so
// either import works and the values are the same: errors.Is matches
// sitemap.ErrPageFull against urlset.ErrPageFull. The parse and check
// packages read files into these types without linking the server.
package urlset

// Protocol limits of one sitemap or index file.
const (
	MaxURLs  = 50_000     // <url> entries in one sitemap, <sitemap> entries in one index
	MaxBytes = 52_428_800 // uncompressed bytes of one file
)
