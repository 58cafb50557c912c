package demo

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func count(t *testing.T, db *sql.DB, q string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRowContext(t.Context(), q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// checksum sums up the generated product data, to compare catalogues.
func checksum(t *testing.T, db *sql.DB) string {
	t.Helper()
	var s string
	err := db.QueryRowContext(t.Context(), `SELECT
		(SELECT count(*) || ':' || sum(length(slug) * id + price_cents + updated_at % 1000003 + published) FROM products) || '/' ||
		(SELECT count(*) || ':' || sum(length(path) + length(caption) * product_id) FROM product_images)`).Scan(&s)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestOpenBuildsOnceThenReuses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "catalogue.db")
	c, err := Open(t.Context(), path, 300, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Built || c.BuildTime <= 0 {
		t.Errorf("first Open: Built = %v, BuildTime = %v; want a build", c.Built, c.BuildTime)
	}
	if n := count(t, c.DB, "SELECT count(*) FROM products"); n != 300 {
		t.Errorf("%d products, want 300", n)
	}
	if n := count(t, c.DB, "SELECT count(*) FROM product_images"); n < 300 || n > 900 {
		t.Errorf("%d images for 300 products, want 1 to 3 each", n)
	}
	if n := count(t, c.DB, "SELECT count(*) FROM articles WHERE published_at >= ?", time.Now().Add(-48*time.Hour).Unix()); n < 150 {
		t.Errorf("%d articles in the last two days, want one every 15 minutes", n)
	}
	sum := checksum(t, c.DB)
	c.Close()

	c, err = Open(t.Context(), path, 300, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Built {
		t.Error("second Open rebuilt the catalogue")
	}
	if got := checksum(t, c.DB); got != sum {
		t.Errorf("reopened catalogue differs: %s, want %s", got, sum)
	}
}

// TestDeterministic checks that two builds give the same products, as
// they would on two machines.
func TestDeterministic(t *testing.T) {
	a, err := Open(t.Context(), filepath.Join(t.TempDir(), "a.db"), 500, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(t.Context(), filepath.Join(t.TempDir(), "b.db"), 500, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if x, y := checksum(t, a.DB), checksum(t, b.DB); x != y {
		t.Errorf("two builds differ: %s and %s", x, y)
	}
	var name string
	if err := a.DB.QueryRow("SELECT name FROM products WHERE id = 1").Scan(&name); err != nil || name != "Minimal Glass Sofa" {
		t.Errorf("product 1 is %q (%v), want the seed's Minimal Glass Sofa", name, err)
	}
}

func TestOpenRebuilds(t *testing.T) {
	for name, setup := range map[string]string{
		"interrupted":    "CREATE TABLE products (id INTEGER PRIMARY KEY); INSERT INTO products VALUES (1), (2);", // no meta
		"other size":     "CREATE TABLE meta (version, products, built_at); INSERT INTO meta VALUES (1, 99, '');",
		"older version":  "CREATE TABLE meta (version, products, built_at); INSERT INTO meta VALUES (0, 100, '');",
		"empty database": "",
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "catalogue.db")
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec("PRAGMA user_version = 1;" + setup); err != nil {
				t.Fatal(err)
			}
			db.Close()
			c, err := Open(t.Context(), path, 100, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if !c.Built {
				t.Error("the catalogue was not rebuilt")
			}
			if n := count(t, c.DB, "SELECT count(*) FROM products"); n != 100 {
				t.Errorf("%d products, want 100", n)
			}
		})
	}
}

func TestOpenRefusesForeignDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE users (id INTEGER PRIMARY KEY); INSERT INTO users VALUES (7)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := Open(t.Context(), path, 100, nil); err == nil {
		t.Fatal("Open accepted a database that is not a demo catalogue")
	}
	db, err = sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if n := count(t, db, "SELECT count(*) FROM users"); n != 1 {
		t.Errorf("the foreign database was changed: %d users", n)
	}

	notSQLite := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notSQLite, []byte("my notes, not a database, long enough to have a header\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(t.Context(), notSQLite, 100, nil); err == nil {
		t.Error("Open accepted a file that is not a database")
	}
	if b, _ := os.ReadFile(notSQLite); string(b) != "my notes, not a database, long enough to have a header\n" {
		t.Errorf("the file was changed: %q", b)
	}
}

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

func TestSQLString(t *testing.T) {
	if got := SQLString("http://x/it's"); got != "'http://x/it''s'" {
		t.Errorf("SQLString = %s", got)
	}
}
