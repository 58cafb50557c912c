package audit

import (
	"bytes"
	"io"
	"strings"
	"time"

	"github.com/freshmap/sitemap/internal/pagecheck"
	"github.com/freshmap/sitemap/internal/readback"
)

// The sitemap's own files read back for the audit (Options.Heads and
// Parse): the whole file is read, and only the sample is parsed.

// Heads returns the start of every <url> element of a built page
// (gzipped, as internal/xmlenc writes it): its loc and lastmod as
// written, one string each.
func Heads(gz []byte) ([]string, error) {
	var heads []string
	err := readback.EachURL(gz, func(elem []byte) error {
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

// ParseHead reads an element's start, as Heads keeps it (or one of a
// location alone): a date alone is its day, in UTC, as the encoder
// writes it.
func ParseHead(head string) URL {
	raw, rest, _ := strings.Cut(strings.TrimPrefix(head, "<url><loc>"), "</loc>")
	u := URL{Raw: raw, Loc: string(readback.AppendUnescapedLoc(nil, []byte(raw)))}
	if v, ok := strings.CutPrefix(rest, "<lastmod>"); ok {
		if t, err := time.Parse(time.RFC3339, v); err == nil {
			u.Lastmod = pagecheck.Instant(t)
		} else if t, err := time.Parse(time.DateOnly, v); err == nil {
			u.Lastmod = pagecheck.Day(t)
		}
	}
	return u
}
