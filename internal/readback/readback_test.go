package readback

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/klauspost/compress/gzip"

	"github.com/freshmap/sitemap/internal/xmlenc"
	"github.com/freshmap/sitemap/urlset"
)

const base = "https://example.com/"

// written returns the gzip bytes and the XML of a <urlset> of urls, as
// the encoder writes it.
func written(t *testing.T, urls ...urlset.URL) (gz, doc []byte) {
	t.Helper()
	var x bytes.Buffer
	e := xmlenc.Get()
	defer xmlenc.Put(e)
	e.Reset(&x, xmlenc.URLSet, 0, base, 0, 0, "")
	for i := range urls {
		if err := e.Add(&urls[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return gzipped(t, x.Bytes()), x.Bytes()
}

func gzipped(t *testing.T, doc []byte) []byte {
	t.Helper()
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	if _, err := zw.Write(doc); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return z.Bytes()
}

// pages: a plain location, one with both entities, one whose image
// caption holds line breaks and text that looks like markup (escaped), and
// one longer than the reader's 64 KiB buffer.
func pages() []urlset.URL {
	return []urlset.URL{
		{Loc: base + "a"},
		{Loc: base + "b?x=1&y='2'"},
		{Loc: base + "c", Images: []urlset.Image{{Loc: base + "c.jpg", Caption: "line\n<url><loc>fake</loc>\n</url>\nend"}}},
		{Loc: base + "d", Images: []urlset.Image{{Loc: base + "d.jpg", Caption: strings.Repeat("long ", 20_000)}}},
	}
}

func TestReadBack(t *testing.T) {
	gz, doc := written(t, pages()...)
	var locs []string
	if err := EachLoc(gz, func(loc []byte) { locs = append(locs, string(loc)) }); err != nil {
		t.Fatal(err)
	}
	want := []string{base + "a", base + "b?x=1&amp;y=&apos;2&apos;", base + "c", base + "d"}
	if strings.Join(locs, " ") != strings.Join(want, " ") {
		t.Errorf("EachLoc: %q, want %q", locs, want)
	}
	var text bytes.Buffer
	if err := Text(&text, gz); err != nil {
		t.Fatal(err)
	}
	if want := base + "a\n" + base + "b?x=1&y='2'\n" + base + "c\n" + base + "d\n"; text.String() != want {
		t.Errorf("Text:\n%s\nwant:\n%s", text.String(), want)
	}
	// The elements whole, and their hashes, as they are in the XML.
	var elems []string
	if err := EachURL(gz, func(elem []byte) error { elems = append(elems, string(elem)); return nil }); err != nil {
		t.Fatal(err)
	}
	var sums [][2]uint64
	if err := Sums(gz, func(loc, entry uint64) { sums = append(sums, [2]uint64{loc, entry}) }); err != nil {
		t.Fatal(err)
	}
	if len(elems) != 4 || len(sums) != 4 {
		t.Fatalf("%d elements, %d sums; want 4", len(elems), len(sums))
	}
	for i, el := range elems {
		if !bytes.Contains(doc, []byte("\n"+el+"\n")) || !strings.HasPrefix(el, "<url><loc>"+want[i]+"</loc>") || !strings.HasSuffix(el, "</url>") {
			t.Errorf("element %d is not the XML's: %.80q", i, el)
		}
		if s := [2]uint64{xxhash.Sum64String(want[i]), xxhash.Sum64String(el + "\n")}; sums[i] != s {
			t.Errorf("sums %d: %x, want %x", i, sums[i], s)
		}
	}
	stop := errors.New("stop")
	if err := EachURL(gz, func([]byte) error { return stop }); err != stop {
		t.Errorf("EachURL: %v, want f's error", err)
	}
}

func TestAppendUnescapedLoc(t *testing.T) {
	for in, want := range map[string]string{
		"https://example.com/a":                        "https://example.com/a",
		"https://example.com/?a=1&amp;b=&apos;c&apos;": "https://example.com/?a=1&b='c'",
		"https://example.com/&x":                       "https://example.com/&x",
	} {
		if got := AppendUnescapedLoc([]byte("p"), []byte(in)); string(got) != "p"+want {
			t.Errorf("AppendUnescapedLoc(%q) = %q, want %q", in, got, "p"+want)
		}
	}
}

// TestCutShort: a document cut inside a <url> is an error, not a shorter
// list; bytes that are not gzip are one too.
func TestCutShort(t *testing.T) {
	_, doc := written(t, pages()...)
	cut := gzipped(t, doc[:bytes.Index(doc, []byte("<url><loc>"+base+"c"))+len("<url><loc>"+base)])
	if err := EachLoc(cut, func([]byte) {}); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("EachLoc: %v", err)
	}
	if err := EachURL(cut, func([]byte) error { return nil }); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("EachURL: %v", err)
	}
	if err := Sums(cut, func(uint64, uint64) {}); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("Sums: %v", err)
	}
	if err := Text(io.Discard, doc); err == nil {
		t.Error("Text of bytes that are not gzip: no error")
	}
}
