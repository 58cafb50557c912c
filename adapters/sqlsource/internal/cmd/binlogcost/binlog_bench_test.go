package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"
)

// BenchmarkReader is the reader's own cost, on a quiet server: reading a
// backlog of 10,000 row events of the products table (1,000
// transactions of 5 single-row inserts and 5 significant updates) from
// the server, decoded and turned into changes ("decoded"), against the
// same events read and left undecoded (go-mysql's raw mode, "raw": the
// connection, the server's dump thread and the event framing). Its
// ns/event is per row event; its bytes are the binary log's. It needs
// SITEMAP_TEST_BINLOG_DSN, a server with a row-based binary log.
func BenchmarkReader(b *testing.B) {
	dsn := os.Getenv("SITEMAP_TEST_BINLOG_DSN")
	if dsn == "" {
		b.Skip("SITEMAP_TEST_BINLOG_DSN is not set")
	}
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	table := fmt.Sprintf("binlogbench_%d", time.Now().UnixNano()%1_000_000)
	if _, err := db.ExecContext(ctx, "CREATE TABLE "+table+" (id BIGINT PRIMARY KEY, slug VARCHAR(64) NOT NULL, stock INTEGER NOT NULL, "+
		"updated_at DATETIME NOT NULL, published BOOLEAN NOT NULL)"); err != nil {
		b.Fatal(err)
	}
	defer db.ExecContext(ctx, "DROP TABLE "+table)
	from, err := serverPosition(ctx, db)
	if errors.Is(err, errNoBinlog) {
		b.Skip(err)
	}
	if err != nil {
		b.Fatal(err)
	}
	const txs, writes = 1000, 10
	for i := range txs {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		for j := range writes / 2 {
			k := int64(i*writes + j)
			if _, err := tx.ExecContext(ctx, "INSERT INTO "+table+" VALUES (?, ?, 1, UTC_TIMESTAMP(), true)", k, fmt.Sprint("p-", k)); err != nil {
				b.Fatal(err)
			}
			if _, err := tx.ExecContext(ctx, "UPDATE "+table+" SET slug = ? WHERE id = ?", fmt.Sprint("s-", k), k); err != nil {
				b.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	to, err := serverPosition(ctx, db)
	if err != nil {
		b.Fatal(err)
	}
	for _, raw := range []bool{true, false} {
		name := "decoded"
		if raw {
			name = "raw"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(to.Pos - from.Pos))
			var told int
			for b.Loop() {
				told = 0
				r, err := startReaderAt(ctx, db, dsn, table, "id", []string{"slug", "published"}, 250*time.Millisecond,
					func(_ context.Context, cs []change) error { told += len(cs); return nil }, &from, raw)
				if err != nil {
					b.Fatal(err)
				}
				if err := r.stopAt(to); err != nil {
					b.Fatal(err)
				}
			}
			if want := txs * writes; !raw && told != want {
				b.Fatalf("%d changes told, want %d", told, want)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(txs*writes), "ns/event")
		})
	}
}
