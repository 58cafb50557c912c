package sqlsource

import (
	"database/sql"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// Dialect names the SQL dialect of a database, which decides how bind
// parameters are written. The queries are otherwise portable. The zero
// value asks New to detect the dialect from the driver.
type Dialect string

// The dialects sqlsource knows.
const (
	SQLite   Dialect = "sqlite"   // placeholders ?
	Postgres Dialect = "postgres" // placeholders $1, $2, …
	MySQL    Dialect = "mysql"    // MySQL and MariaDB: placeholders ?
)

// detectDialect guesses the dialect from the package path of db's driver:
// modernc.org/sqlite, mattn/go-sqlite3 and other "sqlite" drivers are
// SQLite, jackc/pgx and lib/pq are Postgres, go-sql-driver/mysql is MySQL.
func detectDialect(db *sql.DB) (Dialect, error) {
	t := reflect.TypeOf(db.Driver())
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return "", fmt.Errorf("sqlsource: cannot detect the dialect of a nil driver; set Config.Dialect")
	}
	path := strings.ToLower(t.PkgPath())
	switch {
	case strings.Contains(path, "sqlite"):
		return SQLite, nil
	case strings.Contains(path, "pgx"), strings.HasSuffix(path, "lib/pq"):
		return Postgres, nil
	case strings.Contains(path, "mysql"):
		return MySQL, nil
	}
	return "", fmt.Errorf("sqlsource: cannot detect the dialect of driver %s; set Config.Dialect", t.String())
}

func (d Dialect) valid() bool {
	return d == SQLite || d == Postgres || d == MySQL
}

// placeholder returns the i-th (from 1) bind parameter.
func (d Dialect) placeholder(i int) string {
	if d == Postgres {
		return "$" + strconv.Itoa(i)
	}
	return "?"
}

// Rebind rewrites the ? placeholders of query into the dialect's form: for
// Postgres the n-th ? becomes $n, for the others query is returned as is.
// A ? inside a '…' string, a "…" identifier or a -- comment is left alone.
// A Postgres query that already holds $1 is returned as is, so a query that
// uses a jsonb ? operator can be written with $1 and $2 instead.
func (d Dialect) Rebind(query string) string {
	return d.rebind(query, "")
}

// rebind is Rebind, appending suffix (such as a cast) to each $n it writes.
func (d Dialect) rebind(query, suffix string) string {
	if d != Postgres || !strings.Contains(query, "?") || strings.Contains(query, "$1") {
		return query
	}
	var b strings.Builder
	b.Grow(len(query) + 8)
	n := 0
	var quote byte // the quote we are inside, or 0
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0 // a doubled quote reopens at once, which is the same thing
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '-' && i+1 < len(query) && query[i+1] == '-':
			end := strings.IndexByte(query[i:], '\n')
			if end < 0 {
				end = len(query) - i
			}
			b.WriteString(query[i : i+end])
			i += end - 1
			continue
		case c == '?':
			n++
			b.WriteString(d.placeholder(n))
			b.WriteString(suffix)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
