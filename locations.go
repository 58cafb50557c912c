package sitemap

import "github.com/freshmap/sitemap/internal/readback"

// Our own files read back (internal/readback), under the names the files
// that call them use: the locations, for the URLs a rebuilt page lost
// (changes.go); and the hashes of a page's URLs (sumsOf). The HTML view
// and the self-audit read theirs in internal/htmlview and internal/audit.

// eachLoc calls f with the location, as written, of every <url> of gz.
func eachLoc(gz []byte, f func(loc []byte)) error { return readback.EachLoc(gz, f) }

// appendUnescapedLoc appends loc, as written, with its entities turned
// back into their characters.
func appendUnescapedLoc(b, loc []byte) []byte { return readback.AppendUnescapedLoc(b, loc) }

// sumsOf returns the hashes of the <url> elements of gz, as the tracker
// (changes.go) took them while the page was built, for a page whose
// previous copy carries none (one taken from the Store).
func sumsOf(gz []byte) ([]urlSum, error) {
	var sums []urlSum
	err := readback.Sums(gz, func(loc, entry uint64) { sums = append(sums, urlSum{loc: loc, entry: entry}) })
	if err != nil {
		return nil, err
	}
	return sums, nil
}
