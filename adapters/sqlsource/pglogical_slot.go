package sqlsource

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5/pgconn"
)

// The slot and the replication connection of logical decoding. Setup
// (prepare) makes, if missing, a publication of the Source's table and a
// logical replication slot that decodes it with pgoutput; both outlive the
// process, so that the changes committed while no replica reads are kept
// for the next reader. Grants: the role needs the REPLICATION attribute
// (on Amazon RDS and Aurora, the rds_replication role) for the slot and
// the replication connection; creating the publication needs CREATE on
// the database and ownership of the table, as does setting the table's
// REPLICA IDENTITY. An administrator can make both beforehand (the names
// below), and then the role needs only REPLICATION and to read the table.

// logicalConfig configures the logical decoding of a Source's table. The
// Source's Config gives Table, Key and Significant; Slot and Publication
// are the names of the replication slot and the publication, the same on
// every replica of a fleet, which then share the slot (one reads it at a
// time).
type logicalConfig struct {
	Table       string   // a plain or schema-qualified table name, such as "products" or "shop.products"
	Key         string   // its integer key column, in its replica identity (the primary key)
	Significant []string // the columns whose change counts; empty means every write counts
	// Slot is the replication slot's name: 1 to 63 lower-case letters,
	// digits and underscores. Empty means "sqlsource_" and the table's
	// name, such as sqlsource_products or sqlsource_shop_products.
	Slot string
	// Publication is the publication's name, with the same rules. Empty
	// means the slot's name.
	Publication string
	// Wait is the longest the feed's next waits for changes before it
	// returns none, so that its consumer can do its periodic work (Watch
	// passes Config.WatchInterval). Zero means one second.
	Wait   time.Duration
	Logger *slog.Logger // nil means no logging
	// text asks for pgoutput's text format even where the binary one
	// could be had (the benchmark's comparison).
	text bool
}

// slotName is the form of a slot's name that PostgreSQL accepts, which
// the publication's name follows too, so that neither needs quoting.
var slotName = regexp.MustCompile(`^[a-z0-9_]{1,63}$`)

// errNoLogical says the server cannot decode: its wal_level is not
// logical. Use the change table instead.
var errNoLogical = errors.New("sqlsource: logical decoding needs wal_level = logical")

// errSlotWait says making the slot timed out: PostgreSQL makes it once
// every transaction open when it starts has ended, which a long one (a
// bulk load, a report) can make take minutes. The feed goes on trying in
// the background.
var errSlotWait = errors.New("it waits for the transactions open when it starts to end")

// errSlotBusy says another consumer, usually another replica, reads the
// slot: PostgreSQL lets one consumer at a time read a slot.
var errSlotBusy = errors.New("sqlsource: another replica holds the replication slot; retrying")

// normalize checks c and fills in the default names.
func (c logicalConfig) normalize() (logicalConfig, error) {
	c.Table, c.Key = strings.TrimSpace(c.Table), strings.TrimSpace(c.Key)
	parts := strings.Split(c.Table, ".")
	if len(parts) > 2 {
		return c, fmt.Errorf("sqlsource: logical decoding needs a plain or schema-qualified table, not %q", c.Table)
	}
	for _, p := range parts {
		if !plainName.MatchString(p) {
			return c, fmt.Errorf("sqlsource: logical decoding needs a plain or schema-qualified table, not %q", c.Table)
		}
	}
	if !plainName.MatchString(c.Key) {
		return c, fmt.Errorf("sqlsource: logical decoding needs a plain key column, not %q", c.Key)
	}
	sig := make([]string, 0, len(c.Significant))
	for _, s := range c.Significant {
		s = strings.TrimSpace(s)
		if !plainName.MatchString(s) {
			return c, fmt.Errorf("sqlsource: logical decoding needs plain significant columns, not %q", s)
		}
		sig = append(sig, s)
	}
	c.Significant = sig
	if c.Slot == "" {
		c.Slot = "sqlsource_" + strings.ToLower(strings.Join(parts, "_"))
		c.Slot = c.Slot[:min(len(c.Slot), 63)]
	}
	if c.Publication == "" {
		c.Publication = c.Slot
	}
	if !slotName.MatchString(c.Slot) {
		return c, fmt.Errorf("sqlsource: replication slot name %q: want 1 to 63 of a-z, 0-9 and _", c.Slot)
	}
	if !slotName.MatchString(c.Publication) {
		return c, fmt.Errorf("sqlsource: publication name %q: want 1 to 63 of a-z, 0-9 and _", c.Publication)
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	switch {
	case c.Wait < 0:
		return c, fmt.Errorf("sqlsource: logical decoding: negative wait %v", c.Wait)
	case c.Wait == 0:
		c.Wait = time.Second
	}
	return c, nil
}

// identityNote is the publication's comment when setup made the table's
// replica identity FULL, so that dropLogical can make it DEFAULT again.
const identityNote = "sqlsource: set REPLICA IDENTITY FULL"

// slotSetup is what prepare learnt.
type slotSetup struct {
	table     uint32  // the table's OID, which pgoutput names it by
	created   bool    // the slot was made now: changes before it are unknown
	confirmed feedPos // the position the slot confirmed
	binary    bool    // the server can send the rows in binary (pglogical_binary.go)
}

// prepare checks the server and the table and makes what is missing: the
// publication, the table's replica identity FULL when Significant columns
// are named (so that an UPDATE carries the old row to compare), and the
// slot. It is safe to run on every replica at once, at every connection.
func prepare(ctx context.Context, db *sql.DB, c logicalConfig) (slotSetup, error) {
	var s slotSetup
	var level string
	if err := db.QueryRowContext(ctx, "SHOW wal_level").Scan(&level); err != nil {
		return s, fmt.Errorf("sqlsource: logical decoding: %w", err)
	}
	if level != "logical" {
		return s, fmt.Errorf("%w, and it is %s: set it (ALTER SYSTEM SET wal_level = logical) and restart PostgreSQL, or use the change table", errNoLogical, level)
	}
	var oid sql.NullInt64
	var ident, name string
	err := db.QueryRowContext(ctx, "SELECT c.oid, c.relreplident, c.oid::regclass::text FROM pg_class c WHERE c.oid = to_regclass($1)", c.Table).
		Scan(&oid, &ident, &name)
	if errors.Is(err, sql.ErrNoRows) {
		return s, fmt.Errorf("sqlsource: logical decoding: no table %s", c.Table)
	}
	if err != nil {
		return s, fmt.Errorf("sqlsource: logical decoding: %w", err)
	}
	s.table = uint32(oid.Int64)
	if err := checkColumns(ctx, db, c, s.table, ident); err != nil {
		return s, err
	}
	if err := ensurePublication(ctx, db, c, s.table, name); err != nil {
		return s, err
	}
	if len(c.Significant) > 0 && ident != "f" {
		// The old row in the stream is what tells a stock update from a rename.
		if _, err := db.ExecContext(ctx, "ALTER TABLE "+name+" REPLICA IDENTITY FULL"); err != nil {
			return s, fmt.Errorf("sqlsource: logical decoding: make %s's replica identity FULL, which Significant needs: %w", name, err)
		}
		if _, err := db.ExecContext(ctx, "COMMENT ON PUBLICATION "+c.Publication+" IS '"+identityNote+"'"); err != nil {
			return s, fmt.Errorf("sqlsource: logical decoding: %w", err)
		}
	}
	if !c.text {
		if s.binary, err = binaryOK(ctx, db, s.table); err != nil {
			return s, err
		}
	}
	s.created, s.confirmed, err = ensureSlot(ctx, db, c)
	return s, err
}

// checkColumns checks that the key is an integer column in the replica
// identity (or that identity is FULL), and that the significant columns
// exist.
func checkColumns(ctx context.Context, db *sql.DB, c logicalConfig, table uint32, ident string) error {
	rows, err := db.QueryContext(ctx, `SELECT a.attname, a.atttypid::regtype::text,
		COALESCE((SELECT true FROM pg_index i WHERE i.indrelid = a.attrelid AND a.attnum = ANY(i.indkey)
			AND (i.indisprimary AND $2 = 'd' OR i.indisreplident AND $2 = 'i') LIMIT 1), $2 = 'f')
		FROM pg_attribute a WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped`, int64(table), ident)
	if err != nil {
		return fmt.Errorf("sqlsource: logical decoding: %w", err)
	}
	defer rows.Close()
	type column struct {
		typ      string
		identity bool
	}
	cols := map[string]column{}
	for rows.Next() {
		var name string
		var col column
		if err := rows.Scan(&name, &col.typ, &col.identity); err != nil {
			return fmt.Errorf("sqlsource: logical decoding: %w", err)
		}
		cols[name] = col
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("sqlsource: logical decoding: %w", err)
	}
	key, ok := cols[catalogName(c.Key)]
	switch {
	case !ok:
		return fmt.Errorf("sqlsource: logical decoding: table %s has no column %s", c.Table, c.Key)
	case key.typ != "smallint" && key.typ != "integer" && key.typ != "bigint":
		return fmt.Errorf("sqlsource: logical decoding: key column %s is %s; it must be an integer (smallint, integer or bigint)", c.Key, key.typ)
	case !key.identity && len(c.Significant) == 0:
		return fmt.Errorf("sqlsource: logical decoding: key column %s is not in the replica identity of %s, so a DELETE would not name it: make it the primary key, or set REPLICA IDENTITY FULL", c.Key, c.Table)
	}
	for _, s := range c.Significant {
		if _, ok := cols[catalogName(s)]; !ok {
			return fmt.Errorf("sqlsource: logical decoding: table %s has no significant column %s", c.Table, s)
		}
	}
	return nil
}

// ensurePublication makes the publication of the table if there is none,
// and checks that one made before publishes it.
func ensurePublication(ctx context.Context, db *sql.DB, c logicalConfig, table uint32, name string) error {
	var all bool
	err := db.QueryRowContext(ctx, "SELECT puballtables FROM pg_publication WHERE pubname = $1", c.Publication).Scan(&all)
	if errors.Is(err, sql.ErrNoRows) {
		_, err = db.ExecContext(ctx, "CREATE PUBLICATION "+c.Publication+" FOR TABLE "+name)
		if pgCode(err) == "42710" || pgCode(err) == "23505" { // made by another replica meanwhile
			return ensurePublication(ctx, db, c, table, name)
		}
		if err != nil {
			return fmt.Errorf("sqlsource: logical decoding: create publication %s: %w", c.Publication, err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("sqlsource: logical decoding: %w", err)
	}
	var in bool
	err = db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM pg_publication_rel r JOIN pg_publication p ON p.oid = r.prpubid
		WHERE p.pubname = $1 AND r.prrelid = $2)`, c.Publication, int64(table)).Scan(&in)
	if err != nil {
		return fmt.Errorf("sqlsource: logical decoding: %w", err)
	}
	if !all && !in {
		return fmt.Errorf("sqlsource: logical decoding: publication %s exists but does not publish %s; add it (ALTER PUBLICATION %s ADD TABLE %s) or name another", c.Publication, name, c.Publication, name)
	}
	return nil
}

// ensureSlot makes the slot if there is none; it reports whether it did,
// and the position the slot confirmed.
func ensureSlot(ctx context.Context, db *sql.DB, c logicalConfig) (bool, feedPos, error) {
	var plugin, database, confirmed, status sql.NullString
	var here bool
	err := db.QueryRowContext(ctx, `SELECT plugin, database, database = current_database(), confirmed_flush_lsn::text, wal_status
		FROM pg_replication_slots WHERE slot_name = $1`, c.Slot).Scan(&plugin, &database, &here, &confirmed, &status)
	if err == nil && status.String == "lost" && plugin.String == "pgoutput" && here {
		// Over max_slot_wal_keep_size, the server removed WAL the slot
		// needed: it can never be read again. Make it anew (the caller
		// then tells that every row may have changed).
		c.Logger.Warn("sqlsource: logical decoding: the replication slot lost WAL it needed (max_slot_wal_keep_size); making it again", "slot", c.Slot)
		if _, err := db.ExecContext(ctx, "SELECT pg_drop_replication_slot($1)", c.Slot); err != nil {
			return false, 0, fmt.Errorf("sqlsource: logical decoding: drop the lost replication slot %s: %w", c.Slot, err)
		}
		err = sql.ErrNoRows
	}
	if errors.Is(err, sql.ErrNoRows) {
		var at string
		err = db.QueryRowContext(ctx, "SELECT lsn::text FROM pg_create_logical_replication_slot($1, 'pgoutput')", c.Slot).Scan(&at)
		if pgCode(err) == "42710" { // another replica makes it meanwhile, and may not be done
			return false, 0, fmt.Errorf("sqlsource: logical decoding: replication slot %s is being made: %w", c.Slot, errSlotWait)
		}
		switch {
		case pgCode(err) == "42501":
			return false, 0, fmt.Errorf("sqlsource: logical decoding: create replication slot %s: the role needs REPLICATION (on RDS, rds_replication): %w", c.Slot, err)
		case err != nil && ctx.Err() != nil:
			return false, 0, fmt.Errorf("sqlsource: logical decoding: create replication slot %s: %w, and one did not: %w", c.Slot, errSlotWait, err)
		case err != nil:
			return false, 0, fmt.Errorf("sqlsource: logical decoding: create replication slot %s: %w", c.Slot, err)
		}
		pos, err := pglogrepl.ParseLSN(at)
		if err != nil {
			return false, 0, fmt.Errorf("sqlsource: logical decoding: slot %s: %w", c.Slot, err)
		}
		return true, feedPos(pos), nil
	}
	if err != nil {
		return false, 0, fmt.Errorf("sqlsource: logical decoding: %w", err)
	}
	if plugin.String != "pgoutput" || !here {
		return false, 0, fmt.Errorf("sqlsource: logical decoding: replication slot %s exists for plugin %q in database %q; name another", c.Slot, plugin.String, database.String)
	}
	if !confirmed.Valid {
		// A slot in the making (the server sets its confirmed position
		// last): another replica's setup, or one of ours that timed out
		// and that the server has not ended yet. It is active for that
		// setup's PID, and nobody has applied its changes: reading it now
		// would take the setup for a replica that holds the slot.
		return false, 0, fmt.Errorf("sqlsource: logical decoding: replication slot %s is being made: %w", c.Slot, errSlotWait)
	}
	pos, err := pglogrepl.ParseLSN(confirmed.String)
	if err != nil {
		return false, 0, fmt.Errorf("sqlsource: logical decoding: slot %s: %w", c.Slot, err)
	}
	return false, feedPos(pos), nil
}

// pgCode returns the SQLSTATE of a PostgreSQL error, or "".
func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// replicate opens a replication connection (replication=database) with
// the configuration of db's connections, and starts streaming the slot
// from the position it last confirmed, in pgoutput's binary format if
// binary.
func replicate(ctx context.Context, db *sql.DB, c logicalConfig, binary bool) (*pgconn.PgConn, error) {
	if !isPgx(db) {
		return nil, errors.New("sqlsource: logical decoding needs the pgx driver (github.com/jackc/pgx/v5/stdlib)")
	}
	cfg, err := pgxConfig(ctx, db)
	if err != nil {
		return nil, err
	}
	pc := cfg.Config.Copy()
	pc.RuntimeParams["replication"] = "database"
	conn, err := pgconn.ConnectConfig(ctx, pc)
	if err != nil {
		return nil, err
	}
	args := []string{"proto_version '1'", "publication_names '" + c.Publication + "'"}
	if binary {
		args = append(args, "binary 'true'")
	}
	err = pglogrepl.StartReplication(ctx, conn, c.Slot, 0, pglogrepl.StartReplicationOptions{
		Mode:       pglogrepl.LogicalReplication,
		PluginArgs: args,
	})
	if err != nil {
		conn.Close(context.Background())
		if pgCode(err) == "55006" { // object_in_use: "replication slot … is active for PID …"
			return nil, fmt.Errorf("%w (%v)", errSlotBusy, err)
		}
		return nil, fmt.Errorf("sqlsource: start replication from slot %s: %w", c.Slot, err)
	}
	return conn, nil
}

// dropLogical removes the slot and the publication, and makes the
// table's replica identity DEFAULT again if setup made it FULL. The slot
// must not be read (close every feed first): a slot nobody reads retains
// WAL until it is dropped. Missing ones are not an error.
func dropLogical(ctx context.Context, db *sql.DB, c logicalConfig) error {
	c, err := c.normalize()
	if err != nil {
		return err
	}
	_, err = db.ExecContext(ctx, "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1", c.Slot)
	if pgCode(err) == "55006" {
		return fmt.Errorf("sqlsource: drop replication slot %s: it is being read; close its readers first: %w", c.Slot, err)
	}
	if err != nil {
		return fmt.Errorf("sqlsource: drop replication slot %s: %w", c.Slot, err)
	}
	var note sql.NullString
	err = db.QueryRowContext(ctx, "SELECT obj_description(oid, 'pg_publication') FROM pg_publication WHERE pubname = $1", c.Publication).Scan(&note)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("sqlsource: drop publication %s: %w", c.Publication, err)
	}
	if _, err := db.ExecContext(ctx, "DROP PUBLICATION IF EXISTS "+c.Publication); err != nil {
		return fmt.Errorf("sqlsource: drop publication %s: %w", c.Publication, err)
	}
	if note.String == identityNote {
		var name sql.NullString
		if err := db.QueryRowContext(ctx, "SELECT to_regclass($1)::text", c.Table).Scan(&name); err != nil {
			return fmt.Errorf("sqlsource: logical decoding: %w", err)
		}
		if name.Valid {
			if _, err := db.ExecContext(ctx, "ALTER TABLE "+name.String+" REPLICA IDENTITY DEFAULT"); err != nil {
				return fmt.Errorf("sqlsource: make %s's replica identity DEFAULT again: %w", name.String, err)
			}
		}
	}
	return nil
}
