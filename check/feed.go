package check

import "encoding/xml"

// Feeds: robots.txt may name an RSS or Atom feed as a sitemap (the
// protocol allows both, and this library serves Atom feeds of recent
// changes). They are recognised and counted, and their documents are not
// judged by the sitemap rules.

const nsAtom = "http://www.w3.org/2005/Atom"

// isFeed reports whether a root element is an Atom feed's or an RSS channel's.
func isFeed(root xml.Name) bool {
	return root.Space == nsAtom && root.Local == "feed" || root.Space == "" && root.Local == "rss"
}
