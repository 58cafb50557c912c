package demo

import (
	"path/filepath"
	"testing"
	"time"
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
