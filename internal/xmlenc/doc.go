// Package xmlenc writes sitemap XML: a <urlset> of urlset.URL entries, or
// a <sitemapindex>, one entry at a time, with every rule of the protocol
// and of its extensions checked as the entry is written.
//
// An [Encoder] builds each entry in its buffer and rolls it back if it
// breaks a rule, so nothing invalid reaches the writer: a bad location (or
// a bad article in a news sitemap) skips the URL with an
// *urlset.InvalidURLError, any other element at fault is left out whole
// and noted ([Encoder.Notes]), and an entry that would take the file past
// its URL or byte limit gets urlset.ErrPageFull, as does every entry after
// it. The same input always yields the same bytes. Locations are written
// in canonical form ([AppendURI]: IRI to URI, punycode hosts, lower-case
// scheme and host), and times in the W3C format, in UTC.
//
// The package knows nothing of sources, pages or serving: the sitemap
// package reads a section's Source and calls an Encoder for each URL, and
// internal/readback reads the bytes back. It imports urlset, never the
// sitemap package.
package xmlenc
