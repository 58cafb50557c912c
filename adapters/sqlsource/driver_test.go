package sqlsource_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A wrapping SQLite driver that counts queries and can fail mid-result, to
// watch what the Source asks of the database and to break it on purpose.

var errInjected = errors.New("injected driver failure")

type driverHooks struct {
	queries   atomic.Int64 // queries run (statements that return rows)
	execs     atomic.Int64 // other statements run
	failAfter int          // if > 0, Next fails on this row of every result

	mu        sync.Mutex
	watchRead []time.Time // when each of the watcher's reads of a change table began
}

// countingDB opens the SQLite database at dsn through the wrapping driver.
func countingDB(t testing.TB, dsn string) (*sql.DB, *driverHooks) {
	t.Helper()
	h := &driverHooks{}
	return wrapDB(t, dsn, h), h
}

// failingDB opens the SQLite database at dsn so that every result fails on
// row failAfter with errInjected.
func failingDB(t testing.TB, dsn string, failAfter int) *sql.DB {
	t.Helper()
	return wrapDB(t, dsn, &driverHooks{failAfter: failAfter})
}

func wrapDB(t testing.TB, dsn string, h *driverHooks) *sql.DB {
	t.Helper()
	plain, err := sql.Open("sqlite", dsn)
	if err != nil {
		t.Fatal(err)
	}
	drv := plain.Driver()
	plain.Close()
	db := sql.OpenDB(&wrapConnector{drv: drv, dsn: dsn, hooks: h})
	t.Cleanup(func() { db.Close() })
	return db
}

type wrapConnector struct {
	drv   driver.Driver
	dsn   string
	hooks *driverHooks
}

func (c *wrapConnector) Connect(context.Context) (driver.Conn, error) {
	conn, err := c.drv.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	return &wrapConn{Conn: conn, hooks: c.hooks}, nil
}

// Driver returns the real driver, so that the dialect is still detected.
func (c *wrapConnector) Driver() driver.Driver { return c.drv }

type wrapConn struct {
	driver.Conn
	hooks *driverHooks
}

func (c *wrapConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	c.hooks.queries.Add(1)
	if strings.Contains(query, "_sitemap_changes ORDER BY id LIMIT") {
		c.hooks.mu.Lock()
		c.hooks.watchRead = append(c.hooks.watchRead, time.Now())
		c.hooks.mu.Unlock()
	}
	rows, err := c.Conn.(driver.QueryerContext).QueryContext(ctx, query, args)
	if err != nil {
		return nil, err
	}
	return &wrapRows{Rows: rows, hooks: c.hooks}, nil
}

func (c *wrapConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	c.hooks.execs.Add(1)
	return c.Conn.(driver.ExecerContext).ExecContext(ctx, query, args)
}

type wrapRows struct {
	driver.Rows
	hooks *driverHooks
	n     int
}

func (r *wrapRows) Next(dest []driver.Value) error {
	if r.n++; r.hooks.failAfter > 0 && r.n == r.hooks.failAfter {
		return errInjected
	}
	return r.Rows.Next(dest)
}

// watchReads returns when the watcher's reads of a change table began.
func (h *driverHooks) watchReads() []time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.watchRead)
}
