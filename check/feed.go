package check

import (
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"io"
)

// Feeds: robots.txt may name an RSS or Atom feed as a sitemap (the
// protocol allows both, and this library serves Atom feeds of recent
// changes). They are recognised and counted, and their documents are not
// judged by the sitemap rules.

const nsAtom = "http://www.w3.org/2005/Atom"

// rootOf returns the name of the root element of data (plain or gzip), or
// the zero Name when it cannot be read. It reads only up to the root.
func rootOf(data []byte) xml.Name {
	r, err := plain(data)
	if err != nil {
		return xml.Name{}
	}
	d := xml.NewDecoder(io.LimitReader(r, 64<<10))
	for {
		tok, err := d.Token()
		if err != nil {
			return xml.Name{}
		}
		if se, ok := tok.(xml.StartElement); ok {
			return se.Name
		}
	}
}

// isFeed reports whether a root element is an Atom feed's or an RSS channel's.
func isFeed(root xml.Name) bool {
	return root.Space == nsAtom && root.Local == "feed" || root.Space == "" && root.Local == "rss"
}

// plain returns a reader of the document in data, decompressed if it is a
// gzip file (by its magic bytes), as parse reads it.
func plain(data []byte) (io.Reader, error) {
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		return gzip.NewReader(bytes.NewReader(data))
	}
	return bytes.NewReader(data), nil
}
