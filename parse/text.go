package parse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/freshmap/sitemap/urlset"
)

// A plain-text sitemap is the protocol's other format: UTF-8, one URL a
// line, within the same limits as XML. Open tells it by its first bytes (a
// URL scheme and "://" where XML has '<'). Blank lines are passed over;
// every other line, trimmed of white space, is one entry with only its
// Loc set, which the reader does not judge (a checker does). A line longer
// than Limits.MaxText, more entries than MaxEntries, more bytes than
// MaxBytes, or bytes that are not UTF-8 end the document.

// textEntry reads up to the next line that is not blank, into u.Loc. It
// returns false at the end of the document or on an error that ends it.
func (p *parser) textEntry(u *urlset.URL) (bool, error) {
	for {
		line := int(p.in.lines) + 1
		b, err := p.textLine()
		if err != nil && err != io.EOF {
			return false, &Error{Line: line, Column: 1, Err: err}
		}
		if s := bytes.TrimSpace(b); len(s) > 0 {
			if !utf8.Valid(s) {
				return false, &Error{Line: line, Column: 1, Err: fmt.Errorf("%w: invalid UTF-8 (Latin-1, or another encoding?)", ErrEncoding)}
			}
			if p.entries++; p.entries > p.lim.MaxEntries {
				return false, &Error{Line: line, Column: 1, Err: fmt.Errorf("%w (%d)", ErrTooMany, p.lim.MaxEntries)}
			}
			u.Loc = string(s)
			p.entryLine, p.entryCol = line, 1
			return true, nil
		}
		if err == io.EOF {
			return false, nil
		}
	}
}

// textLine reads one line into p.buf, without its '\n'; io.EOF comes with
// the last line when it has no '\n'.
func (p *parser) textLine() ([]byte, error) {
	p.buf = p.buf[:0]
	for {
		c, err := p.in.ReadByte()
		if err != nil {
			return p.buf, err
		}
		if c == '\n' {
			return p.buf, nil
		}
		p.buf = append(p.buf, c)
	}
}

// errTextIndex is the error of a plain-text document read as an index.
var errTextIndex = errors.New("a plain-text sitemap (one URL a line) lists pages; an index is XML")
