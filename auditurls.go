package sitemap

import (
	"bytes"
	"io"
	"strings"
	"time"

	"github.com/freshmap/sitemap/internal/pagecheck"
)

// auditURL is one URL of a built page, as the audit reads it back.
type auditURL struct {
	raw     string         // the location as written: XML-escaped
	loc     string         // the location
	lastmod pagecheck.Span // its lastmod; zero if none
}

// auditHeads returns the start of every <url> element of a built page
// (gzipped), its loc and lastmod as written, one string each: the whole
// file is read, and only the sample is parsed (auditURLOf).
func auditHeads(gz []byte) ([]string, error) {
	var heads []string
	err := eachURL(gz, func(elem []byte) error {
		end := bytes.Index(elem, []byte("</loc>"))
		if end < 0 {
			return io.ErrUnexpectedEOF
		}
		end += len("</loc>")
		if rest := elem[end:]; bytes.HasPrefix(rest, []byte("<lastmod>")) {
			if i := bytes.Index(rest, []byte("</lastmod>")); i >= 0 {
				end += i
			}
		}
		heads = append(heads, string(elem[:end]))
		return nil
	})
	return heads, err
}

// auditURLOf reads an element's start, as auditHeads keeps it: a date
// alone is its day, in UTC, as the encoder writes it.
func auditURLOf(head string) auditURL {
	raw, rest, _ := strings.Cut(strings.TrimPrefix(head, "<url><loc>"), "</loc>")
	u := auditURL{raw: raw, loc: string(appendUnescapedLoc(nil, []byte(raw)))}
	if v, ok := strings.CutPrefix(rest, "<lastmod>"); ok {
		if t, err := time.Parse(time.RFC3339, v); err == nil {
			u.lastmod = pagecheck.Instant(t)
		} else if t, err := time.Parse(time.DateOnly, v); err == nil {
			u.lastmod = pagecheck.Day(t)
		}
	}
	return u
}
