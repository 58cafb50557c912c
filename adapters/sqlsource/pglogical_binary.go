package sqlsource

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
)

// pgoutput's binary format (PostgreSQL 14 and later): with the option
// binary 'true', the walsender sends each column by its type's binary
// send function instead of its text output function. It is cheaper for
// the server (timestamptz_out, numeric_out and the like format and
// allocate for every row, old and new, that REPLICA IDENTITY FULL sends)
// and for the consumer, which compares the old and new significant
// columns as bytes either way and reads an integer key from 2, 4 or 8
// bytes instead of parsing its digits.
//
// The walsender fails the whole stream on a column whose type has no
// binary send function, so the feed asks for binary only when every
// column of the table has one (and its element type, for an array), and
// no column is of a composite type, whose send reads its fields'.

// The OIDs of the integer types a key can be.
const (
	oidInt8 = 20
	oidInt2 = 21
	oidInt4 = 23
)

// binaryOK reports whether the server can send the table's rows in binary:
// PostgreSQL 14 or later, and every column's type can be sent so.
func binaryOK(ctx context.Context, db *sql.DB, table uint32) (bool, error) {
	var ok bool
	err := db.QueryRowContext(ctx, `SELECT current_setting('server_version_num')::int >= 140000 AND NOT EXISTS (
		SELECT 1 FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid LEFT JOIN pg_type e ON e.oid = t.typelem AND t.typlen = -1
		WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped
			AND (t.typsend::oid = 0 OR t.typtype = 'c' OR e.oid IS NOT NULL AND (e.typsend::oid = 0 OR e.typtype = 'c')))`,
		int64(table)).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("sqlsource: logical decoding: %w", err)
	}
	return ok, nil
}

// binaryKey reads an integer key sent in binary (big-endian, two's
// complement) as a column of type typ.
func binaryKey(typ uint32, b []byte) (int64, bool) {
	switch {
	case typ == oidInt8 && len(b) == 8:
		return int64(binary.BigEndian.Uint64(b)), true
	case typ == oidInt4 && len(b) == 4:
		return int64(int32(binary.BigEndian.Uint32(b))), true
	case typ == oidInt2 && len(b) == 2:
		return int64(int16(binary.BigEndian.Uint16(b))), true
	}
	return 0, false
}
