// Package demotest checks a running demo shop end to end, for the tests of
// the runnable examples: it serves a small catalogue with the example's own
// wiring, crawls its sitemap like a search engine, validates every
// document against the XML Schemas and compares what is listed with the
// database.
package demotest

import (
	"context"
	"database/sql"
	"encoding/xml"
	"html"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap/check"
	"github.com/freshmap/sitemap/examples/demo"
	"github.com/freshmap/sitemap/internal/testenv"
	"github.com/freshmap/sitemap/internal/xsdcheck"
)

// Serve builds a catalogue of n products in a temporary directory and
// serves it through an example's wire with pageSize products per sitemap
// file, without a Store. It returns the server's base URL and the catalogue; both are
// closed when the test ends.
func Serve(t *testing.T, n, pageSize int, wire demo.Wiring) (string, *demo.Catalogue) {
	t.Helper()
	cat, err := demo.Open(t.Context(), filepath.Join(t.TempDir(), "catalogue.db"), n, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cat.Close() })
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	h, sm, err := wire(t.Context(), cat.DB, nil, demo.Options{Base: base, PageSize: pageSize}, nil)
	if err != nil {
		srv.Close()
		t.Fatal(err)
	}
	srv.Config.Handler = h
	srv.Start()
	t.Cleanup(func() {
		srv.Close()
		sm.Close()
	})
	return base, cat
}

// urlset is the part of a <urlset> that Check looks at.
type urlset struct {
	URLs []struct {
		Loc    string `xml:"loc"`
		Images []struct {
			Loc string `xml:"http://www.google.com/schemas/sitemap-image/1.1 loc"`
		} `xml:"http://www.google.com/schemas/sitemap-image/1.1 image"`
		Alternates []struct {
			Hreflang string `xml:"hreflang,attr"`
			Href     string `xml:"href,attr"`
		} `xml:"http://www.w3.org/1999/xhtml link"`
		News *struct {
			Date string `xml:"publication_date"`
		} `xml:"http://www.google.com/schemas/sitemap-news/0.9 news"`
	} `xml:"url"`
}

// Check crawls the site at base and checks it against its catalogue db:
// robots.txt keeps the shop's rules and gains one Sitemap: line; every
// document is 200, decompresses and is valid; the index lists files of
// exactly the sections named; the pages section lists /, /about and
// /news; the products section lists every published product in each of
// its three languages, each with its images and four alternates; the news section, if named, holds exactly
// the articles of the last two days; and the first URL of every file, with
// its images and alternates, is a page the shop serves.
func Check(t *testing.T, base string, db *sql.DB, sections ...string) {
	t.Helper()
	ctx := t.Context()
	validate := xsdcheck.Available()
	if !validate {
		testenv.Without(t, xsdcheck.Group, "xmllint or the schemas are missing: documents are parsed but not validated")
	}

	robots := get(t, base+"/robots.txt")
	if !strings.Contains(robots, "Disallow: /cart\n") {
		t.Errorf("robots.txt lost the shop's own rules:\n%s", robots)
	}
	if n := strings.Count(robots, "Sitemap: "+base+"/sitemap_index.xml\n"); n != 1 {
		t.Errorf("robots.txt names the sitemap index %d times, want 1:\n%s", n, robots)
	}

	before := time.Now()
	// Every document is also checked with the project's own checker (the
	// protocol's rules in Go): a fresh clone validates without xmllint.
	chk := check.New(check.Options{})
	locs := map[string][]string{} // section → locs
	var samples []string          // URLs the shop must serve
	var news []time.Time
	productImages, productAlternates := 0, 0
	_, err := demo.Crawl(ctx, http.DefaultClient, base, func(d demo.Doc) error {
		chk.Document(d.URL, d.URL, d.XML)
		if d.Index {
			if validate {
				xsdcheck.Index(t, d.XML)
			}
			return nil
		}
		if validate {
			xsdcheck.URLSet(t, d.XML)
		}
		var set urlset
		if err := xml.Unmarshal(d.XML, &set); err != nil {
			t.Errorf("%s: %v", d.URL, err)
			return nil
		}
		file := strings.TrimPrefix(d.URL, base+"/sitemap-")
		section := file[:strings.LastIndexByte(file, '-')]
		for i, u := range set.URLs {
			locs[section] = append(locs[section], u.Loc)
			if i == 0 {
				samples = append(samples, u.Loc)
				for _, img := range u.Images {
					samples = append(samples, img.Loc)
				}
				for _, a := range u.Alternates {
					samples = append(samples, a.Href)
				}
			}
			switch section {
			case "products":
				productImages += len(u.Images)
				productAlternates += len(u.Alternates)
				if len(u.Images) < 1 || len(u.Images) > 3 || len(u.Alternates) != 4 {
					t.Errorf("%s has %d images and %d alternates, want 1 to 3 and 4", u.Loc, len(u.Images), len(u.Alternates))
				}
			case "news":
				if u.News == nil {
					t.Errorf("%s has no <news:news>", u.Loc)
					continue
				}
				d, err := time.Parse(time.RFC3339, u.News.Date)
				if err != nil {
					t.Errorf("%s: publication date: %v", u.Loc, err)
				}
				news = append(news, d)
			}
		}
		return nil
	})
	after := time.Now()
	if err != nil {
		t.Fatal(err)
	}
	chk.Finish()
	if r := chk.Report(); r.Files < 2 || r.URLs == 0 {
		t.Errorf("the checker saw %d files and %d URLs", r.Files, r.URLs)
	} else if r.Errors > 0 || r.Warnings > 0 {
		t.Errorf("the checker found %d errors and %d warnings in the served tree:", r.Errors, r.Warnings)
		for _, f := range r.Findings {
			t.Error(f)
		}
	}

	if got := slices.Sorted(maps.Keys(locs)); !slices.Equal(got, slices.Sorted(slices.Values(sections))) {
		t.Errorf("the sitemap has the sections %q, want %q", got, sections)
	}
	for _, p := range []string{"/", "/about", "/news"} {
		if !slices.Contains(locs["pages"], base+p) {
			t.Errorf("pages section lacks %s: %q", base+p, locs["pages"])
		}
	}

	var published, images int
	query(t, db, "SELECT count(*) FROM products WHERE published", &published)
	query(t, db, "SELECT count(*) FROM product_images i JOIN products p ON p.id = i.product_id WHERE p.published", &images)
	// Each product in each of its 3 languages, each listing all of them
	// and the x-default.
	if got := len(locs["products"]); got != 3*published {
		t.Errorf("products section lists %d URLs, want the %d published products in 3 languages", got, published)
	}
	if productImages != 3*images || productAlternates != 3*4*published {
		t.Errorf("products carry %d images and %d alternates, want %d and %d", productImages, productAlternates, 3*images, 3*4*published)
	}

	for _, u := range samples {
		if !strings.HasPrefix(u, base+"/") {
			t.Errorf("%s is not under %s", u, base)
			continue
		}
		get(t, u)
	}

	checkHTMLView(t, base, sections, locs)

	if !slices.Contains(sections, "news") {
		return
	}
	// The news holds the articles of the last two days: the window moved
	// during the crawl, so the count lies between two bounds.
	var most, least, older int
	query(t, db, "SELECT count(*) FROM articles WHERE published_at >= ?", &most, before.Add(-48*time.Hour).Unix())
	query(t, db, "SELECT count(*) FROM articles WHERE published_at > ?", &least, after.Add(-48*time.Hour).Unix())
	query(t, db, "SELECT count(*) FROM articles WHERE published_at < ?", &older, before.Add(-48*time.Hour).Unix())
	if n := len(news); n == 0 || n < least || n > most {
		t.Errorf("news section lists %d articles, want %d to %d, and some", n, least, most)
	}
	if older == 0 {
		t.Errorf("the catalogue has no article older than two days, so the news filter is untested")
	}
	for _, d := range news {
		if d.Before(before.Add(-48*time.Hour).Truncate(time.Second)) || d.After(after) {
			t.Errorf("news article published %v is not from the last two days", d)
		}
	}
}

func query(t *testing.T, db *sql.DB, q string, dest *int, args ...any) {
	t.Helper()
	if err := db.QueryRowContext(context.Background(), q, args...).Scan(dest); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// get fetches u and fails the test unless it is 200.
func get(t *testing.T, u string) string {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET %s: %s", u, resp.Status)
	}
	return string(body)
}

// checkHTMLView checks the demo's HTML view (Config.HTML): the index's
// view links the first file of every section, and that file's view lists
// its first URL, as locs (section → its URLs, in order) has them.
func checkHTMLView(t *testing.T, base string, sections []string, locs map[string][]string) {
	t.Helper()
	idx := get(t, base+"/sitemap_index.html")
	for _, sec := range sections {
		first := regexp.MustCompile(`<a href="(sitemap-` + sec + `-\d+\.html)">`).FindStringSubmatch(idx)
		if first == nil {
			t.Errorf("the HTML index links no file of %s:\n%s", sec, idx)
			continue
		}
		page := get(t, base+"/"+first[1])
		if want := `<th scope="row"><a href="` + html.EscapeString(locs[sec][0]) + `">`; !strings.Contains(page, want) {
			t.Errorf("%s has no row %s", first[1], want)
		}
	}
}
