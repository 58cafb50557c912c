package atomfeed

import (
	"encoding/xml"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/xmlenc"
	"github.com/freshmap/sitemap/urlset"
)

const base = "https://example.com/shop/"

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// A URL without LastMod, with a year outside the protocol's, or outside
// the base URL is refused with the field it breaks; a good one becomes
// its entry, in UTC to the second, titled by its news title.
func TestNewEntry(t *testing.T) {
	for _, c := range []struct {
		u     urlset.URL
		field string
	}{
		{urlset.URL{Loc: base + "a"}, "lastmod"},
		{urlset.URL{Loc: base + "a", LastMod: time.Date(12000, 1, 1, 0, 0, 0, 0, time.UTC)}, "lastmod"},
		{urlset.URL{Loc: "https://other.example/a", LastMod: t0}, "loc"},
	} {
		_, err := NewEntry(&c.u, base)
		var bad *urlset.InvalidURLError
		if !errors.As(err, &bad) || bad.Field != c.field {
			t.Errorf("%+v: %v, want an InvalidURLError of %s", c.u, err, c.field)
		}
	}
	u := urlset.URL{Loc: base + "a&b", LastMod: t0.In(time.FixedZone("x", 3600)).Add(time.Millisecond), News: &urlset.News{Title: "T"}}
	e, err := NewEntry(&u, base)
	if err != nil || !e.Updated.Equal(t0) || e.Updated.Location() != time.UTC || string(e.Loc) != base+"a&amp;b" || e.Title != "T" {
		t.Errorf("entry %+v, %v", e, err)
	}
}

// Order puts the newest first and keeps the newest entry of a URL.
func TestOrder(t *testing.T) {
	got := Order([]Entry{
		{Updated: t0, Loc: []byte("a")},
		{Updated: t0.Add(time.Hour), Loc: []byte("b")},
		{Updated: t0.Add(2 * time.Hour), Loc: []byte("a")},
	})
	if len(got) != 2 || string(got[0].Loc) != "a" || !got[0].Updated.Equal(t0.Add(2*time.Hour)) || string(got[1].Loc) != "b" {
		t.Errorf("ordered %+v", got)
	}
}

// A feed, empty or not, is well-formed Atom with the values given, a
// title escaped.
func TestWellFormed(t *testing.T) {
	author, err := Author("  Shop <&> ", "example.com")
	if err != nil || author != "Shop &lt;&amp;&gt;" {
		t.Fatalf("author %q, %v", author, err)
	}
	if a, _ := Author("", "example.com"); a != "example.com" {
		t.Errorf("author of none %q, want the host", a)
	}
	if _, err := Author("a\nb", "example.com"); err == nil {
		t.Error("a line break is no error")
	}
	for _, entries := range [][]Entry{nil, {{Updated: t0, Loc: []byte(base + "a"), Title: "<1 & 2>"}, {Updated: t0, Loc: []byte(base + "b")}}} {
		var b strings.Builder
		if err := Write(&b, base+"sitemap.atom", "Recently changed", t0, author, AppendEntries(nil, entries)); err != nil {
			t.Fatal(err)
		}
		doc := []byte(b.String())
		var feed struct {
			XMLName xml.Name `xml:"http://www.w3.org/2005/Atom feed"`
			ID      string   `xml:"id"`
			Updated string   `xml:"updated"`
			Author  string   `xml:"author>name"`
			Entries []struct {
				ID      string `xml:"id"`
				Title   string `xml:"title"`
				Updated string `xml:"updated"`
				Link    struct {
					Href string `xml:"href,attr"`
				} `xml:"link"`
			} `xml:"entry"`
		}
		if err := xml.Unmarshal(doc, &feed); err != nil {
			t.Fatalf("%v:\n%s", err, doc)
		}
		if !strings.HasPrefix(string(doc), xmlenc.XMLHeader) || feed.ID != base+"sitemap.atom" || feed.Updated != "2026-03-01T12:00:00Z" ||
			feed.Author != "Shop <&>" || len(feed.Entries) != len(entries) {
			t.Errorf("feed %+v", feed)
		}
		for i, e := range feed.Entries {
			title := entries[i].Title
			if title == "" {
				title = string(entries[i].Loc)
			}
			if e.ID != string(entries[i].Loc) || e.Link.Href != e.ID || e.Title != title || e.Updated != "2026-03-01T12:00:00Z" {
				t.Errorf("entry %d: %+v", i, e)
			}
		}
	}
}
