package sqlsource

import (
	"database/sql"
	"fmt"
	"strings"
)

// template is a parsed Config.LocTemplate: literal text and column values.
type template struct {
	parts []tplPart
	cols  []string // the columns it needs, in the order they are selected
}

type tplPart struct {
	lit      string // literal text, when col < 0
	col      int    // index into template.cols, or -1
	reserved bool   // {+name}: reserved characters are kept
}

// parseTemplate parses s, such as "https://shop.example.com/p/{slug}".
// {name} is replaced by the column's value with every byte other than
// A-Z a-z 0-9 - . _ ~ percent-encoded (RFC 6570 simple expansion), so a
// value always stays within one path segment or query value; {+name}
// keeps the characters a URI may hold, such as / ? & = (RFC 6570
// reserved expansion), for a column that holds a path.
func parseTemplate(s string) (*template, error) {
	t := &template{}
	index := map[string]int{}
	for s != "" {
		open := strings.IndexAny(s, "{}")
		if open < 0 {
			t.parts = append(t.parts, tplPart{lit: s, col: -1})
			break
		}
		if s[open] == '}' {
			return nil, fmt.Errorf("sqlsource: LocTemplate: unexpected }")
		}
		if open > 0 {
			t.parts = append(t.parts, tplPart{lit: s[:open], col: -1})
		}
		end := strings.IndexByte(s[open:], '}')
		if end < 0 {
			return nil, fmt.Errorf("sqlsource: LocTemplate: unclosed {")
		}
		name := s[open+1 : open+end]
		s = s[open+end+1:]
		reserved := strings.HasPrefix(name, "+")
		name = strings.TrimPrefix(name, "+")
		if name == "" || strings.ContainsAny(name, "{") {
			return nil, fmt.Errorf("sqlsource: LocTemplate: empty or malformed column name in {}")
		}
		i, ok := index[name]
		if !ok {
			i = len(t.cols)
			index[name] = i
			t.cols = append(t.cols, name)
		}
		t.parts = append(t.parts, tplPart{col: i, reserved: reserved})
	}
	if len(t.cols) == 0 {
		return nil, fmt.Errorf("sqlsource: LocTemplate has no {column}")
	}
	return t, nil
}

// expand appends the template filled with vals (one per t.cols) to b.
// A NULL value fails the row: a loc with a hole in it would be wrong.
func (t *template) expand(b []byte, vals []sql.RawBytes) ([]byte, error) {
	for _, p := range t.parts {
		if p.col < 0 {
			b = append(b, p.lit...)
			continue
		}
		v := vals[p.col]
		if v == nil {
			return b, fmt.Errorf("sqlsource: LocTemplate: column %s is NULL", t.cols[p.col])
		}
		for _, c := range v {
			if unreserved[c] || p.reserved && uriReserved[c] {
				b = append(b, c)
				continue
			}
			b = append(b, '%', hexDigits[c>>4], hexDigits[c&15])
		}
	}
	return b, nil
}

const hexDigits = "0123456789ABCDEF"

var unreserved, uriReserved = func() (u, r [256]bool) {
	for _, c := range "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~" {
		u[c] = true
	}
	for _, c := range ":/?#[]@!$&'()*+,;=%" {
		r[c] = true
	}
	return u, r
}()
