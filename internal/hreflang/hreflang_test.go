package hreflang

import (
	"errors"
	"strings"
	"testing"

	"github.com/freshmap/sitemap/urlset"
)

// TestNew: each rule of a cluster's languages refuses what breaks it,
// naming the section.
func TestNew(t *testing.T) {
	for _, tc := range []struct {
		tags, prefixes []string
		xDefault, want string // want: a part of the error, "" for none
	}{
		{[]string{"en", "de"}, []string{"", "/de/"}, "en", ""},
		{nil, nil, "", "has no Languages"},
		{[]string{"x-default"}, []string{""}, "", "x-default is not a language"},
		{[]string{"en_GB"}, []string{""}, "", "not a well-formed BCP 47"},
		{[]string{"en", "de"}, []string{"", "d e"}, "", "not path segments"},
		{[]string{"en", "de"}, []string{"", "de/../x"}, "", "not path segments"},
		{[]string{"en", "EN"}, []string{"", "en"}, "", "lists \"EN\" twice"},
		{[]string{"en", "de"}, []string{"x", "/x/"}, "", "the same Prefix"},
		{[]string{"en"}, []string{""}, "fr", "XDefault \"fr\" is not the Tag"},
	} {
		_, err := New("s", tc.tags, tc.prefixes, tc.xDefault)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("New(%q, %q, %q): %v", tc.tags, tc.prefixes, tc.xDefault, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), `section "s": `)):
			t.Errorf("New(%q, %q, %q): %v, want an error of section \"s\" with %q", tc.tags, tc.prefixes, tc.xDefault, err, tc.want)
		}
	}
}

// TestMembers: one link per language in the order declared, the
// prefixed ones after the base, then the x-default; a loc outside the
// base is refused with ErrBase.
func TestMembers(t *testing.T) {
	c, err := New("s", []string{"en", "de"}, []string{"", "de"}, "en")
	if err != nil {
		t.Fatal(err)
	}
	alts, err := c.Members("https://e.com/", "https://e.com/p", nil)
	want := []urlset.Alternate{{Hreflang: "en", Href: "https://e.com/p"}, {Hreflang: "de", Href: "https://e.com/de/p"}, {Hreflang: "x-default", Href: "https://e.com/p"}}
	if err != nil || len(alts) != len(want) || c.Size() != 2 {
		t.Fatalf("Members: %v, %v (Size %d), want %v", alts, err, c.Size(), want)
	}
	for i := range want {
		if alts[i] != want[i] {
			t.Errorf("link %d: %+v, want %+v", i, alts[i], want[i])
		}
	}
	if alts, err = c.Members("https://e.com/", "https://f.com/p", alts); !errors.Is(err, ErrBase) || len(alts) != 0 {
		t.Errorf("a loc outside the base: %v, %v, want none and ErrBase", alts, err)
	}
}
