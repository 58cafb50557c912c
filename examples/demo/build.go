package demo

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

const schema = `
CREATE TABLE products (
	id          INTEGER PRIMARY KEY,
	slug        TEXT    NOT NULL,
	name        TEXT    NOT NULL,
	price_cents INTEGER NOT NULL,
	updated_at  INTEGER NOT NULL, -- Unix seconds
	published   INTEGER NOT NULL
);
CREATE TABLE product_images (
	product_id INTEGER NOT NULL,
	position   INTEGER NOT NULL,
	path       TEXT    NOT NULL, -- under the base URL
	caption    TEXT    NOT NULL,
	PRIMARY KEY (product_id, position)
) WITHOUT ROWID;
CREATE TABLE articles (
	id           INTEGER PRIMARY KEY,
	slug         TEXT    NOT NULL,
	title        TEXT    NOT NULL,
	lang         TEXT    NOT NULL,
	keywords     TEXT    NOT NULL,
	published_at INTEGER NOT NULL UNIQUE -- Unix seconds
);
CREATE TABLE meta (version INTEGER NOT NULL, products INTEGER NOT NULL, built_at TEXT NOT NULL);
`

// build creates the catalogue at path in one transaction, with
// synchronous=OFF and multi-row prepared inserts. The meta row is written
// last.
func build(ctx context.Context, path string, n int) error {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=synchronous(OFF)&_pragma=cache_size(-65536)")
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, schema); err != nil {
		return fmt.Errorf("demo: schema: %w", err)
	}
	products := newInserter(tx, "products", "id, slug, name, price_cents, updated_at, published")
	images := newInserter(tx, "product_images", "product_id, position, path, caption")
	gen := newProductGen()
	for range n {
		p := gen.next()
		if err := products.add(ctx, p.id, p.slug, p.name, p.price, p.updatedAt, p.published); err != nil {
			return err
		}
		for k := range p.images {
			if err := images.add(ctx, p.id, k+1, imagePath(p.id, k+1), p.name+", "+views[k]); err != nil {
				return err
			}
		}
	}
	if err := products.flush(ctx); err != nil {
		return err
	}
	if err := images.flush(ctx); err != nil {
		return err
	}
	if err := insertArticles(ctx, tx, time.Now().Add(-articleHistory), time.Now()); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO meta VALUES (?, ?, ?)", schemaVersion, n, time.Now().UTC().Format(time.RFC3339)); err != nil {
		return fmt.Errorf("demo: meta: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("demo: commit: %w", err)
	}
	if _, err := db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		return fmt.Errorf("demo: checkpoint: %w", err)
	}
	return nil
}

// batchRows is how many rows one INSERT statement carries.
const batchRows = 128

// inserter inserts rows into a table batchRows at a time with one prepared
// multi-row INSERT, and the rest with a statement made for them.
type inserter struct {
	tx    *sql.Tx
	table string
	cols  string
	ncols int
	stmt  *sql.Stmt
	args  []any
}

func newInserter(tx *sql.Tx, table, cols string) *inserter {
	return &inserter{tx: tx, table: table, cols: cols, ncols: strings.Count(cols, ",") + 1}
}

func (b *inserter) query(rows int) string {
	row := "(" + strings.TrimSuffix(strings.Repeat("?,", b.ncols), ",") + ")"
	return "INSERT INTO " + b.table + " (" + b.cols + ") VALUES " + strings.TrimSuffix(strings.Repeat(row+",", rows), ",")
}

func (b *inserter) add(ctx context.Context, vals ...any) error {
	b.args = append(b.args, vals...)
	if len(b.args) < batchRows*b.ncols {
		return nil
	}
	if b.stmt == nil {
		stmt, err := b.tx.PrepareContext(ctx, b.query(batchRows))
		if err != nil {
			return fmt.Errorf("demo: %s: %w", b.table, err)
		}
		b.stmt = stmt
	}
	if _, err := b.stmt.ExecContext(ctx, b.args...); err != nil {
		return fmt.Errorf("demo: %s: %w", b.table, err)
	}
	b.args = b.args[:0]
	return nil
}

func (b *inserter) flush(ctx context.Context) error {
	if len(b.args) > 0 {
		if _, err := b.tx.ExecContext(ctx, b.query(len(b.args)/b.ncols), b.args...); err != nil {
			return fmt.Errorf("demo: %s: %w", b.table, err)
		}
		b.args = b.args[:0]
	}
	if b.stmt != nil {
		return b.stmt.Close()
	}
	return nil
}
