package export

import (
	"bytes"
	"testing"
	"time"

	"github.com/freshmap/sitemap/parse"
)

// TestIndexDoc: locations are escaped and read back as given; a zero
// lastmod is left out.
func TestIndexDoc(t *testing.T) {
	in := []parse.Sitemap{
		{Loc: "https://cdn.example.com/a?x=1&y=<2>", LastMod: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)},
		{Loc: "https://cdn.example.com/b"},
	}
	doc := indexDoc(in, func(e parse.Sitemap) string { return e.Loc })
	if !bytes.Contains(doc, []byte("<loc>https://cdn.example.com/a?x=1&amp;y=&lt;2&gt;</loc><lastmod>2025-06-01T12:00:00Z</lastmod>")) ||
		bytes.Count(doc, []byte("<lastmod>")) != 1 {
		t.Errorf("doc:\n%s", doc)
	}
	var out []parse.Sitemap
	for e, err := range parse.Index(bytes.NewReader(doc), parse.Limits{}) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	if len(out) != 2 || out[0] != in[0] || out[1] != in[1] {
		t.Errorf("read back %+v", out)
	}
}
