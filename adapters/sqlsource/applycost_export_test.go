package sqlsource

import (
	"context"
	"database/sql"
	"time"
)

// For the tests of package sqlsource_test that count what the watcher's
// steps cost: one read of the change table, applied and deleted in one
// transaction as Watch does them, but without telling anyone; and the
// change table's reads as Watch paces them.

// ApplyWaiting reads the changes waiting in the change table of s (one
// batch), applies them and deletes them, and returns the pages they are on.
func ApplyWaiting(ctx context.Context, s *Source) ([]int64, error) {
	c := s.newChangeTable()
	changes, pos, err := c.next(ctx)
	if err != nil {
		return nil, err
	}
	pages, err := s.apply(ctx, changes, func(ctx context.Context, tx *sql.Tx) error { return c.forget(ctx, tx, pos) })
	if err != nil {
		return nil, err
	}
	c.forgotten(pos)
	return pages, nil
}

// ChangeTableReads returns a function that reads the change table of s as
// Watch's feed does, at its pace: it returns when that read began and how
// many changes it found.
func ChangeTableReads(s *Source) func(ctx context.Context) (time.Time, int, error) {
	c := s.newChangeTable()
	return func(ctx context.Context) (time.Time, int, error) {
		changes, _, err := c.next(ctx)
		return c.readAt, len(changes), err
	}
}
