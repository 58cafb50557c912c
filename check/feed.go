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

// isFeed reports whether data (plain or gzip) is an Atom feed or an RSS
// channel, by its root element. It reads only up to the root.
func isFeed(data []byte) bool {
	r, err := plain(data)
	if err != nil {
		return false
	}
	d := xml.NewDecoder(io.LimitReader(r, 64<<10))
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		if se, ok := tok.(xml.StartElement); ok {
			return se.Name.Space == nsAtom && se.Name.Local == "feed" || se.Name.Space == "" && se.Name.Local == "rss"
		}
	}
}

// plain returns a reader of the document in data, decompressed if it is a
// gzip file (by its magic bytes), as parse reads it.
func plain(data []byte) (io.Reader, error) {
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		return gzip.NewReader(bytes.NewReader(data))
	}
	return bytes.NewReader(data), nil
}
