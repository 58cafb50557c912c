package xmlenc

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/freshmap/sitemap/urlset"
)

// copyRunByte is copyRun one byte at a time: what copyRun must return.
func copyRunByte(s string) int {
	i := 0
	for i < len(s) && uriClass[s[i]] == uriCopy {
		i++
	}
	return i
}

// TestCopyRun: for every length up to 40 and every place of the first
// byte that ends the run (or none), each byte class in that place, copyRun
// agrees with the byte-by-byte loop.
func TestCopyRun(t *testing.T) {
	stops := []byte{'.', '%', '&', '\'', '?', '#', ' ', '"', '<', '>', '[', '\\', '^', '`', '{', '|', '}', 0, '\n', 0x7f, 0x80, 0xc3, 0xff}
	for n := range 41 {
		for stop := 0; stop <= n; stop++ { // stop == n: no byte ends the run
			for _, c := range stops {
				b := []byte(strings.Repeat("aZ09-_~:/@!$()*+,;=", 3)[:n])
				if stop < n {
					b[stop] = c
				}
				s := string(b)
				if got, want := copyRun(s), copyRunByte(s); got != want || want != stop {
					t.Fatalf("copyRun(%q) = %d, want %d", s, got, want)
				}
			}
		}
	}
	for c := range 256 { // every byte, alone and after fifteen copied ones
		for _, s := range []string{string([]byte{byte(c)}), strings.Repeat("a", 15) + string([]byte{byte(c)})} {
			if got, want := copyRun(s), copyRunByte(s); got != want {
				t.Errorf("copyRun(%q) = %d, want %d", s, got, want)
			}
		}
	}
}

// TestUriPairs: uriPairs[c0|c1<<8] is uriCopy exactly when both bytes are.
func TestUriPairs(t *testing.T) {
	for i := range uriPairs {
		c0, c1 := byte(i), byte(i>>8)
		if got, want := uriPairs[i] == uriCopy, uriClass[c0] == uriCopy && uriClass[c1] == uriCopy; got != want {
			t.Fatalf("uriPairs[%#x] (%q, %q) copied %v, want %v", i, c0, c1, got, want)
		}
	}
}

// TestAppendPageURIFast: a location AppendPageURI writes as it is
// (plainPrefix is its length) is written by appendURIRules in the same
// bytes, and AppendPageURI, which goes on from plainPrefix otherwise,
// agrees with appendURIRules on every location, whatever the base; so does
// an entry's <loc> (appendURL, which does what AppendPageURI does).
func TestAppendPageURIFast(t *testing.T) {
	bases := []string{"", "https://example.com/", "https://example.com/shop/", "http://a.b/"}
	paths := []string{"", "a", "shop/a", "shop/a-b/c_d~e", "shop/a.html", "shop/a.b.c/d.e", "shop/a./b", "shop/a..", "shop/.a",
		"shop/a/.", "shop/a/..", "shop/a/../b", "shop/a.%2e", "shop/a.?b=.&c", "shop/a.b#c.d", "shop/a.ü", ".", "..", "./a", "a.",
		"shop/./a", "shop/%2e/a", "shop/a?b=c&d=e",
		"shop/a#b", "shop/it's", "shop/ümlat", "shop/a b", "shop/a\x00", "shop/\xff", "shop/" + strings.Repeat("a", 2020),
		"shop/" + strings.Repeat("a", 2030), "shop/" + strings.Repeat("a-b/", 30) + "c", "x", "/a", "//a"}
	var locs []string
	for _, p := range paths {
		for _, prefix := range []string{"https://example.com/", "HTTPS://Example.com/", "http://a.b/", "https://example.org/", "ftp://example.com/", ""} {
			locs = append(locs, prefix+p)
		}
	}
	plain := 0
	for _, s := range locs {
		for _, base := range bases {
			for _, xmlText := range []bool{true, false} {
				want, wantErr := appendURIRules([]byte("p"), s, base, "", 0, xmlText, true)
				got, err := AppendPageURI([]byte("p"), s, base, xmlText)
				if string(got) != string(want) || err != wantErr {
					t.Errorf("AppendPageURI(%q, base %q, text %v) = %q, %v; appendURIRules: %q, %v", s, base, xmlText, got, err, want, wantErr)
				}
			}
			want, wantErr := appendURIRules(nil, s, base, "", 0, true, true)
			if entry, err := appendLocEntry(s, base); err != wantErr || wantErr == nil && entry != "<url><loc>"+string(want)+"</loc></url>\n" {
				t.Errorf("appendURL(%q, base %q) = %q, %v; appendURIRules: %q, %v", s, base, entry, err, want, wantErr)
			}
			if plainPrefix(s, base) == len(s) {
				plain++
				if want, err := appendURIRules(nil, s, base, "", 0, true, true); err != nil || string(want) != s {
					t.Errorf("plainPrefix(%q, base %q) is its length, but appendURIRules writes %q, %v", s, base, want, err)
				}
			}
		}
	}
	if plain == 0 {
		t.Error("no location took the fast path")
	}
}

// appendLocEntry is appendURL of a URL with only a location, in a section
// under base: the entry, or the error of its location.
func appendLocEntry(loc, base string) (string, error) {
	var e Encoder
	e.Reset(io.Discard, URLSet, 0, base, 0, 0, "")
	b, err := e.appendURL(nil, &urlset.URL{Loc: loc})
	if bad := (*urlset.InvalidURLError)(nil); errors.As(err, &bad) {
		return string(b), bad.Err
	}
	return string(b), err
}

// FuzzAppendPageURI: AppendPageURI, with its fast path, writes what
// appendURIRules writes for a page's location, or fails with the same
// error; so does appendURIRules given the origin, as a page's location or
// not; and copyRun agrees with the byte-by-byte loop.
func FuzzAppendPageURI(f *testing.F) {
	for _, s := range []string{"https://example.com/a", "https://example.com/shop/a-b", "https://example.com/a.b", "https://example.com/a/./b",
		"https://example.com/a?b&c", "https://example.com/ü", "http://example.com/a", "https://example.com/aaaaaaaaaaaaaaaa%"} {
		f.Add(s, uint8(1))
	}
	bases := []string{"", "https://example.com/", "https://example.com/shop/"}
	f.Fuzz(func(t *testing.T, s string, which uint8) {
		if got, want := copyRun(s), copyRunByte(s); got != want {
			t.Fatalf("copyRun(%q) = %d, want %d", s, got, want)
		}
		base := bases[int(which)%len(bases)]
		want, wantErr := appendURIRules([]byte("p"), s, base, "", 0, true, true)
		got, err := AppendPageURI([]byte("p"), s, base, true)
		if string(got) != string(want) || err != wantErr {
			t.Fatalf("AppendPageURI(%q, base %q) = %q, %v; appendURIRules: %q, %v", s, base, got, err, want, wantErr)
		}
		for _, page := range []bool{false, true} {
			want, wantErr := appendURIRules([]byte("p"), s, base, "", 0, true, page)
			got, err := appendURIRules([]byte("p"), s, base, originOf(testBase), 0, true, page)
			if string(got) != string(want) || err != wantErr {
				t.Fatalf("%q, base %q, page %v: %q, %v from the origin; want %q, %v", s, base, page, got, err, want, wantErr)
			}
		}
		for _, page := range []bool{false, true} {
			want, wantErr := appendURIRules([]byte("p"), s, base, "", 0, true, page)
			got, err := appendURIRules([]byte("p"), s, base, originOf(testBase), 0, true, page)
			if string(got) != string(want) || err != wantErr {
				t.Fatalf("%q, base %q, page %v: %q, %v from the origin; want %q, %v", s, base, page, got, err, want, wantErr)
			}
		}
		if entry, err := appendLocEntry(s, base); err != wantErr || wantErr == nil && entry != "<url><loc>"+string(want[1:])+"</loc></url>\n" {
			t.Fatalf("appendURL(%q, base %q) = %q, %v; appendURIRules: %q, %v", s, base, entry, err, want, wantErr)
		}
	})
}
