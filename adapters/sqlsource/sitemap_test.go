package sqlsource_test

import (
	"bytes"
	"compress/gzip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/internal/xsdcheck"
)

// get fetches url and returns its body, gunzipped if it is a .gz file.
func get(t *testing.T, url string) []byte {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s: %s", url, resp.Status, body)
	}
	if strings.HasSuffix(url, ".gz") {
		z, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatalf("GET %s: %v", url, err)
		}
		if body, err = io.ReadAll(z); err != nil {
			t.Fatalf("GET %s: %v", url, err)
		}
	}
	return body
}

// locs returns the <loc> of every <url> or <sitemap> of doc.
func locs(t *testing.T, doc []byte) []string {
	t.Helper()
	var v struct {
		Entries []struct {
			Loc string `xml:"loc"`
		} `xml:",any"`
	}
	if err := xml.Unmarshal(doc, &v); err != nil {
		t.Fatalf("%v in %s", err, doc)
	}
	var s []string
	for _, e := range v.Entries {
		s = append(s, e.Loc)
	}
	return s
}

// TestServedBySitemap serves the same catalogue from every database through
// sitemap.New, validates every file against the schemas, and checks that all
// databases give the same bytes.
func TestServedBySitemap(t *testing.T) {
	if !xsdcheck.Available() {
		t.Log("xmllint or the schemas are missing: documents are not validated")
	}
	ps := products(ids(1, 130)...)
	ps = append(ps, product{ID: 131, Slug: "Bäder & Öfen", Published: true, Updated: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)})
	for i := range ps {
		id := ps[i].ID
		ps[i].Noindex = id%13 == 0
		if id%7 == 0 {
			ps[i].Updated = time.Time{}
		}
		if id%3 == 0 {
			ps[i].Images = []string{fmt.Sprintf("https://cdn.example.com/%d.jpg", id), fmt.Sprintf("https://cdn.example.com/%d-b.jpg", id)}
		}
		if id%4 == 0 {
			ps[i].Alternates = [][2]string{{"en", ps[i].loc()}, {"de", base + "de/" + ps[i].Slug}, {"x-default", ps[i].loc()}}
		}
	}
	for i := range ps {
		switch id := ps[i].ID; {
		case id >= 50 && id < 60: // page 2 (keys 40-79) loses a run of rows...
			ps[i].Published = false
		case id >= 80 && id < 120: // ...and page 3 (keys 80-119) all of them
			ps[i].Published = false
		}
	}
	want, _ := model(ps, 40, 0, true)
	var wantURLs int
	for _, urls := range want {
		wantURLs += len(urls)
	}

	files := map[string]map[string][]byte{} // database → path → document
	for _, name := range dbNames {
		t.Run(name, func(t *testing.T) {
			d := openDB(t, name)
			c := d.createCatalogue(t, ps)
			src := newSource(t, d.db, c.withExtensions(c.config(40)))
			sm, err := sitemap.New(sitemap.Config{
				BaseURL: "https://shop.example.com",
				OnReject: func(section string, page int64, loc string, err error) {
					t.Errorf("rejected %s page %d %s: %v", section, page, loc, err)
				},
			}, sitemap.Section{Name: "products", Source: src})
			if err != nil {
				t.Fatal(err)
			}
			defer sm.Close()
			srv := httptest.NewServer(sm)
			defer srv.Close()

			got := map[string][]byte{}
			index := get(t, srv.URL+"/sitemap_index.xml")
			xsdcheck.Index(t, index)
			got["index"] = index
			pages, n := locs(t, index), 0
			wantPages := []string{"1", "2", "4"}
			for i := range wantPages {
				wantPages[i] = "https://shop.example.com/sitemap-products-" + wantPages[i] + ".xml.gz"
			}
			if !slices.Equal(pages, wantPages) {
				t.Errorf("index lists %q, want %q", pages, wantPages)
			}
			for _, loc := range pages {
				u, err := url.Parse(loc)
				if err != nil {
					t.Fatal(err)
				}
				doc := get(t, srv.URL+u.Path)
				xsdcheck.URLSet(t, doc)
				n += len(locs(t, doc))
				got[u.Path] = doc
			}
			if n != wantURLs {
				t.Errorf("%d URLs served, want %d", n, wantURLs)
			}
			for _, s := range []string{`<image:loc>https://cdn.example.com/3.jpg</image:loc>`, `hreflang="x-default"`, `B%C3%A4der%20%26%20%C3%96fen`} {
				if !bytes.Contains(bytes.Join(mapValues(got), nil), []byte(s)) {
					t.Errorf("no %s in the files", s)
				}
			}
			files[name] = got
		})
	}
	var first string
	for _, name := range dbNames {
		if files[name] == nil {
			continue
		}
		if first == "" {
			first = name
			continue
		}
		for path, doc := range files[first] {
			if !bytes.Equal(files[name][path], doc) {
				t.Errorf("%s: %s differs from %s's:\n%s\n%s", path, name, first, files[name][path], doc)
			}
		}
		if len(files[name]) != len(files[first]) {
			t.Errorf("%s serves %d files, %s %d", name, len(files[name]), first, len(files[first]))
		}
	}
}

func mapValues(m map[string][]byte) [][]byte {
	var s [][]byte
	for _, v := range m {
		s = append(s, v)
	}
	return s
}

// TestSectionPageSize serves a Source through a Section that leaves
// PageSize zero: the section takes the Source's page size, and every URL
// of a page of exactly that many rows is written.
func TestSectionPageSize(t *testing.T) {
	ps := products(ids(0, 20)...) // pages 1 (keys 0-9) and 2 (10-19) full, page 3 one row
	want, _ := model(ps, 10, 0, false)
	forEachDB(t, func(t *testing.T, d *testDB) {
		c := d.createCatalogue(t, ps)
		sm, err := sitemap.New(sitemap.Config{
			BaseURL: "https://shop.example.com",
			OnReject: func(section string, page int64, loc string, err error) {
				t.Errorf("rejected %s page %d %s: %v", section, page, loc, err)
			},
		}, sitemap.Section{Name: "p", Source: newSource(t, d.db, c.config(10))})
		if err != nil {
			t.Fatal(err)
		}
		defer sm.Close()
		srv := httptest.NewServer(sm)
		defer srv.Close()

		files := locs(t, get(t, srv.URL+"/sitemap_index.xml"))
		if len(files) != len(want) {
			t.Fatalf("index lists %q, want %d files", files, len(want))
		}
		for i, file := range files {
			n := int64(i + 1)
			if wantFile := fmt.Sprintf("https://shop.example.com/sitemap-p-%d.xml.gz", n); file != wantFile {
				t.Errorf("file %d is %s, want %s", n, file, wantFile)
			}
			u, err := url.Parse(file)
			if err != nil {
				t.Fatal(err)
			}
			var wantLocs []string
			for _, u := range want[n] {
				wantLocs = append(wantLocs, u.Loc)
			}
			if got := locs(t, get(t, srv.URL+u.Path)); !slices.Equal(got, wantLocs) {
				t.Errorf("%s holds %d URLs %q, want %d %q", u.Path, len(got), got, len(wantLocs), wantLocs)
			}
		}
	})
}

// TestSectionPageSizeMismatch checks that sitemap.New refuses a Section
// whose PageSize differs from its Source's, as a smaller one would drop
// the URLs past it and a larger one would not fill the files; and a news
// section, at most 1,000 URLs a file, over pages of 50,000.
func TestSectionPageSizeMismatch(t *testing.T) {
	d := openDB(t, "sqlite")
	c := d.createCatalogue(t, products(ids(0, 20)...))
	src := newSource(t, d.db, c.config(10))
	cfg := sitemap.Config{BaseURL: "https://shop.example.com"}
	for name, sec := range map[string]sitemap.Section{
		"smaller":                 {Name: "p", Source: src, PageSize: 5},
		"larger":                  {Name: "p", Source: src, PageSize: 11},
		"the protocol's limit":    {Name: "p", Source: src, PageSize: 50_000},
		"news over 50,000 a page": {Name: "p", Source: newSource(t, d.db, c.config(0)), Extensions: sitemap.ExtNews},
	} {
		sm, err := sitemap.New(cfg, sec)
		if !errors.Is(err, sitemap.ErrConfig) {
			t.Errorf("%s: New = %v; want an error wrapping ErrConfig", name, err)
		}
		if sm != nil {
			sm.Close()
		}
	}
	// The Source's own page size may be repeated.
	sm, err := sitemap.New(cfg, sitemap.Section{Name: "p", Source: src, PageSize: 10})
	if err != nil {
		t.Fatalf("the same PageSize: %v", err)
	}
	sm.Close()
}
