package parse

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestPlainText: a plain-text sitemap, one URL a line, is read as
// entries: blank lines passed over, CRLF and a byte-order mark read past,
// plain or gzip, each entry's line in Pos.
func TestPlainText(t *testing.T) {
	doc := "\xef\xbb\xbfhttps://example.com/a\r\n\n  https://example.com/b  \nnot a url\nhttps://example.com/c"
	for name, in := range map[string]string{"plain": doc, "gzip": gz(doc)} {
		t.Run(name, func(t *testing.T) {
			d, err := Open(strings.NewReader(in), Limits{}, nil)
			if err != nil || !d.Text() {
				t.Fatalf("Open: %v, text %v", err, d != nil && d.Text())
			}
			var locs []string
			var lines []int
			for u, err := range d.URLs() {
				if err != nil {
					t.Fatal(err)
				}
				line, _ := d.Pos()
				locs, lines = append(locs, u.Loc), append(lines, line)
			}
			if got := strings.Join(locs, "|"); got != "https://example.com/a|https://example.com/b|not a url|https://example.com/c" {
				t.Errorf("locs %s", got)
			}
			if got := lines; len(got) != 4 || got[0] != 1 || got[1] != 3 || got[2] != 4 || got[3] != 5 {
				t.Errorf("lines %v, want [1 3 4 5]", got)
			}
		})
	}
	t.Run("as index", func(t *testing.T) {
		for _, err := range Index(strings.NewReader(doc), Limits{}) {
			if !errors.Is(err, ErrRoot) {
				t.Errorf("%v, want ErrRoot", err)
			}
		}
	})
	t.Run("limits", func(t *testing.T) {
		for _, tc := range []struct {
			doc string
			lim Limits
			is  error
		}{
			{"https://a.example/\nhttps://b.example/\nhttps://c.example/\n", Limits{MaxEntries: 2}, ErrTooMany},
			{"https://a.example/" + strings.Repeat("x", 100) + "\n", Limits{MaxText: 64}, ErrTextTooBig},
			{"https://a.example/\nhttps://b.example/\xe9\n", Limits{}, ErrEncoding},
			{strings.Repeat("https://a.example/\n", 10), Limits{MaxBytes: 50}, ErrTooLarge},
		} {
			var last error
			n := 0
			for _, err := range URLs(strings.NewReader(tc.doc), tc.lim) {
				n++
				last = err
			}
			var e *Error
			if !errors.As(last, &e) || !errors.Is(e, tc.is) || e.Line < 1 || n > 3 {
				t.Errorf("%q: last error %v after %d; want %v", tc.doc[:20], last, n, tc.is)
			}
		}
	})
	t.Run("long line", func(t *testing.T) { // the text limit bounds a line, not the whole file
		var b bytes.Buffer
		for range 2000 {
			b.WriteString("https://example.com/" + strings.Repeat("p", 40) + "\n")
		}
		n := 0
		for _, err := range URLs(&b, Limits{}) {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		if n != 2000 {
			t.Errorf("%d entries, want 2000", n)
		}
	})
}

// TestNotText: what does not start with a URL scheme stays XML, with its
// errors.
func TestNotText(t *testing.T) {
	for _, doc := range []string{"hello<urlset/>", "/relative/path\n", "", "   "} {
		_, err := Open(strings.NewReader(doc), Limits{}, nil)
		if !errors.Is(err, ErrRoot) {
			t.Errorf("%q: %v, want ErrRoot", doc, err)
		}
	}
}
