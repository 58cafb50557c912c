package sqlsource

import (
	"reflect"
	"testing"
	"unsafe"
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

// TestTextValue: a text column read as the driver gives it, string or
// bytes, resolved against a base URL as baseURL.resolve does.
func TestTextValue(t *testing.T) {
	base, err := parseBaseURL("https://example.com/shop/")
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"", "/p/1", "//cdn.example.com/x.jpg", "https://other.example/a", "p/1", "/"} {
		for _, b := range []baseURL{base, {}} {
			want := b.resolve(ref)
			for _, src := range []any{ref, []byte(ref)} {
				var v textValue
				if err := v.Scan(src); err != nil {
					t.Fatal(err)
				}
				if got := v.resolved(&b); got != want {
					t.Errorf("%T %q against %q: %q, want %q", src, ref, b.prefix, got, want)
				}
			}
		}
	}
	var v textValue
	if err := v.Scan(nil); err != nil || v.resolved(&base) != "" {
		t.Errorf("NULL: %q, %v", v.resolved(&base), err)
	}
	if err := v.Scan(int64(1)); err == nil {
		t.Error("an integer scanned as text")
	}
}

// TestInterned: the same value gives the same string, from a string or
// bytes, and the values kept are bounded.
func TestInterned(t *testing.T) {
	var in interned
	scan := func(src any) *textValue {
		var v textValue
		if err := v.Scan(src); err != nil {
			t.Fatal(err)
		}
		return &v
	}
	de := in.of(scan([]byte("de")))
	if got := in.of(scan("de")); got != "de" || unsafeData(got) != unsafeData(de) {
		t.Errorf("de again: %q, not the same string", got)
	}
	if got := in.of(scan([]byte("x-default"))); got != "x-default" {
		t.Errorf("x-default: %q", got)
	}
	for i := range 2 * maxInterned {
		in.of(scan(string(rune('a'+i%26)) + string(rune('a'+i/26))))
	}
	if len(in.vals) != maxInterned {
		t.Errorf("%d values kept, want %d", len(in.vals), maxInterned)
	}
	for _, v := range []*textValue{scan([]byte("de")), scan("de")} {
		if n := testing.AllocsPerRun(100, func() { in.of(v) }); n != 0 {
			t.Errorf("interning a known value allocates %v times", n)
		}
	}
}

// unsafeData is where s's bytes are, to tell two equal strings apart.
func unsafeData(s string) *byte { return unsafe.StringData(s) }
