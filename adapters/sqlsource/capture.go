package sqlsource

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// The change capture: how Watch learns of the rows written. The change
// table (changetable.go) works on every database and costs each write
// one small INSERT by a trigger; PostgreSQL's logical decoding
// (pglogical*.go) costs a write nothing at all, and needs wal_level =
// logical and a role that may replicate. Config.Capture chooses; with
// CaptureAuto the Source asks the server once, the first time it needs
// to know (InstallSummary, Watch or WatchStats), and logs its choice.

// Capture is a way to capture the changes of the table for Watch.
type Capture int

const (
	// CaptureChangeTable is the change table: triggers add a row per row
	// written, which Watch reads and prunes. It works on every database.
	// It is the default.
	CaptureChangeTable Capture = iota
	// CaptureAuto is logical decoding on a PostgreSQL server whose
	// wal_level is logical, through the pgx driver, for a role that may
	// replicate (REPLICATION, a superuser, or on Amazon RDS
	// rds_replication); else the change table.
	CaptureAuto
	// CaptureLogical is PostgreSQL's logical decoding: Watch reads the
	// table's changes from a replication slot, and the writes pay nothing
	// for it. It needs PostgreSQL with wal_level = logical and the pgx
	// driver (github.com/jackc/pgx/v5/stdlib).
	CaptureLogical
)

// String names the capture as logs and Stats do.
func (c Capture) String() string {
	switch c {
	case CaptureChangeTable:
		return "change table"
	case CaptureAuto:
		return "auto"
	case CaptureLogical:
		return "logical decoding"
	}
	return fmt.Sprintf("Capture(%d)", int(c))
}

// capture holds the Source's choice of change capture.
type capture struct {
	want              Capture // Config.Capture
	slot, publication string  // Config.Slot and Config.Publication, "" for the defaults

	mu     sync.Mutex
	chosen Capture // want, resolved; CaptureAuto until then
}

// newCapture checks cfg's choice of change capture against the dialect.
func newCapture(cfg Config, d Dialect, sum summary) (*capture, error) {
	c := &capture{want: cfg.Capture, slot: strings.TrimSpace(cfg.Slot), publication: strings.TrimSpace(cfg.Publication), chosen: cfg.Capture}
	switch {
	case cfg.Capture < CaptureChangeTable || cfg.Capture > CaptureLogical:
		return nil, fmt.Errorf("sqlsource: unknown Config.Capture %d", int(cfg.Capture))
	case cfg.Capture == CaptureLogical && d != Postgres:
		return nil, fmt.Errorf("sqlsource: Config.Capture: logical decoding is PostgreSQL's; this database is %s: use CaptureChangeTable", d)
	case cfg.Capture != CaptureChangeTable && !sum.on:
		return nil, errors.New("sqlsource: Config.Capture is for Watch, which needs Config.Summary")
	case (c.slot != "" || c.publication != "") && cfg.Capture == CaptureChangeTable:
		return nil, errors.New("sqlsource: Config.Slot and Config.Publication are for logical decoding: set Config.Capture to CaptureLogical or CaptureAuto")
	}
	if d != Postgres && cfg.Capture == CaptureAuto {
		c.chosen = CaptureChangeTable // only PostgreSQL decodes
	}
	if c.chosen != CaptureChangeTable {
		// The names are checked here, not at the first Watch.
		if _, err := (logicalConfig{Table: sum.table, Key: sum.key, Slot: c.slot, Publication: c.publication}).normalize(); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// captureOf returns the change capture the Source uses, asking the server
// the first time when Config.Capture is CaptureAuto, and logging the
// choice.
func (s *Source) captureOf(ctx context.Context) (Capture, error) {
	c := s.capture
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.chosen != CaptureAuto {
		return c.chosen, nil
	}
	why, err := s.canDecode(ctx)
	if err != nil {
		return CaptureAuto, fmt.Errorf("sqlsource: choose the change capture: %w", err)
	}
	c.chosen = CaptureLogical
	if why != "" {
		c.chosen = CaptureChangeTable
	}
	s.log.Info("sqlsource: change capture", "table", s.sum.table, "capture", c.chosen.String(), "why", cmp.Or(why, "the server decodes and the role may replicate"))
	return c.chosen, nil
}

// canDecode returns why the Source cannot use logical decoding, or "" if
// it can.
func (s *Source) canDecode(ctx context.Context) (string, error) {
	if !isPgx(s.db) {
		return "logical decoding needs the pgx driver (github.com/jackc/pgx/v5/stdlib)", nil
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	var level string
	var may sql.NullBool
	err := s.db.QueryRowContext(ctx, `SELECT current_setting('wal_level'),
		(SELECT rolreplication OR rolsuper FROM pg_roles WHERE rolname = current_user)
		OR EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'rds_replication' AND pg_has_role(current_user, oid, 'member'))`).Scan(&level, &may)
	switch {
	case err != nil:
		return "", err
	case level != "logical":
		return "the server's wal_level is " + level + ", not logical", nil
	case !may.Bool:
		return "the role may not replicate (it needs REPLICATION, or rds_replication on Amazon RDS)", nil
	}
	return "", nil
}

// logicalNames returns the logical decoding configuration of the
// Source's Config: its table, key, significant columns, slot and
// publication (the defaults filled in).
func (s *Source) logicalNames() (logicalConfig, error) {
	return s.logicalConfig(s.capture.slot, s.capture.publication).normalize()
}

// logical reports whether the Source has chosen logical decoding (after
// captureOf).
func (s *Source) logical() bool {
	s.capture.mu.Lock()
	defer s.capture.mu.Unlock()
	return s.capture.chosen == CaptureLogical
}
