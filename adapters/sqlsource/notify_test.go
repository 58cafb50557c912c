package sqlsource_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestNotifyOncePerPage listens on the summary's channel as Watch does,
// and writes 3,500 rows on four pages in one transaction, then one row in
// another: the first sends one notification per page, the second one for
// its page. A last notification of the test's own, committed after them,
// ends the count (notifications come in commit order).
func TestNotifyOncePerPage(t *testing.T) {
	d := openDB(t, "postgres")
	f := newFreshSite(t, d, nil, true)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, d.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	channel := f.c.products + "_sitemap_pages"
	if _, err := conn.Exec(ctx, `LISTEN "`+channel+`"`); err != nil {
		t.Fatal(err)
	}

	tx, err := d.db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		if _, err := tx.Exec("UPDATE " + f.c.products + " SET noindex = noindex WHERE id >= 1 AND id <= 35"); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	f.exec(t, "UPDATE products SET slug = 'renamed-12' WHERE id = 12")
	d.exec(t, "SELECT pg_notify('"+channel+"', 'end')") // d.exec: the channel holds the word products

	var got []string
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			t.Fatalf("after %v: %v", got, err)
		}
		if n.Payload == "end" {
			break
		}
		got = append(got, n.Payload)
	}
	// Pages 1 to 4 in the order the transaction first wrote them, then 2.
	if want := []string{"1", "2", "3", "4", "2"}; !slices.Equal(got, want) {
		t.Errorf("notifications %v; want %v: one per page per transaction", got, want)
	}
}
