package sqlsource_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestLastModPrecision checks that fractions of a second and zones are
// dropped the same way everywhere (MySQL's DATETIME keeps whole seconds).
func TestLastModPrecision(t *testing.T) {
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			d := openDB(t, name)
			c := d.createCatalogue(t, nil)
			at := time.Date(2024, 5, 6, 7, 8, 9, 987654000, time.FixedZone("X", 2*3600))
			if name == "sqlite" {
				d.exec(t, "INSERT INTO "+c.products+" VALUES (1, 'a', '2024-05-06 07:08:09.987654+02:00', 1, 0)")
			} else {
				c.insert(t, product{ID: 1, Slug: "a", Updated: at, Published: true})
			}
			want := time.Date(2024, 5, 6, 5, 8, 9, 0, time.UTC)
			got := takeSnapshot(t, newSource(t, d.db, c.config(10)))
			if u := got.urls[1][0]; u.LastMod != want {
				t.Errorf("URL LastMod = %#v, want %#v", u.LastMod, want)
			}
			if lm := got.infos[0].LastMod; lm != want {
				t.Errorf("page LastMod = %v, want %v", lm, want)
			}
		})
	}
}

// TestSQLiteTimeForms reads lastmod as SQLite stores it in each accepted form.
func TestSQLiteTimeForms(t *testing.T) {
	ps := products(1, 2, 3, 11)
	ps[1].Updated = time.Time{}
	for _, form := range []string{"text", "iso", "unix", "datetime"} {
		t.Run(form, func(t *testing.T) {
			d := openDB(t, "sqlite")
			c := d.createCatalogueAs(t, ps, form)
			want, wantLM := model(ps, 10, 0, false)
			checkSnapshot(t, takeSnapshot(t, newSource(t, d.db, c.config(10))), want, wantLM)
		})
	}
	t.Run("zones and fractions", func(t *testing.T) {
		d := openDB(t, "sqlite")
		c := d.createCatalogue(t, nil)
		for id, text := range map[int]string{
			1: "2024-05-06",
			2: "2024-05-06T07:08",
			3: "2024-05-06 07:08:09.5",
			4: "2024-05-06T09:08:09+02:00",
			5: "2024-05-06T07:08:09Z",
			6: "2024-05-06 09:08:09.123456789 +0200 CEST m=+0.000000001",
		} {
			d.exec(t, "INSERT INTO "+c.products+" VALUES (?, ?, ?, 1, 0)", id, fmt.Sprint(id), text)
		}
		want := map[string]time.Time{
			base + "1": time.Date(2024, 5, 6, 0, 0, 0, 0, time.UTC),
			base + "2": time.Date(2024, 5, 6, 7, 8, 0, 0, time.UTC),
			base + "3": time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC),
			base + "4": time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC),
			base + "5": time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC),
			base + "6": time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC),
		}
		urls, err := readPage(context.Background(), newSource(t, d.db, c.config(10)), 1)
		if err != nil || len(urls) != len(want) {
			t.Fatalf("%d URLs, %v", len(urls), err)
		}
		for _, u := range urls {
			if u.LastMod != want[u.Loc] {
				t.Errorf("%s: LastMod %v, want %v", u.Loc, u.LastMod, want[u.Loc])
			}
		}
	})
	t.Run("rejected", func(t *testing.T) {
		for _, bad := range []any{"yesterday", 2460000.5, "2024-13-01"} {
			d := openDB(t, "sqlite")
			c := d.createCatalogue(t, products(1, 2, 3))
			d.exec(t, "UPDATE "+c.products+" SET updated_at = ? WHERE id = 2", bad)
			urls, err := readPage(context.Background(), newSource(t, d.db, c.config(10)), 1)
			if err == nil || !strings.Contains(err.Error(), "lastmod") || len(urls) != 1 {
				t.Errorf("lastmod %v: %d URLs, error %v; want 1 URL, then a lastmod error", bad, len(urls), err)
			}
		}
	})
}
