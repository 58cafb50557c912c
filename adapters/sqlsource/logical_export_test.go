package sqlsource

import (
	"database/sql"
	"testing"

	"github.com/freshmap/sitemap/internal/tcpproxy"
)

// For the tests of package sqlsource_test that run Watch on logical
// decoding: the test server's DSN, or a skip that says why (a server
// without wal_level = logical uses the change table, tested there), and
// a connection to it through a proxy the test can cut.

func LogicalDSN(t testing.TB) string { return logicalDSN(t) }

func ProxiedDB(t *testing.T, dsn string) (*tcpproxy.Proxy, *sql.DB) { return proxiedDB(t, dsn) }
