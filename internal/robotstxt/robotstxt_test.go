package robotstxt

import (
	"strings"
	"testing"
)

func TestDerivedETag(t *testing.T) {
	rb := New([]string{testRobotsLine}, nil)
	other := New([]string{"Sitemap: https://example.org/sitemap_index.xml"}, nil)
	for in, wantOK := range map[string]bool{
		`"v1"`: true, `W/"v1"`: true, `""`: true,
		``: false, `v1`: false, `"v1`: false, `"a"b"`: false,
	} {
		got := rb.DerivedETag(in)
		if (got != "") != wantOK {
			t.Errorf("DerivedETag(%q) = %q, want ok %v", in, got, wantOK)
		}
		if got != "" && (!strings.HasPrefix(got, `W/"`+strings.Trim(strings.TrimPrefix(in, "W/"), `"`)+"-sitemap") || got == other.DerivedETag(in)) {
			t.Errorf("DerivedETag(%q) = %q: not weak, or not different for other lines", in, got)
		}
	}
}
