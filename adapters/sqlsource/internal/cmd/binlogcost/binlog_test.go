package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestReader: a reader of a table on a server with a row-based binary log
// hands its sink, in commit order, the inserts, deletes, key moves and
// significant updates committed after it started, and neither an
// insignificant update, a rolled-back write nor another table's rows.
// SITEMAP_TEST_BINLOG_DSN names such a server; without it the test uses
// SITEMAP_TEST_MYSQL_DSN's, and skips (even with every service required)
// when that one has no binary log, as a default MariaDB has none.
func TestReader(t *testing.T) {
	dsn := os.Getenv("SITEMAP_TEST_BINLOG_DSN")
	if dsn == "" {
		dsn = os.Getenv("SITEMAP_TEST_MYSQL_DSN")
	}
	if dsn == "" {
		testenv.Unavailable(t, "MariaDB", "SITEMAP_TEST_MYSQL_DSN is not set")
	}
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if err := db.PingContext(ctx); err != nil {
		testenv.Unavailable(t, "MariaDB", err.Error())
	}
	table := fmt.Sprintf("binlogcost_%d", time.Now().UnixNano()%1_000_000)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec("CREATE TABLE " + table + " (id BIGINT PRIMARY KEY, slug VARCHAR(64) NOT NULL, stock INTEGER NOT NULL, published BOOLEAN NOT NULL)")
	defer db.ExecContext(ctx, "DROP TABLE "+table)
	exec("CREATE TABLE " + table + "_other (id BIGINT PRIMARY KEY)")
	defer db.ExecContext(ctx, "DROP TABLE "+table+"_other")
	exec("INSERT INTO " + table + " VALUES (2, 'a', 1, true)") // before the reader: not told

	var mu sync.Mutex
	var got []change
	r, err := startReader(ctx, db, dsn, table, "id", []string{"slug", "published"}, 20*time.Millisecond, func(_ context.Context, cs []change) error {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, cs...)
		return nil
	})
	if errors.Is(err, errNoBinlog) {
		t.Skipf("%v; set SITEMAP_TEST_BINLOG_DSN to a server with log_bin and binlog_format=ROW", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	exec("INSERT INTO " + table + " VALUES (4, 'b', 1, true)")
	exec("UPDATE " + table + " SET stock = 5 WHERE id = 2")
	exec("UPDATE " + table + " SET slug = 'c' WHERE id = 2")
	exec("INSERT INTO " + table + "_other VALUES (2)")
	exec("UPDATE " + table + " SET id = 6 WHERE id = 4")
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO "+table+" VALUES (8, 'd', 1, true)"); err != nil {
		t.Fatal(err)
	}
	tx.Rollback()
	exec("UPDATE " + table + " SET published = false WHERE id = 2")
	exec("DELETE FROM " + table + " WHERE id = 6")
	if err := r.stop(ctx); err != nil {
		t.Fatal(err)
	}
	type kd struct {
		key     int64
		deleted bool
	}
	var keys []kd
	for _, c := range got {
		keys = append(keys, kd{c.key, c.deleted})
		if c.at.IsZero() {
			t.Errorf("change %v has no time", c)
		}
	}
	want := []kd{{4, false}, {2, false}, {4, true}, {6, false}, {2, false}, {6, true}}
	if !slices.Equal(keys, want) {
		t.Errorf("changes = %v, want %v", keys, want)
	}
}
