package export

import (
	"bytes"
	"encoding/xml"
	"time"

	"github.com/freshmap/sitemap/parse"
)

// indexDoc is a <sitemapindex> listing entries, each loc given by loc.
// Values are escaped with encoding/xml; a lastmod is written in UTC.
func indexDoc(entries []parse.Sitemap, loc func(parse.Sitemap) string) []byte {
	var b bytes.Buffer
	b.WriteString(xml.Header)
	b.WriteString(`<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` + "\n")
	for _, e := range entries {
		b.WriteString("<sitemap><loc>")
		xml.EscapeText(&b, []byte(loc(e))) // a bytes.Buffer never fails
		b.WriteString("</loc>")
		if !e.LastMod.IsZero() {
			b.WriteString("<lastmod>")
			b.WriteString(e.LastMod.UTC().Format(time.RFC3339))
			b.WriteString("</lastmod>")
		}
		b.WriteString("</sitemap>\n")
	}
	b.WriteString("</sitemapindex>\n")
	return b.Bytes()
}
