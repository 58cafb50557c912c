package parse

import (
	"bytes"
	"strconv"
	"strings"
	"time"
)

// The value readers below each read the text of the element just opened,
// up to its end tag. A value that does not fit its type is recorded with
// p.invalid and leaves dst unchanged; only errors that end the document are
// returned.

// str stores the text as written.
func (p *parser) str(dst *string) error {
	b, err := p.text()
	if err == nil {
		*dst = string(b)
	}
	return err
}

// trimmed stores the text without surrounding white space, as the schema's
// anyURI, token and enumeration types read it.
func (p *parser) trimmed(dst *string) error {
	b, err := p.text()
	if err == nil {
		*dst = string(bytes.TrimSpace(b))
	}
	return err
}

// loc stores a location trimmed, as trimmed does; an empty one (or only
// white space) is invalid: no URL, as a missing element is. name is the
// element, for the message.
func (p *parser) loc(dst *string, name string) error {
	if err := p.trimmed(dst); err != nil {
		return err
	}
	if *dst == "" {
		p.invalid("empty %s", name)
	}
	return nil
}

// datetime stores a W3C datetime in UTC; dateOnly, if not nil, tells
// whether a date alone was given.
func (p *parser) datetime(dst *time.Time, dateOnly *bool) error {
	b, err := p.text()
	if err != nil {
		return err
	}
	t, d, perr := parseW3C(string(bytes.TrimSpace(b)))
	if perr != nil {
		p.invalid("%v: %s", perr, quote(b))
		return nil
	}
	*dst = t
	if dateOnly != nil {
		*dateOnly = d
	}
	return nil
}

// decimal stores an xs:decimal such as 0.8, -1, .5 or 3.
func (p *parser) decimal(dst **float64) error {
	b, err := p.text()
	if err != nil {
		return err
	}
	s := bytes.TrimSpace(b)
	if !isDecimal(s) {
		p.invalid("not a decimal number: %s", quote(b))
		return nil
	}
	f, _ := strconv.ParseFloat(string(s), 64) // a valid decimal only loses precision
	*dst = &f
	return nil
}

// integer stores a non-negative integer, such as a view count or a
// duration in seconds, no larger than max.
func (p *parser) integer(dst *int64, max int64) (bool, error) {
	b, err := p.text()
	if err != nil {
		return false, err
	}
	n, perr := strconv.ParseUint(string(bytes.TrimSpace(b)), 10, 63)
	if perr != nil || int64(n) > max {
		p.invalid("not an integer from 0 to %d: %s", max, quote(b))
		return false, nil
	}
	*dst = int64(n)
	return true, nil
}

// list stores a list split on sep (a comma, or white space when sep is 0),
// with empty items dropped.
func (p *parser) list(dst *[]string, sep byte) error {
	b, err := p.text()
	if err != nil {
		return err
	}
	var items []string
	if sep == 0 {
		items = strings.Fields(string(b))
	} else {
		for it := range strings.SplitSeq(string(b), string(sep)) {
			if it = strings.TrimSpace(it); it != "" {
				items = append(items, it)
			}
		}
	}
	*dst = items
	return nil
}

// isDecimal accepts [+-]?(digits(.digits?)?|.digits).
func isDecimal(s []byte) bool {
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	digits, dot := 0, false
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && !dot:
			dot = true
		default:
			return false
		}
	}
	return digits > 0
}

// quote quotes a value for an error message, cut to 64 bytes.
func quote(b []byte) string {
	if len(b) > 64 {
		return strconv.Quote(string(b[:64])) + "…"
	}
	return strconv.Quote(string(b))
}
