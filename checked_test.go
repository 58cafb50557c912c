package sitemap_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/check"
	"github.com/freshmap/sitemap/internal/testkit"
	"github.com/freshmap/sitemap/parse"
)

// TestServedTreeChecks serves a tree with every extension through the
// public API and runs the project's own checker (the protocol's rules in
// Go, no xmllint) over the index and every file, as .xml.gz, .xml and
// .txt: no error, no warning.
func TestServedTreeChecks(t *testing.T) {
	now := time.Date(2025, 6, 2, 12, 0, 0, 0, time.UTC)
	rating, views := 4.5, int64(1234)
	var urls []sitemap.URL
	for i := range 120 {
		loc := "https://example.com/p/" + string(rune('a'+i%26)) + "?n=" + string(rune('0'+i%10)) + "&i=" + strconv.Itoa(i)
		u := sitemap.URL{Loc: loc, LastMod: now.Add(-time.Duration(i) * time.Hour), ChangeFreq: sitemap.Weekly, Priority: new(0.5),
			Images:     []sitemap.Image{{Loc: "https://cdn.example.net/" + strconv.Itoa(i) + ".jpg", Caption: "a <b> & 'c'"}},
			Alternates: []sitemap.Alternate{{Hreflang: "en", Href: loc}, {Hreflang: "x-default", Href: loc}}}
		if i%10 == 0 {
			u.Videos = []sitemap.Video{{ThumbnailLoc: "https://cdn.example.net/t.jpg", Title: "T", Description: "D",
				ContentLoc: "https://cdn.example.net/v.mp4", Duration: time.Minute, Rating: &rating, ViewCount: &views}}
		}
		urls = append(urls, u)
	}
	news := []sitemap.URL{{Loc: "https://example.com/news/1", LastMod: now.Add(-time.Hour),
		News: &sitemap.News{PublicationName: "Daily", Language: "en", PublicationDate: now.Add(-time.Hour), Title: "Fresh", Keywords: []string{"a", "b"}}}}
	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://example.com", Now: func() time.Time { return now }},
		sitemap.Section{Name: "products", Source: sitemap.FromSlice(urls, 50)},
		sitemap.Section{Name: "news", Source: sitemap.FromSlice(news, 1000), Extensions: sitemap.ExtNews})
	if err != nil {
		t.Fatal(err)
	}
	defer sm.Close()
	get := func(path string) []byte {
		w := httptest.NewRecorder()
		sm.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		if w.Code != http.StatusOK {
			t.Fatalf("GET %s = %d", path, w.Code)
		}
		return w.Body.Bytes()
	}
	chk := check.New(check.Options{Now: func() time.Time { return now }})
	index := get("/sitemap_index.xml")
	chk.Document("https://example.com/sitemap_index.xml", "https://example.com/sitemap_index.xml", index)
	files := 0
	for s, err := range parse.Index(bytes.NewReader(index), parse.Limits{}) {
		if err != nil {
			t.Fatal(err)
		}
		path := s.Loc[len("https://example.com"):]
		gz := get(path)
		chk.Document(s.Loc, s.Loc, gz)
		plainPath := path[:len(path)-len(".gz")]
		plain := get(plainPath)
		if !bytes.Equal(plain, testkit.Gunzip(t, gz)) {
			t.Errorf("%s and %s differ", path, plainPath)
		}
		files++
	}
	if files != 4 {
		t.Fatalf("%d files listed, want 4", files)
	}
	chk.Finish()
	r := chk.Report()
	if r.Files != 5 || r.URLs != 121 { // the index's entries are files, not URLs
		t.Errorf("checked %d files, %d URLs", r.Files, r.URLs)
	}
	for _, f := range r.Findings {
		t.Error(f)
	}
}

// TestEmptyNewsChecks: the empty news file of a Latest section (no
// article of the last two days) is the one output the checker warns on,
// and does not fail: an empty <urlset> departs from the schema, which
// Google's news guidance allows. The index that lists it checks clean.
func TestEmptyNewsChecks(t *testing.T) {
	sm, err := sitemap.New(sitemap.Config{BaseURL: "https://example.com"},
		sitemap.Section{Name: "news", Source: &newsroom{}, Extensions: sitemap.ExtNews, Latest: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sm.Close()
	for path, warnings := range map[string]int{"/sitemap_index.xml": 0, "/sitemap-news-1.xml": 1} {
		w := httptest.NewRecorder()
		sm.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		if w.Code != http.StatusOK {
			t.Fatalf("%s: %d", path, w.Code)
		}
		c := check.New(check.Options{})
		c.Document("https://example.com"+path, "https://example.com"+path, w.Body.Bytes())
		c.Finish()
		r := c.Report()
		if r.Errors != 0 || r.Warnings != warnings || warnings == 1 && r.Findings[0].Rule != "urlset-empty" {
			t.Errorf("%s: %+v, want %d warnings (urlset-empty) and no error", path, r, warnings)
		}
	}
}
