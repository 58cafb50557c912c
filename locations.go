package sitemap

import "github.com/freshmap/sitemap/internal/readback"

// Our own files read back (internal/readback), under the names the files
// that call them use: the locations, for the URLs a rebuilt page lost
// (changes.go); the <url> elements whole, for the HTML view and the
// self-audit. (The hashes of a page's URLs are read back in changes.go,
// sumsOf.)

// eachLoc calls f with the location, as written, of every <url> of gz.
func eachLoc(gz []byte, f func(loc []byte)) error { return readback.EachLoc(gz, f) }

// appendUnescapedLoc appends loc, as written, with its entities turned
// back into their characters.
func appendUnescapedLoc(b, loc []byte) []byte { return readback.AppendUnescapedLoc(b, loc) }

// eachURL calls f with every <url> element of gz, as written.
func eachURL(gz []byte, f func(elem []byte) error) error { return readback.EachURL(gz, f) }
