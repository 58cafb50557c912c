package sqlsource

import (
	"strings"
	"testing"
	"unsafe"
)

// TestKeyValue: an integer column reads as Scan into an *int64 reads it,
// from whatever the driver gives, and NULL or a value that is no int64
// fails.
func TestKeyValue(t *testing.T) {
	for _, tc := range []struct {
		src  any
		want int64
		ok   bool
	}{
		{int64(-42), -42, true}, {int64(1 << 40), 1 << 40, true}, {[]byte("17"), 17, true}, {"18", 18, true},
		{int32(19), 19, true}, {uint64(20), 20, true}, {2.0, 2, true},
		{nil, 0, false}, {"x", 0, false}, {[]byte("1.5"), 0, false}, {uint64(1 << 63), 0, false}, {2.5, 0, false},
	} {
		var got keyValue
		err := got.Scan(tc.src)
		if (err == nil) != tc.ok || int64(got) != tc.want {
			t.Errorf("%T %v: %d, %v; want %d, ok %v", tc.src, tc.src, got, err, tc.want, tc.ok)
		}
	}
	if n := testing.AllocsPerRun(100, func() {
		var k keyValue
		k.Scan(int64(1 << 40))
	}); n != 0 {
		t.Errorf("scanning an int64 allocates %v times", n)
	}
}

// TestTextValue: a text column read as the driver gives it, string or
// bytes, resolved against a base URL as baseURL.resolve does (and
// writeResolved and resolvedLen, for a path).
func TestTextValue(t *testing.T) {
	base, err := parseBaseURL("https://example.com/shop/")
	if err != nil {
		t.Fatal(err)
	}
	upper, err := parseBaseURL("HTTPS://Example.com")
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"", "/p/1", "//cdn.example.com/x.jpg", "https://other.example/a", "p/1", "/"} {
		for _, b := range []baseURL{base, upper, {}} {
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
			var w strings.Builder
			w.WriteString("x")
			b.writeResolved(&w, ref)
			if got, n := w.String(), b.resolvedLen(ref); b.isPath(ref) && (got != "x"+want || n != len(want)) || !b.isPath(ref) && (got != "x" || n != 0) {
				t.Errorf("writeResolved %q against %q: %q, length %d; want x%q", ref, b.prefix, got, n, want)
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
