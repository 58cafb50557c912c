package demo

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Summarised is a Source whose page summary can be installed, such as an
// adapters/sqlsource Source made with Config.Summary.
type Summarised interface {
	InstallSummary(ctx context.Context) error
	RemoveSummary(ctx context.Context) error
}

// EnsureSummary installs src's page summary of table in the catalogue db,
// as a migration would: once, and again only when the page size it was
// made for changes (-pagesize), since a summary counts rows per page. The
// catalogue's summaries table remembers which.
func EnsureSummary(ctx context.Context, db *sql.DB, table string, pageSize int, src Summarised) error {
	if _, err := db.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS summaries (tbl TEXT PRIMARY KEY, page_size INTEGER NOT NULL)"); err != nil {
		return fmt.Errorf("demo: summaries: %w", err)
	}
	var size int
	err := db.QueryRowContext(ctx, "SELECT page_size FROM summaries WHERE tbl = ?", table).Scan(&size)
	switch {
	case err == nil && size == pageSize:
		return nil
	case err != nil && !errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("demo: summaries: %w", err)
	}
	if err := src.RemoveSummary(ctx); err != nil {
		return err
	}
	if err := src.InstallSummary(ctx); err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, "INSERT OR REPLACE INTO summaries VALUES (?, ?)", table, pageSize); err != nil {
		return fmt.Errorf("demo: summaries: %w", err)
	}
	return nil
}
