package main

import (
	"bytes"
	"reflect"
	"time"

	"github.com/go-mysql-org/go-mysql/replication"
)

// A change is one key a committed row event wrote significantly: an
// insert, a delete, an update of the key (the old key deleted, the new
// one written) or of a significant column. An update of other columns
// alone is no change.
type change struct {
	key     int64
	deleted bool
	at      time.Time // the event's time (whole seconds)
}

// columns says where, in a row image, the key and the significant
// columns are (0-based ordinal positions).
type columns struct {
	key         int
	significant []int
}

// rowChanges turns a rows event's images into changes. Updates come as
// (before, after) pairs. With the FULL row image every column is in both;
// with MINIMAL a column the update did not write is skipped in the after
// image (skipped lists, per image, the positions left out), and a column
// that is there and was not in the before image counts as changed. A key
// that is not an integer has no page and is left out.
func rowChanges(kind replication.EnumRowsEventType, rows [][]any, skipped [][]int, cols columns, at time.Time) []change {
	var out []change
	add := func(v any, deleted bool) {
		if k, ok := intOf(v); ok {
			out = append(out, change{key: k, deleted: deleted, at: at})
		}
	}
	has := func(i, col int) bool {
		if i >= len(skipped) {
			return true
		}
		for _, s := range skipped[i] {
			if s == col {
				return false
			}
		}
		return true
	}
	switch kind {
	case replication.EnumRowsEventTypeInsert, replication.EnumRowsEventTypeDelete:
		for _, r := range rows {
			if cols.key < len(r) {
				add(r[cols.key], kind == replication.EnumRowsEventTypeDelete)
			}
		}
	case replication.EnumRowsEventTypeUpdate:
		for i := 0; i+1 < len(rows); i += 2 {
			before, after := rows[i], rows[i+1]
			if cols.key >= len(before) || cols.key >= len(after) {
				continue
			}
			newKey := before[cols.key]
			if has(i+1, cols.key) && !sameValue(before[cols.key], after[cols.key]) {
				newKey = after[cols.key]
				add(before[cols.key], true)
				add(newKey, false)
				continue
			}
			for _, c := range cols.significant {
				if c < len(after) && has(i+1, c) && (!has(i, c) || !sameValue(before[c], after[c])) {
					add(newKey, false)
					break
				}
			}
		}
	}
	return out
}

// intOf returns an integer column's value as an int64.
func intOf(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int32:
		return int64(n), true
	case int16:
		return int64(n), true
	case int8:
		return int64(n), true
	case uint64:
		return int64(n), n <= 1<<63-1
	case uint32:
		return int64(n), true
	}
	return 0, false
}

// sameValue compares two decoded column values: bytes by content, times
// by instant, anything else (decimals hold pointers) deeply.
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case []byte:
		y, ok := b.([]byte)
		return ok && bytes.Equal(x, y)
	case time.Time:
		y, ok := b.(time.Time)
		return ok && x.Equal(y)
	}
	return reflect.DeepEqual(a, b)
}
