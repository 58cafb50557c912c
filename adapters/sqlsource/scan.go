package sqlsource

import (
	"database/sql"
	"errors"
	"fmt"
)

// keyValue scans an integer column, such as the key: an int64, as the
// drivers give one, directly; anything else as Scan into an *int64 would
// (see sql.NullInt64). database/sql converts an int64 into an *int64 by
// reflection, which for a page of 50,000 rows and their images and
// alternates costs more than reading them.
type keyValue int64

// keyAdvice says what to do about a key that is not an integer.
const keyAdvice = "sqlsource pages by integer key ranges: give the table a unique integer column with an index " +
	"(such as a BIGINT identity) and name it in Config.Key"

// Scan implements sql.Scanner.
func (k *keyValue) Scan(src any) error {
	if v, ok := src.(int64); ok {
		*k = keyValue(v)
		return nil
	}
	var n sql.NullInt64
	if err := n.Scan(src); err != nil {
		return fmt.Errorf("%w (%s)", err, keyAdvice)
	}
	if !n.Valid {
		return errors.New("converting NULL to int64 is unsupported")
	}
	*k = keyValue(n.Int64)
	return nil
}

// textValue scans a text column as the driver gives it, without a copy: a
// string as it is, or the driver's bytes, which are only valid until the
// next row. NULL reads as "".
type textValue struct {
	s       string
	b       []byte
	isBytes bool
}

// Scan implements sql.Scanner.
func (t *textValue) Scan(src any) error {
	switch v := src.(type) {
	case string:
		t.s, t.b, t.isBytes = v, nil, false
	case []byte:
		t.s, t.b, t.isBytes = "", v, true
	case nil:
		t.s, t.b, t.isBytes = "", nil, false
	default:
		return fmt.Errorf("sqlsource: %T where text was expected", src)
	}
	return nil
}

// String returns the value.
func (t *textValue) String() string {
	if t.isBytes {
		return string(t.b)
	}
	return t.s
}

// resolved returns the value made absolute by base (see baseURL.resolve),
// allocating at most once.
func (t *textValue) resolved(base *baseURL) string {
	if !t.isBytes {
		return base.resolve(t.s)
	}
	if base.prefix == "" || len(t.b) == 0 || t.b[0] != '/' {
		return t.String()
	}
	if len(t.b) > 1 && t.b[1] == '/' {
		return base.scheme + string(t.b)
	}
	return base.prefix + string(t.b)
}

// interned hands out one string for each distinct value of a column that
// holds few of them, such as hreflang, so that a page's rows share them
// instead of each allocating its own.
type interned struct{ vals []string }

// maxInterned bounds the values interned kept: past it, a value is
// returned as the driver gave it.
const maxInterned = 64

// of returns t's value, the same string each time it is the same.
func (in *interned) of(t *textValue) string {
	for _, v := range in.vals {
		if t.isBytes && string(t.b) == v || !t.isBytes && t.s == v {
			return v
		}
	}
	v := t.String()
	if len(in.vals) < maxInterned {
		in.vals = append(in.vals, v)
	}
	return v
}
