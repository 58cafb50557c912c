package sqlsource

import (
	"context"
	"database/sql"
	"errors"
	"reflect"
	"strings"

	"github.com/jackc/pgx/v5"
)

// The pgx connection helpers, kept for PostgreSQL's logical decoding,
// which opens a replication connection of its own with db's settings.

// isPgx reports whether db's driver is pgx's database/sql driver, whose
// connection configuration a connection of our own can reuse.
func isPgx(db *sql.DB) bool {
	t := reflect.TypeOf(db.Driver())
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t != nil && strings.HasPrefix(t.PkgPath(), "github.com/jackc/pgx/")
}

// pgxConfig returns the configuration of db's pgx connections.
func pgxConfig(ctx context.Context, db *sql.DB) (*pgx.ConnConfig, error) {
	c, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var cfg *pgx.ConnConfig
	err = c.Raw(func(dc any) error {
		pc, ok := dc.(interface{ Conn() *pgx.Conn })
		if !ok {
			return errors.New("not a pgx connection")
		}
		cfg = pc.Conn().Config()
		// That of the pool's connection, which pgx set to buffer its
		// notifications: a connection of our own buffers its own.
		cfg.OnNotification = nil
		return nil
	})
	return cfg, err
}
