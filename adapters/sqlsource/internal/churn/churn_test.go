package churn

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/internal/testenv"

	_ "github.com/jackc/pgx/v5/stdlib"
)

// openPostgres opens the test PostgreSQL, or stops t as testenv says.
func openPostgres(t *testing.T) *sql.DB {
	t.Helper()
	dsn := os.Getenv("SITEMAP_TEST_POSTGRES_DSN")
	if dsn == "" {
		testenv.Unavailable(t, "PostgreSQL", "SITEMAP_TEST_POSTGRES_DSN is not set")
	}
	db, err := sql.Open("pgx", dsn)
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		err = db.PingContext(ctx)
		cancel()
	}
	if err != nil {
		testenv.Unavailable(t, "PostgreSQL", err.Error())
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestRun runs the benchmark small, in this process: 30,000 rows in
// pages of 10,000, 20 renames a second for 2 s, all of them probed. Every
// probe is served, and the table is filled once and kept for the next
// Open. Telling keys works where the Sitemap has InvalidateKeys, and is
// refused with a clear error where it does not.
func TestRun(t *testing.T) {
	db := openPostgres(t)
	db.SetMaxOpenConns(16)
	ctx := context.Background()
	table := fmt.Sprintf("h28sql_churn_test_%d", rand.Uint32())
	var out bytes.Buffer
	cfg := Config{DB: db, Table: table, Rows: 30_000, PageSize: 10_000, Every: 100 * time.Millisecond, Out: &out}
	b, err := Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	src := b.Src
	t.Cleanup(func() {
		if err := Drop(ctx, db, src, table); err != nil {
			t.Errorf("Drop: %v", err)
		}
	})
	load := func(ctx context.Context, spec LoadSpec) (LoadResult, error) { return Load(ctx, db, spec) }
	res, err := b.Run(ctx, 20, 2*time.Second, 20, 1, load)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if res.Writes < 35 || len(res.Lags) != res.Writes || res.Unserved != 0 || res.Told != len(res.Lags) {
		t.Errorf("%d renames, %d probes, %d not served, %d told; want about 40, each probed, told and served", res.Writes, len(res.Lags), res.Unserved, res.Told)
	}
	if !strings.Contains(out.String(), "filled") || !strings.Contains(out.String(), "pages (Invalidate), change table") ||
		!strings.Contains(out.String(), "commit → new bytes served, ") {
		t.Errorf("output:\n%s", out.String())
	}
	t.Log(out.String())

	out.Reset()
	cfg.Keys = true
	b, err = Open(ctx, cfg)
	if _, ok := any((*sitemap.Sitemap)(nil)).(keysInvalidator); !ok {
		if err == nil || !strings.Contains(err.Error(), "no InvalidateKeys") {
			t.Fatalf("Open with keys, on a Sitemap without InvalidateKeys: %v, want an error that says so", err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "kept from a run before") {
		t.Errorf("the table was not kept:\n%s", out.String())
	}
	res, err = b.Run(ctx, 20, 2*time.Second, 20, 2, load)
	if cerr := b.Close(ctx); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	if res.Unserved != 0 || len(res.Lags) < 35 || !strings.Contains(out.String(), "keys (InvalidateKeys)") {
		t.Errorf("keys: %d probes, %d not served:\n%s", len(res.Lags), res.Unserved, out.String())
	}
}
