package check

import "encoding/xml"

// Feeds: robots.txt may name an RSS or Atom feed as a sitemap (the
// protocol allows both, and this library serves Atom feeds of recent
// changes). They are recognised and counted, and their documents are not
// judged by the sitemap rules.

const (
	nsAtom   = "http://www.w3.org/2005/Atom"
	nsAtom03 = "http://purl.org/atom/ns#" // Atom 0.3, which the protocol names beside 1.0
)

// isFeed reports whether a root element is an Atom feed's (1.0 or 0.3) or
// an RSS channel's.
func isFeed(root xml.Name) bool {
	return (root.Space == nsAtom || root.Space == nsAtom03) && root.Local == "feed" || root.Space == "" && root.Local == "rss"
}
