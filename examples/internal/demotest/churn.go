package demotest

import (
	"fmt"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"

	"github.com/freshmap/sitemap/examples/demo"
	"github.com/freshmap/sitemap/internal/testkit"
)

// Churn runs -churn's edits (demo.Churn) on the catalogue cat served at
// base with pageSize products a sitemap file, with no call to the
// sitemap, and checks that each reaches the file that lists the row: a
// renamed product's new URL, a new product in a new file, an unpublished
// one gone, and if articles (the site has a news section) a new article
// in the news file, whose name stays sitemap-news-1.xml.gz.
func Churn(t *testing.T, base string, cat *demo.Catalogue, pageSize int, articles bool) {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	c := &demo.Churn{DB: cat.DB, Site: httputil.NewSingleHostReverseProxy(u), PageSize: pageSize, NoArticles: !articles}
	steps := 3
	if articles {
		steps = 4
	}
	for i := range steps {
		ch, err := c.Step(t.Context(), i)
		if err != nil {
			t.Fatal(err)
		}
		if !ch.Seen {
			t.Fatalf("%s", ch)
		}
		t.Log(ch)
		body := getGzip(t, base+ch.File)
		var want string
		switch i {
		case 0: // renamed: its new slug ends in its id
			var id int64
			var slug string
			if err := cat.DB.QueryRow("SELECT id, slug FROM products ORDER BY updated_at DESC, id DESC LIMIT 1").Scan(&id, &slug); err != nil {
				t.Fatal(err)
			}
			want = fmt.Sprintf("/p/%d/%s<", id, slug)
		case 1:
			var id int
			query(t, cat.DB, "SELECT max(id) FROM products", &id) // the new product's
			want = fmt.Sprintf("/p/%d/", id)
			if wantFile := fmt.Sprintf("/sitemap-products-%d.xml.gz", (id-1)/pageSize+1); ch.File != wantFile {
				t.Errorf("a new product in %s, want %s", ch.File, wantFile)
			}
		case 2:
			var id int64
			if err := cat.DB.QueryRow("SELECT id FROM products WHERE NOT published ORDER BY updated_at DESC LIMIT 1").Scan(&id); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(body, fmt.Sprintf("/p/%d/", id)) {
				t.Errorf("unpublished product %d is still listed", id)
			}
			continue
		case 3:
			want = "-is-back-"
			if ch.File != "/sitemap-news-1.xml.gz" {
				t.Errorf("the article in %s", ch.File)
			}
		}
		if !strings.Contains(body, want) {
			t.Errorf("after %q, %s has no %q", ch.What, ch.File, want)
		}
	}
}

// getGzip returns the body of the sitemap file at u (get), unzipped.
func getGzip(t *testing.T, u string) string {
	t.Helper()
	return string(testkit.Gunzip(t, []byte(get(t, u))))
}
