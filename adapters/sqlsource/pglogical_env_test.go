package sqlsource

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/tcpproxy"
	"github.com/freshmap/sitemap/internal/testenv"

	_ "github.com/jackc/pgx/v5/stdlib"
)

// The logical decoding tests run against the test PostgreSQL
// (SITEMAP_TEST_POSTGRES_DSN), each on a table, publication and slot of
// its own with a random name, all dropped when it ends: a slot left
// behind would retain WAL for everybody.

// logicalDSN returns the test server's DSN, or stops t: a skip, or a
// failure when services are required (internal/testenv). A server whose
// wal_level is not logical cannot decode: its tests say so, and the
// change table is what such a server uses.
func logicalDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv("SITEMAP_TEST_POSTGRES_DSN")
	if dsn == "" {
		testenv.Unavailable(t, "PostgreSQL", "SITEMAP_TEST_POSTGRES_DSN is not set; set it to a DSN such as postgres://postgres@127.0.0.1:5432/test?sslmode=disable")
	}
	db := openPgx(t, dsn)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	var level string
	if err := db.QueryRowContext(ctx, "SHOW wal_level").Scan(&level); err != nil {
		testenv.Unavailable(t, "PostgreSQL", "no answer at SITEMAP_TEST_POSTGRES_DSN: "+err.Error())
	}
	if level != "logical" {
		// A server without logical decoding is one the change table
		// serves, not a missing service; but in CI, .ci/run sets
		// wal_level and says when it could not (SITEMAP_TEST_POSTGRES_LOGICAL=off).
		why := "the server's wal_level is " + level + ", not logical: it cannot decode, and uses the change table (tested there)"
		switch {
		case !testenv.Required():
			testenv.Unavailable(t, "PostgreSQL logical decoding", why) // skipped, and listed in the summary
		case os.Getenv("SITEMAP_TEST_POSTGRES_LOGICAL") != "off":
			t.Fatalf("%s; set wal_level = logical, or SITEMAP_TEST_POSTGRES_LOGICAL=off", why)
		}
		t.Skip(why)
	}
	return dsn
}

// openPgx opens dsn with pgx's database/sql driver, closed when t ends.
func openPgx(t testing.TB, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// lrTable is a table of products with its logical decoding configuration.
type lrTable struct {
	dsn string
	db  *sql.DB // the writers'
	cfg logicalConfig
}

// newLRTable makes a table with rows 1 to rows and a configuration whose
// slot and publication take the table's random name; they and the table
// are dropped when t ends (after the feeds opened later are closed).
func newLRTable(t testing.TB, rows int, significant ...string) *lrTable {
	t.Helper()
	dsn := logicalDSN(t)
	db := openPgx(t, dsn)
	b := make([]byte, 6)
	rand.Read(b)
	name := "lr_" + hex.EncodeToString(b)
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, "CREATE TABLE "+name+" (id bigint PRIMARY KEY, slug text NOT NULL, stock int NOT NULL DEFAULT 0)"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.ExecContext(context.Background(), "DROP TABLE IF EXISTS "+name) })
	if rows > 0 {
		if _, err := db.ExecContext(ctx, "INSERT INTO "+name+" SELECT g, 'p' || g, 10 FROM generate_series(1, $1::int) g", rows); err != nil {
			t.Fatal(err)
		}
	}
	tb := &lrTable{dsn: dsn, db: db, cfg: logicalConfig{Table: name, Key: "id", Significant: significant, Slot: name, Publication: name}}
	t.Cleanup(func() {
		// The walsender of a feed just closed may hold the slot a moment.
		var err error
		for range 100 {
			if err = dropLogical(context.Background(), db, tb.cfg); err == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Errorf("drop the slot and publication: %v", err)
	})
	return tb
}

// exec runs statements, each in a transaction of its own.
func (tb *lrTable) exec(t testing.TB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := tb.db.ExecContext(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// update has writers goroutines update rows 1 to n, a row a statement
// (row k by the writer k mod writers), each setting set, an UPDATE's SET
// list such as "stock = 2"; an error fails t.
func (tb *lrTable) update(t testing.TB, writers, n int, set string) {
	t.Helper()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for k := 1 + w; k <= n; k += writers {
				if _, err := tb.db.Exec(fmt.Sprintf("UPDATE %s SET %s WHERE id = %d", tb.cfg.Table, set, k)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// feed opens a feed on db (the test's own, or one through a proxy), closed
// when t ends.
func (tb *lrTable) feed(t testing.TB, db *sql.DB) *pgLogical {
	t.Helper()
	cfg := tb.cfg
	cfg.Logger = slog.New(slog.NewTextHandler(tLog{t}, nil))
	f, err := newPGLogical(context.Background(), db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.close() })
	return f
}

// tLog writes a feed's log to its test's.
type tLog struct{ t testing.TB }

func (l tLog) Write(p []byte) (int, error) { l.t.Logf("%s", p); return len(p), nil }

// received is what a consumer got: the changes of each key in order.
type received struct {
	mu      sync.Mutex
	changes map[int64][]rowChange
	resyncs int
}

func newReceived() *received { return &received{changes: map[int64][]rowChange{}} }

func (r *received) add(cs []rowChange) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range cs {
		r.changes[c.Key] = append(r.changes[c.Key], c)
	}
}

func (r *received) has(key int64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.changes[key]) > 0
}

// last returns the last change received for key.
func (r *received) last(key int64) (rowChange, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	cs := r.changes[key]
	if len(cs) == 0 {
		return rowChange{}, false
	}
	return cs[len(cs)-1], true
}

// missing returns how many of keys lo to hi were not received, and the first.
func (r *received) missing(lo, hi int64) (int, int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n, first := 0, int64(0)
	for k := lo; k <= hi; k++ {
		if len(r.changes[k]) == 0 {
			if n == 0 {
				first = k
			}
			n++
		}
	}
	return n, first
}

// waitAll waits until every key from lo to hi was received.
func (r *received) waitAll(t testing.TB, lo, hi int64, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		n, first := r.missing(lo, hi)
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of keys %d to %d not received within %v, the first %d", n, lo, hi, within, first)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// consume reads f into r, acknowledging each batch once recorded, until
// the returned stop is called; stop returns the first error other than the
// feed's end.
func consume(f *pgLogical, r *received) (stop func() error) {
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		for {
			cs, pos, err := f.next(ctx)
			if errors.Is(err, errResync) {
				r.mu.Lock()
				r.resyncs++
				r.mu.Unlock()
				err = nil
			}
			if err != nil {
				if ctx.Err() != nil || errors.Is(err, errFeedClosed) {
					err = nil
				}
				errc <- err
				return
			}
			r.add(cs)
			if err := f.ack(ctx, pos); err != nil && ctx.Err() == nil {
				errc <- err
				return
			}
		}
	}()
	return func() error { cancel(); return <-errc }
}

// waitFor polls cond until it holds, or fails t after within.
func waitFor(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", within, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// proxiedDB opens the test server through a TCP proxy the test can cut.
func proxiedDB(t *testing.T, dsn string) (*tcpproxy.Proxy, *sql.DB) {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil || u.Host == "" {
		t.Skipf("the PostgreSQL DSN is not a URL with a host: %v", err)
	}
	p := tcpproxy.New(t, u.Host)
	u.Host = p.Addr()
	return p, openPgx(t, u.String())
}
