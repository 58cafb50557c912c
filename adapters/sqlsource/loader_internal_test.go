package sqlsource

import (
	"reflect"
	"testing"
)

// TestKeyedGet: the values of a key, asked in increasing key order as a
// Merge does, or in any order.
func TestKeyedGet(t *testing.T) {
	k := &keyed[string]{keys: []int64{2, 2, 5, 7, 7, 7, 9}, vals: []string{"a", "b", "c", "d", "e", "f", "g"}}
	want := map[int64][]string{2: {"a", "b"}, 5: {"c"}, 7: {"d", "e", "f"}, 9: {"g"}}
	for _, order := range [][]int64{
		{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, // a Merge's order, keys without values among them
		{2, 5, 7, 9},
		{9, 7, 5, 2, 1}, // backwards
		{7, 7, 2, 9, 5}, // repeated and shuffled
		{10, 2},
	} {
		k.next = 0
		for _, key := range order {
			got := k.get(key)
			if !reflect.DeepEqual(got, want[key]) || len(got) != cap(got) {
				t.Errorf("order %v: get(%d) = %q (cap %d), want %q", order, key, got, cap(got), want[key])
			}
		}
	}
}
