package sqlsource_test

import (
	"context"
	"strings"
	"testing"

	"github.com/freshmap/sitemap/adapters/sqlsource"
)

// TestKeyNotInteger checks that Check refuses a key that is not an
// integer (a UUID, as text or as PostgreSQL's uuid) with an error that
// says what to do, and that a page read of such a table says it too.
func TestKeyNotInteger(t *testing.T) {
	forEachDB(t, func(t *testing.T, d *testDB) {
		const uuid = "9f1c6f7e-4b8e-4a59-9a53-2d5f0a6f7b10"
		for _, k := range []struct {
			typ column
			val string
		}{
			{col("id", "TEXT PRIMARY KEY", "UUID PRIMARY KEY", "CHAR(36) PRIMARY KEY"), uuid},
			{col("id", "TEXT PRIMARY KEY", "TEXT PRIMARY KEY", "VARCHAR(64) PRIMARY KEY"), uuid},
			{col("id", "PRIMARY KEY", "NUMERIC(20, 2) PRIMARY KEY", "DECIMAL(20, 2) PRIMARY KEY"), "12.5"},
			{col("id", "PRIMARY KEY", "TEXT PRIMARY KEY", "VARCHAR(64) PRIMARY KEY"), uuid}, // SQLite: no declared type
		} {
			typ := k.typ
			tab := d.createTable(t, "uuidkey", typ, col("slug", "TEXT", "TEXT", "VARCHAR(64)"))
			d.exec(t, "INSERT INTO "+tab+" (id, slug) VALUES (?, ?)", k.val, "a")
			src := newSource(t, d.db, sqlsource.Config{Table: tab, Key: "id", LocTemplate: base + "{slug}", Dialect: d.dialect})
			err := src.Check(context.Background())
			if err == nil || !strings.Contains(err.Error(), "integer") || !strings.Contains(err.Error(), "Config.Key") {
				t.Errorf("%s: Check = %v, want an error that asks for an integer Config.Key", typ.types[d.name], err)
			}
		}
		c := d.createCatalogue(t, products(1, 2))
		if err := newSource(t, d.db, c.config(10)).Check(context.Background()); err != nil {
			t.Errorf("Check of an integer key: %v", err)
		}
	})
}
