package demo

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/sqlsource"
)

func TestTopUpNews(t *testing.T) {
	c, err := Open(t.Context(), filepath.Join(t.TempDir(), "catalogue.db"), 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	total := count(t, c.DB, "SELECT count(*) FROM articles")
	newest := count(t, c.DB, "SELECT max(published_at) FROM articles")
	later := time.Unix(int64(newest), 0).Add(3*time.Hour + time.Minute)
	if err := topUpNews(t.Context(), c.DB, later); err != nil {
		t.Fatal(err)
	}
	if n := count(t, c.DB, "SELECT count(*) FROM articles"); n != total+12 {
		t.Errorf("%d articles after three hours, want %d + 12", n, total)
	}
	if err := topUpNews(t.Context(), c.DB, later); err != nil {
		t.Fatal(err)
	}
	if n := count(t, c.DB, "SELECT count(*) FROM articles"); n != total+12 {
		t.Errorf("topping up twice gave %d articles, want %d", n, total+12)
	}
	// After 90 days away, only the last 30 days are published.
	if err := topUpNews(t.Context(), c.DB, later.Add(90*24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if n := count(t, c.DB, "SELECT count(*) FROM articles"); n != total+12+int(articleHistory/articleEvery) {
		t.Errorf("%d articles after 90 days, want %d", n, total+12+int(articleHistory/articleEvery))
	}
}

func TestNewsLoader(t *testing.T) {
	c, err := Open(t.Context(), filepath.Join(t.TempDir(), "catalogue.db"), 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var title, lang string
	var published int64
	if err := c.DB.QueryRow("SELECT title, lang, published_at FROM articles WHERE id = 5").Scan(&title, &lang, &published); err != nil {
		t.Fatal(err)
	}
	merge, err := NewsLoader("Daily")(t.Context(), &sqlsource.Page{Number: 1, Lo: 1, Hi: 10, DB: c.DB, Dialect: sqlsource.SQLite})
	if err != nil {
		t.Fatal(err)
	}
	var u sitemap.URL
	merge(5, &u)
	want := sitemap.News{PublicationName: "Daily", Language: lang, PublicationDate: time.Unix(published, 0).UTC(), Title: title}
	if n := u.News; n == nil || n.PublicationName != want.PublicationName || n.Language != want.Language ||
		!n.PublicationDate.Equal(want.PublicationDate) || n.Title != want.Title || len(n.Keywords) != 3 {
		t.Errorf("article 5: News = %+v, want %+v with 3 keywords", n, want)
	}
	u = sitemap.URL{}
	merge(11, &u) // outside the page
	if u.News != nil {
		t.Errorf("a key outside the page got %+v", u.News)
	}
}
