package htmlview

import (
	"bytes"
	"encoding/xml"
	"strconv"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/freshmap/sitemap/internal/testkit"
)

// TestRowBound: a row too large for a part (none is, with the limits
// rows are made under) is replaced, so no part passes MaxPart.
func TestRowBound(t *testing.T) {
	p := NewBuilder(&Shell{Stem: "s", Cols: URLCols}, 1)
	if err := p.Add(make([]byte, MaxPart)); err != nil {
		t.Fatal(err)
	}
	parts, err := p.Done()
	if err != nil || len(parts) != 1 {
		t.Fatalf("%v, %d parts", err, len(parts))
	}
	body := testkit.Gunzip(t, parts[0].Gz)
	if len(body) > 4096 || !bytes.Contains(body, []byte(`<td colspan="6">(too large to show)</td>`)) {
		t.Errorf("%d bytes:\n%s", len(body), body)
	}
}

// TestParts: rows past PartRows start a new part; each part's caption
// numbers its rows, the parts link to each other with rel="prev" and
// rel="next" in the head and the foot, each part's Sum is the xxhash of
// its bytes, and a view with no rows has one part with an empty table.
func TestParts(t *testing.T) {
	p := NewBuilder(&Shell{Stem: "sitemap-a-1", Title: "T & t", Intro: []byte("intro"), Noun: "URLs", Cols: URLCols}, 1)
	for i := range PartRows + 2 {
		if err := p.Add([]byte("<tr><td>" + strconv.Itoa(i+1) + "</td></tr>\n")); err != nil {
			t.Fatal(err)
		}
	}
	parts, err := p.Done()
	if err != nil || len(parts) != 2 {
		t.Fatalf("%v, %d parts, want 2", err, len(parts))
	}
	one, two := testkit.Gunzip(t, parts[0].Gz), testkit.Gunzip(t, parts[1].Gz)
	for _, c := range []struct {
		body []byte
		want []string
	}{
		{one, []string{"<title>T &amp; t</title>", "<caption>URLs 1 to 5000</caption>", `<link rel="next" href="sitemap-a-1.part2.html">`,
			`<a rel="next" href="sitemap-a-1.part2.html">Next part</a>`, "<p>Part 1</p>", "<p>intro</p>\n\n</header>"}},
		{two, []string{"<title>T &amp; t, part 2</title>", "<caption>URLs 5001 to 5002</caption>", `<link rel="prev" href="sitemap-a-1.html">`,
			`<a rel="prev" href="sitemap-a-1.html">Previous part</a>`, "<tr><td>5002</td></tr>", "<p>Part 2</p>"}},
	} {
		for _, w := range c.want {
			if !bytes.Contains(c.body, []byte(w)) {
				t.Errorf("no %q in a part", w)
			}
		}
	}
	if bytes.Contains(one, []byte("<tr><td>5001</td></tr>")) || bytes.Contains(two, []byte(`rel="next"`)) || bytes.Contains(one, []byte(NotesMarker)) {
		t.Error("a row in the wrong part, a next link from the last, or the notes marker left in")
	}
	for i, b := range [][]byte{one, two} {
		if parts[i].Sum != xxhash.Sum64(b) {
			t.Errorf("part %d: Sum is not the hash of its bytes", i+1)
		}
	}
	empty, err := NewBuilder(&Shell{Stem: "e", Noun: "Files", Cols: IndexCols}, 1).Done()
	if err != nil || len(empty) != 1 || !bytes.Contains(testkit.Gunzip(t, empty[0].Gz), []byte("<caption>Files: none</caption>")) {
		t.Errorf("no rows: %v, %d parts", err, len(empty))
	}
}

// TestWithNotes: a part with notes is the part with the notes' HTML where
// the marker was, a valid gzip file; other notes name other bytes.
func TestWithNotes(t *testing.T) {
	p := NewBuilder(&Shell{Stem: "s", Title: "t", Cols: URLCols}, 5)
	p.Add([]byte("<tr><td>row</td></tr>\n"))
	parts, _ := p.Done()
	bare := testkit.Gunzip(t, parts[0].Gz)
	notes := AppendNotes(nil, []string{"Googlebot fetched this file 2 h ago: 304", "a <b> & c"})
	gz, sum := parts[0].WithNotes(notes)
	if bytes.Contains(bare, []byte(NotesMarker)) || !bytes.HasPrefix(bare, parts[0].head) {
		t.Fatalf("the part without notes holds the marker, or does not start with its head:\n%s", bare)
	}
	h := len(parts[0].head)
	want := append(append(append([]byte(nil), bare[:h]...), notes...), bare[h:]...)
	if got := testkit.Gunzip(t, gz); !bytes.Equal(got, want) {
		t.Errorf("with notes:\n%s\nwant\n%s", got, want)
	}
	if !bytes.Contains(notes, []byte("<li>a &lt;b&gt; &amp; c</li>")) {
		t.Errorf("notes not escaped: %s", notes)
	}
	if _, other := parts[0].WithNotes(AppendNotes(nil, []string{"x"})); other == sum || sum == parts[0].Sum {
		t.Error("the same hash for other notes, or for the part without notes")
	}
	long := AppendNotes(nil, []string{strings.Repeat("<", NotesMax/3), strings.Repeat("x", 10)})
	if len(long) > NotesMax+64 || bytes.Contains(long, []byte("xxxxxxxxxx")) {
		t.Errorf("notes past NotesMax: %d bytes", len(long))
	}
}

// TestReadURLByHand: the <url> elements the sitemap package writes with
// the protocol's elements alone are read by hand, as encoding/xml reads
// them; one with anything else goes to encoding/xml.
func TestReadURLByHand(t *testing.T) {
	for _, elem := range []string{
		"<url><loc>https://example.com/a</loc></url>",
		"<url><loc>https://example.com/c?a=1&amp;b=&apos;2&apos;</loc><lastmod>2024-05-01T12:00:00Z</lastmod></url>",
		"<url><loc>https://example.com/d</loc><lastmod>2024-05-01</lastmod><changefreq>daily</changefreq><priority>0.5</priority></url>",
	} {
		var got, want URL
		if !plainURL([]byte(elem), &got) {
			t.Errorf("%s: not read by hand", elem)
		}
		if err := xml.Unmarshal([]byte(elem), &want); err != nil {
			t.Fatal(err)
		}
		if got.Loc != want.Loc || got.LastMod != want.LastMod {
			t.Errorf("%s: %q %q by hand, %q %q by encoding/xml", elem, got.Loc, got.LastMod, want.Loc, want.LastMod)
		}
	}
	ext := `<url><loc>https://example.com/a</loc><image:image><image:loc>https://example.com/i.jpg</image:loc><image:title>T</image:title></image:image></url>`
	var u URL
	if plainURL([]byte(ext), &u) {
		t.Error("an element with an image read by hand")
	}
	if err := ReadURL([]byte(ext), &u); err != nil || len(u.Images) != 1 || u.Images[0].Title != "T" {
		t.Errorf("ReadURL: %v, %+v", err, u)
	}
	row := string(AppendURLRow(nil, 7, &u))
	if !strings.Contains(row, `<a href="https://example.com/i.jpg">T</a>`) || !strings.HasPrefix(row, "<tr><td>7</td>") {
		t.Errorf("row: %s", row)
	}
}
