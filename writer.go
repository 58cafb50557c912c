package sitemap

import "github.com/freshmap/sitemap/internal/xmlenc"

// The writer of sitemap XML is internal/xmlenc; encode.go calls it for a
// page, and the files below call it for these helpers, under the names
// they had when it was part of this package.

// appendEscaped appends s to b as XML character data (xmlenc.AppendEscaped).
func appendEscaped(b []byte, s string) []byte { return xmlenc.AppendEscaped(b, s) }

// appendAttr appends s to b as an XML attribute value (xmlenc.AppendAttr).
func appendAttr(b []byte, s string) []byte { return xmlenc.AppendAttr(b, s) }

// writtenLoc returns the location of a <url> element the encoder wrote, as
// written (xmlenc.WrittenLoc).
func writtenLoc(elem []byte) []byte { return xmlenc.WrittenLoc(elem) }

// lower returns c in lower case if it is an ASCII upper-case letter.
func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
