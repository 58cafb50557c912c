package demo

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestChurnStep: each of the four edits is committed and seen at once by
// a site whose ETag is made of the catalogue itself, and the three of the
// products alone with NoArticles; a site that never changes is reported
// unchanged, not seen. (The examples' TestChurn run the edits through
// their real wiring.)
func TestChurnStep(t *testing.T) {
	c, err := Open(t.Context(), filepath.Join(t.TempDir(), "catalogue.db"), 20, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	live := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var etag string
		c.DB.QueryRow(`SELECT (SELECT count(*) || '-' || sum(published) || '-' || max(updated_at) || '-' || group_concat(slug) FROM products) ||
			(SELECT count(*) FROM articles)`).Scan(&etag)
		w.Header().Set("Etag", `"`+etag+`"`)
	})
	churn := &Churn{DB: c.DB, Site: live, PageSize: 8}
	products := count(t, c.DB, "SELECT count(*) FROM products")
	published := count(t, c.DB, "SELECT count(*) FROM products WHERE published")
	articles := count(t, c.DB, "SELECT count(*) FROM articles")
	for i, want := range []string{"renamed", "added", "unpublished", "article published"} {
		ch, err := churn.Step(t.Context(), i)
		if err != nil {
			t.Fatal(err)
		}
		if !ch.Seen || !strings.Contains(ch.What, want) || !strings.Contains(ch.String(), "served") {
			t.Errorf("step %d: %s, want %q seen", i, ch, want)
		}
		if i == 1 && ch.File != "/sitemap-products-3.xml.gz" { // product 21, 8 a file
			t.Errorf("the new product's file: %s", ch.File)
		}
	}
	if n := count(t, c.DB, "SELECT count(*) FROM products"); n != products+1 {
		t.Errorf("%d products, want %d", n, products+1)
	}
	if n := count(t, c.DB, "SELECT count(*) FROM products WHERE published"); n != published {
		t.Errorf("%d published, want %d (one added, one unpublished)", n, published)
	}
	if n := count(t, c.DB, "SELECT count(*) FROM articles"); n != articles+1 {
		t.Errorf("%d articles, want %d", n, articles+1)
	}

	// Without articles (a site with no news section, examples/chi), the
	// fourth edit is a rename again, and no article is published.
	noNews := &Churn{DB: c.DB, Site: live, PageSize: 8, NoArticles: true}
	articles = count(t, c.DB, "SELECT count(*) FROM articles")
	for i, want := range []string{"renamed", "added", "unpublished", "renamed"} {
		ch, err := noNews.Step(t.Context(), i)
		if err != nil {
			t.Fatal(err)
		}
		if !ch.Seen || !strings.Contains(ch.What, want) {
			t.Errorf("NoArticles, step %d: %s, want %q seen", i, ch, want)
		}
	}
	if n := count(t, c.DB, "SELECT count(*) FROM articles"); n != articles {
		t.Errorf("NoArticles: %d articles, want %d", n, articles)
	}

	still := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Header().Set("Etag", `"same"`) })
	stuck := &Churn{DB: c.DB, Site: still, PageSize: 8, Wait: 20 * time.Millisecond}
	ch, err := stuck.Step(t.Context(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if ch.Seen || ch.Lag < stuck.Wait || !strings.Contains(ch.String(), "unchanged after") {
		t.Errorf("a site that never changes: %s (seen %v)", ch, ch.Seen)
	}
}
