package main

import (
	"slices"
	"testing"
	"time"

	"github.com/go-mysql-org/go-mysql/replication"
)

// TestRowChanges: the changes a rows event's images make, with the
// products table's columns (id, slug, stock, updated_at, published) and
// slug and published significant.
func TestRowChanges(t *testing.T) {
	cols := columns{key: 0, significant: []int{1, 4}}
	at := time.Unix(1_800_000_000, 0)
	row := func(id int64, slug string, stock int32, pub int8) []any {
		return []any{id, slug, stock, "2026-11-28 21:00:00", pub}
	}
	for _, c := range []struct {
		name    string
		kind    replication.EnumRowsEventType
		rows    [][]any
		skipped [][]int
		want    []change
	}{
		{"insert", replication.EnumRowsEventTypeInsert, [][]any{row(2, "a", 1, 1), row(4, "b", 1, 1)}, nil,
			[]change{{key: 2, at: at}, {key: 4, at: at}}},
		{"delete", replication.EnumRowsEventTypeDelete, [][]any{row(2, "a", 1, 1)}, nil, []change{{key: 2, deleted: true, at: at}}},
		{"slug", replication.EnumRowsEventTypeUpdate, [][]any{row(2, "a", 1, 1), row(2, "b", 1, 1)}, nil, []change{{key: 2, at: at}}},
		{"published", replication.EnumRowsEventTypeUpdate, [][]any{row(2, "a", 1, 1), row(2, "a", 1, 0)}, nil, []change{{key: 2, at: at}}},
		{"stock alone", replication.EnumRowsEventTypeUpdate, [][]any{row(2, "a", 1, 1), row(2, "a", 2, 1)}, nil, nil},
		{"slug bytes, same", replication.EnumRowsEventTypeUpdate, [][]any{{int64(2), []byte("a"), int32(1), "", int8(1)},
			{int64(2), []byte("a"), int32(2), "", int8(1)}}, nil, nil},
		{"key moved", replication.EnumRowsEventTypeUpdate, [][]any{row(2, "a", 1, 1), row(8, "a", 1, 1)}, nil,
			[]change{{key: 2, deleted: true, at: at}, {key: 8, at: at}}},
		{"two pairs, one significant", replication.EnumRowsEventTypeUpdate,
			[][]any{row(2, "a", 1, 1), row(2, "a", 5, 1), row(4, "b", 1, 1), row(4, "c", 1, 1)}, nil, []change{{key: 4, at: at}}},
		// MINIMAL: the before image holds the key alone, the after image
		// what the update wrote.
		{"minimal, stock", replication.EnumRowsEventTypeUpdate, [][]any{{int64(2), nil, nil, nil, nil}, {nil, nil, int32(3), nil, nil}},
			[][]int{{1, 2, 3, 4}, {0, 1, 3, 4}}, nil},
		{"minimal, slug", replication.EnumRowsEventTypeUpdate, [][]any{{int64(2), nil, nil, nil, nil}, {nil, "z", nil, nil, nil}},
			[][]int{{1, 2, 3, 4}, {0, 2, 3, 4}}, []change{{key: 2, at: at}}},
		{"string key", replication.EnumRowsEventTypeInsert, [][]any{{"k", "a", int32(1), "", int8(1)}}, nil, nil},
		{"odd update images", replication.EnumRowsEventTypeUpdate, [][]any{row(2, "a", 1, 1)}, nil, nil},
		{"short row", replication.EnumRowsEventTypeInsert, [][]any{{}}, nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := rowChanges(c.kind, c.rows, c.skipped, cols, at); !slices.Equal(got, c.want) {
				t.Errorf("rowChanges = %v, want %v", got, c.want)
			}
		})
	}
}
