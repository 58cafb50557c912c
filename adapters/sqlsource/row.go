package sqlsource

import (
	"database/sql"
	"fmt"
	"strconv"
	"time"
)

// Row is one row of the table as LocFunc and Annotate see it: its key, its
// lastmod and the values of the columns named in Config.Columns. A Row and
// the bytes it returns are only valid during the call.
type Row struct {
	Key     int64     // the key column
	LastMod time.Time // the lastmod column in UTC; zero without one, or for NULL

	names []string       // Config.Columns
	vals  []sql.RawBytes // their values, in the same order
	ts    timeScanner    // for Time; remembers the text layout that last matched
}

// index returns the position of column name in Config.Columns, or -1.
func (r *Row) index(name string) int {
	for i, n := range r.names {
		if n == name {
			return i
		}
	}
	return -1
}

// Bytes returns the value of column name, one of Config.Columns, as the
// driver's text for it (numbers in decimal, times in RFC 3339, booleans as
// the driver gives them), or nil for NULL or a name not in Config.Columns.
// The bytes are only valid during the call.
func (r *Row) Bytes(name string) []byte {
	if i := r.index(name); i >= 0 {
		return r.vals[i]
	}
	return nil
}

// String returns Bytes(name) as a string.
func (r *Row) String(name string) string {
	return string(r.Bytes(name))
}

// Time returns the value of column name, one of Config.Columns, read the
// way Config.LastMod is: a timestamp, date or datetime column of any of the
// databases, text in the SQLite date formats, or an integer of Unix
// seconds, in UTC and truncated to the second. NULL gives the zero time.
// A name not in Config.Columns, or a value that is none of these, is an
// error.
func (r *Row) Time(name string) (time.Time, error) {
	i := r.index(name)
	if i < 0 {
		return time.Time{}, fmt.Errorf("sqlsource: Row.Time: column %q is not in Config.Columns", name)
	}
	v := r.vals[i]
	switch {
	case v == nil:
		return time.Time{}, nil
	case isInteger(v):
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			return time.Time{}, fmt.Errorf("sqlsource: column %s: %w", name, err)
		}
		return time.Unix(n, 0).UTC(), nil
	}
	if t, ok := parseISO(string(v)); ok { // the common case, without allocating
		return t, nil
	}
	if err := r.ts.parse(string(v)); err != nil {
		return time.Time{}, fmt.Errorf("sqlsource: column %s: %w", name, err)
	}
	return r.ts.t, nil
}

// isInteger reports whether b is a decimal integer, such as the driver's
// text for an INTEGER column.
func isInteger(b []byte) bool {
	if len(b) > 0 && b[0] == '-' {
		b = b[1:]
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}
