package sqlsource

import (
	"database/sql"
	"fmt"
	"strconv"

	"github.com/freshmap/sitemap"
)

// rowReader turns the rows of a page or recent query into URLs: the key,
// the lastmod (when the query has it), the loc column or the template's
// columns (but the key, read once), then Columns, in that order. Its buffers are reused from row to
// row; it allocates only the loc string of each URL.
type rowReader struct {
	s    *Source
	key  int64
	lm   timeScanner
	loc  sql.NullString
	vals []sql.RawBytes // the template's columns, then Columns
	ntpl int
	dest []any
	row  Row
	buf  []byte
	// keyText is the key in decimal, for a template that names the key
	// column, which is selected once.
	keyText []byte
}

// newRowReader prepares to scan rows that carry a lastmod column or not.
func (s *Source) newRowReader(withLastMod bool) *rowReader {
	r := &rowReader{s: s, row: Row{names: s.names}}
	r.dest = []any{(*keyValue)(&r.key)}
	if withLastMod {
		r.dest = append(r.dest, &r.lm)
	}
	if s.loc {
		r.dest = append(r.dest, &r.loc)
	}
	if s.tpl != nil {
		r.ntpl = len(s.tpl.cols)
	}
	r.vals = make([]sql.RawBytes, r.ntpl+len(s.names))
	r.row.vals = r.vals[r.ntpl:]
	for i := range r.vals {
		if i != s.keyInTpl-1 {
			r.dest = append(r.dest, &r.vals[i])
		}
	}
	return r
}

// scan reads the current row into u: its loc, resolved against BaseURL,
// and its lastmod (the rest of u is reset). r.row holds the row for
// LocFunc and Annotate.
func (r *rowReader) scan(rows *sql.Rows, u *sitemap.URL) error {
	if err := rows.Scan(r.dest...); err != nil {
		return err
	}
	*u = sitemap.URL{LastMod: r.lm.t}
	r.row.Key, r.row.LastMod = r.key, r.lm.t
	s := r.s
	var err error
	switch {
	case s.loc:
		if !r.loc.Valid {
			return fmt.Errorf("key %d: loc is NULL", r.key)
		}
		u.Loc = r.loc.String
	case s.tpl != nil:
		if s.keyInTpl > 0 { // the key's text, as the driver gives an integer's
			r.keyText = strconv.AppendInt(r.keyText[:0], r.key, 10)
			r.vals[s.keyInTpl-1] = r.keyText
		}
		if r.buf, err = s.tpl.expand(r.buf[:0], r.vals[:r.ntpl]); err != nil {
			return fmt.Errorf("key %d: %w", r.key, err)
		}
		u.Loc = string(r.buf)
	default:
		if u.Loc, err = s.locFunc(&r.row); err != nil {
			return fmt.Errorf("key %d: %w", r.key, err)
		}
	}
	u.Loc = s.base.resolve(u.Loc)
	return nil
}
