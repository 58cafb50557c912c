package sqlsource

import (
	"context"
	"database/sql"
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

// TestLoadKeyedRoom: a loader's slices start with room for as many rows as
// its last page read, so a page like the last one is read without growing
// them, and one twice as large still reads whole; a smaller key range (a
// segment) gets room in proportion.
func TestLoadKeyedRoom(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // one in-memory database
	if _, err := db.Exec(`CREATE TABLE img (k INTEGER, n INTEGER, path TEXT, PRIMARY KEY (k, n)) WITHOUT ROWID;
		WITH RECURSIVE i(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM i WHERE x < 3000)
		INSERT INTO img SELECT (x + 1) / 2, x % 2, '/i/' || x FROM i WHERE x <= 1000 OR x > 1500`); err != nil {
		t.Fatal(err)
	}
	var last rowHint
	load := func(lo, hi int64) *keyed[string] {
		p := &Page{Lo: lo, Hi: hi, DB: db, Dialect: SQLite}
		k, err := loadKeyed(context.Background(), p, "SELECT k, path FROM img WHERE k BETWEEN ? AND ? ORDER BY k, n", 2, 2, &last,
			func(rows *sql.Rows, key *int64, _ int) (string, error) {
				var s string
				err := rows.Scan(key, &s)
				return s, err
			})
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	first := load(1, 500) // 1,000 rows
	if len(first.keys) != 1000 || last.rows.Load() != 1000 {
		t.Fatalf("%d rows, last %d", len(first.keys), last.rows.Load())
	}
	second := load(1001, 1500) // 1,000 rows again: read into the room made
	if len(second.vals) != 1000 || cap(second.vals) != 1000+1000/16+16 || cap(second.keys) != cap(second.vals) {
		t.Errorf("%d rows in room for %d (%d keys)", len(second.vals), cap(second.vals), cap(second.keys))
	}
	third := load(501, 1500) // 1,500 rows: more than the room
	if len(third.keys) != 1500 || len(third.vals) != 1500 || third.vals[0] != "/i/1502" || third.vals[1499] != "/i/2999" || last.rows.Load() != 1500 {
		t.Errorf("%d keys, %d values (%q … %q), last %d", len(third.keys), len(third.vals), third.vals[0], third.vals[len(third.vals)-1], last.rows.Load())
	}
	// A segment of a tenth of that range (100 keys, half of them with
	// rows) starts with room for a tenth of its rows, not all of them.
	seg := load(701, 800)
	if want := 150 + 150/16 + 16; len(seg.vals) != 100 || cap(seg.vals) != want || last.keys.Load() != 100 {
		t.Errorf("a segment read %d rows in room for %d, want room for %d", len(seg.vals), cap(seg.vals), want)
	}
}
