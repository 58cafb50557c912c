package sqlsource_test

import (
	"cmp"
	"context"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/sqlsource"
)

// recentCatalogue is 20 products: some unlisted, some without lastmod,
// two pairs with equal lastmods (ties go to the higher key).
func recentCatalogue() []product {
	ps := products(ids(1, 20)...)
	ps[2].Published = false         // 3
	ps[5].Noindex = true            // 6
	ps[7].Updated = time.Time{}     // 8: NULL
	ps[18].Updated = ps[17].Updated // 19 and 18
	ps[10].Updated = t0.Add(time.Hour)
	ps[4].Updated = t0.Add(time.Hour) // 11 and 5: the newest
	return ps
}

// wantRecent is what Recent(n) must yield from ps.
func wantRecent(ps []product, n int) []sitemap.URL {
	var listed []product
	for _, p := range ps {
		if p.listed() && !p.Updated.IsZero() {
			listed = append(listed, p)
		}
	}
	slices.SortFunc(listed, func(a, b product) int {
		return cmp.Or(b.Updated.Compare(a.Updated), cmp.Compare(b.ID, a.ID))
	})
	var urls []sitemap.URL
	for _, p := range listed[:min(n, len(listed))] {
		urls = append(urls, sitemap.URL{Loc: p.loc(), LastMod: p.Updated})
	}
	return urls
}

func readRecent(ctx context.Context, src *sqlsource.Source, n int) ([]sitemap.URL, error) {
	var urls []sitemap.URL
	for u, err := range src.Recent(ctx, n) {
		if err != nil {
			return urls, err
		}
		urls = append(urls, sitemap.URL{Loc: u.Loc, LastMod: u.LastMod})
	}
	return urls, nil
}

// TestRecent: newest first by lastmod then key, at most n, only listed
// rows with a lastmod.
func TestRecent(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		ps := recentCatalogue()
		c := d.createCatalogue(t, ps)
		src := newSource(t, d.db, c.config(7))
		for _, n := range []int{0, 1, 2, 5, 100} {
			got, err := readRecent(t.Context(), src, n)
			if err != nil {
				t.Fatalf("Recent(%d): %v", n, err)
			}
			want := wantRecent(ps, n)
			if !slices.EqualFunc(got, want, func(a, b sitemap.URL) bool { return a.Loc == b.Loc && a.LastMod.Equal(b.LastMod) }) {
				t.Errorf("Recent(%d) =\n%v\nwant\n%v", n, got, want)
			}
		}
		cfg := c.config(7)
		cfg.KeyStart = 10
		got, err := readRecent(t.Context(), newSource(t, d.db, cfg), 100)
		if err != nil || len(got) != len(wantRecent(ps[9:], 100)) {
			t.Errorf("KeyStart 10: %d URLs, %v; want %d", len(got), err, len(wantRecent(ps[9:], 100)))
		}
	})
}

// TestRecentNoLastMod: without Config.LastMod, Recent says why.
func TestRecentNoLastMod(t *testing.T) {
	d := openDB(t, "sqlite")
	c := d.createCatalogue(t, products(1, 2))
	cfg := c.config(10)
	cfg.LastMod = ""
	if _, err := readRecent(t.Context(), newSource(t, d.db, cfg), 10); err == nil || !strings.Contains(err.Error(), "LastMod") {
		t.Errorf("err = %v, want one naming Config.LastMod", err)
	}
}

// TestRecentFeed: the Atom feed served over a real table, with news
// titles from Annotate and paths resolved against BaseURL.
func TestRecentFeed(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		ps := recentCatalogue()
		c := d.createCatalogue(t, ps)
		cfg := c.config(7)
		cfg.LocTemplate, cfg.BaseURL = "/p/{slug}", "https://shop.example.com"
		cfg.Annotate = func(r *sqlsource.Row, u *sitemap.URL) error {
			if r.Key == 5 {
				u.News = &sitemap.News{Title: "Five & more"}
			}
			return nil
		}
		sm, err := sitemap.New(sitemap.Config{BaseURL: "https://shop.example.com", FeedEntries: 4},
			sitemap.Section{Name: "products", Source: newSource(t, d.db, cfg)})
		if err != nil {
			t.Fatal(err)
		}
		defer sm.Close()
		srv := httptest.NewServer(sm.Handler(http.NotFoundHandler()))
		defer srv.Close()
		res, err := http.Get(srv.URL + "/sitemap-products.atom")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/atom+xml; charset=utf-8" {
			t.Fatalf("status %d, Content-Type %q", res.StatusCode, res.Header.Get("Content-Type"))
		}
		var feed struct {
			ID      string `xml:"id"`
			Updated string `xml:"updated"`
			Entries []struct {
				ID      string `xml:"id"`
				Title   string `xml:"title"`
				Updated string `xml:"updated"`
			} `xml:"entry"`
		}
		if err := xml.Unmarshal(body, &feed); err != nil {
			t.Fatalf("%v\n%s", err, body)
		}
		want := wantRecent(ps, 4)
		if feed.ID != "https://shop.example.com/sitemap-products.atom" || len(feed.Entries) != len(want) ||
			feed.Updated != want[0].LastMod.Format(time.RFC3339) {
			t.Fatalf("feed %+v, want %d entries from %v", feed, len(want), want[0].LastMod)
		}
		for i, e := range feed.Entries {
			title := want[i].Loc
			if strings.HasSuffix(want[i].Loc, "/item-5") {
				title = "Five & more"
			}
			if e.ID != want[i].Loc || e.Title != title || e.Updated != want[i].LastMod.Format(time.RFC3339) {
				t.Errorf("entry %d = %+v, want %s (%s) at %v", i, e, want[i].Loc, title, want[i].LastMod)
			}
		}
	})
}
