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
