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
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/tcpproxy"
	"github.com/freshmap/sitemap/internal/testenv"
	"github.com/freshmap/sitemap/internal/testkit"

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

// TestPGLogicalChanges: inserts, updates of a significant and of another
// column, deletes and a key moved arrive, with their commit times, once
// committed and in commit order; an uncommitted transaction does not.
func TestPGLogicalChanges(t *testing.T) {
	tb := newLRTable(t, 5, "slug")
	f := tb.feed(t, tb.db)
	r := newReceived()
	stop := consume(f, r)
	defer func() {
		if err := stop(); err != nil {
			t.Error(err)
		}
	}()
	tx, err := tb.db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec("INSERT INTO " + tb.cfg.Table + " VALUES (100, 'open', 1)"); err != nil {
		t.Fatal(err)
	}
	before := time.Now().Add(-time.Second)
	tb.exec(t,
		"INSERT INTO "+tb.cfg.Table+" VALUES (6, 'p6', 1)",
		"UPDATE "+tb.cfg.Table+" SET stock = stock - 1 WHERE id = 1",
		"UPDATE "+tb.cfg.Table+" SET slug = 'renamed' WHERE id = 2",
		"DELETE FROM "+tb.cfg.Table+" WHERE id = 3",
		"UPDATE "+tb.cfg.Table+" SET id = 7 WHERE id = 4",
		"UPDATE "+tb.cfg.Table+" SET slug = slug WHERE id = 5",
	)
	r.waitAll(t, 1, 7, 10*time.Second)
	want := map[int64]rowChange{
		1: {Key: 1}, 2: {Key: 2, Significant: true}, 3: {Key: 3, Significant: true, Deleted: true},
		4: {Key: 4, Significant: true, Deleted: true}, 5: {Key: 5}, 6: {Key: 6, Significant: true}, 7: {Key: 7, Significant: true},
	}
	for k, w := range want {
		got, _ := r.last(k)
		if got.Significant != w.Significant || got.Deleted != w.Deleted {
			t.Errorf("key %d: %+v, want %+v", k, got, w)
		}
		if got.Committed.Before(before) || got.Committed.After(time.Now()) {
			t.Errorf("key %d committed at %v, not during the test", k, got.Committed)
		}
	}
	if r.has(100) {
		t.Error("a change of an open transaction was delivered")
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	r.waitAll(t, 100, 100, 10*time.Second)
	c1, _ := r.last(1)
	c6, _ := r.last(6)
	c100, _ := r.last(100)
	if c6.Committed.After(c1.Committed) || c100.Committed.Before(c6.Committed) {
		t.Errorf("commit times out of order: 6 at %v, 1 at %v, 100 at %v", c6.Committed, c1.Committed, c100.Committed)
	}
	resyncs := func() int { r.mu.Lock(); defer r.mu.Unlock(); return r.resyncs }
	if n := resyncs(); n != 1 {
		t.Errorf("%d resyncs before a TRUNCATE, want 1 (the slot was made new)", n)
	}
	tb.exec(t, "TRUNCATE "+tb.cfg.Table)
	waitFor(t, 10*time.Second, "a TRUNCATE tells a resync", func() bool { return resyncs() == 2 })
}

// TestPGLogicalResync: a new slot's feed first says that every row may
// have changed, and says it again until that is acknowledged; with
// nothing to deliver, next returns empty after the wait.
func TestPGLogicalResync(t *testing.T) {
	tb := newLRTable(t, 0)
	tb.cfg.Wait = 200 * time.Millisecond
	f := tb.feed(t, tb.db)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, pos, err := f.next(ctx)
	if !errors.Is(err, errResync) || pos == 0 {
		t.Fatalf("first next of a new slot: %v at %v, want a resync", err, pos)
	}
	tb.exec(t, "INSERT INTO "+tb.cfg.Table+" VALUES (1, 'p', 1)")
	time.Sleep(100 * time.Millisecond)
	if cs, again, err := f.next(ctx); !errors.Is(err, errResync) || again != pos || len(cs) != 0 {
		t.Fatalf("next before the ack: %d changes, %v at %v; want the same resync at %v", len(cs), err, again, pos)
	}
	if err := f.ack(ctx, pos); err != nil {
		t.Fatal(err)
	}
	cs, p, err := f.next(ctx)
	for err == nil && len(cs) == 0 { // the wait may end before the insert is decoded
		cs, p, err = f.next(ctx)
	}
	if err != nil || len(cs) != 1 || cs[0].Key != 1 || p <= pos {
		t.Fatalf("after the ack: %+v at %v, %v; want key 1 past %v", cs, p, err, pos)
	}
	if err := f.ack(ctx, p); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	cs, last, err := f.next(ctx)
	if err != nil || len(cs) != 0 || last != p {
		t.Fatalf("with nothing to deliver: %+v at %v, %v; want none at %v", cs, last, err, p)
	}
	if d := time.Since(start); d < 150*time.Millisecond || d > 5*time.Second {
		t.Errorf("next waited %v, want about 200 ms", d)
	}
}

// TestPGLogicalSetup: setup makes the identity FULL for Significant and
// its removal makes it DEFAULT again; mistakes are refused with what to do.
func TestPGLogicalSetup(t *testing.T) {
	tb := newLRTable(t, 0, "slug")
	identity := func() string {
		var id string
		if err := tb.db.QueryRow("SELECT relreplident::text FROM pg_class WHERE oid = $1::regclass", tb.cfg.Table).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	f := tb.feed(t, tb.db)
	if got := identity(); got != "f" {
		t.Errorf("replica identity %q with Significant, want f (FULL)", got)
	}
	f.close()
	waitFor(t, 10*time.Second, "drop the slot", func() bool { return dropLogical(context.Background(), tb.db, tb.cfg) == nil })
	if got := identity(); got != "d" {
		t.Errorf("replica identity %q after dropLogical, want d (DEFAULT)", got)
	}
	var slots int
	tb.db.QueryRow("SELECT count(*) FROM pg_replication_slots WHERE slot_name = $1", tb.cfg.Slot).Scan(&slots)
	if slots != 0 {
		t.Error("the slot is still there")
	}

	tb.exec(t, "CREATE TABLE "+tb.cfg.Table+"_uuid (id uuid PRIMARY KEY)", "CREATE PUBLICATION "+tb.cfg.Table+"_other FOR TABLE "+tb.cfg.Table+"_uuid")
	defer tb.exec(t, "DROP PUBLICATION "+tb.cfg.Table+"_other", "DROP TABLE "+tb.cfg.Table+"_uuid")
	for name, cfg := range map[string]logicalConfig{
		"uuid key":       {Table: tb.cfg.Table + "_uuid", Key: "id"},
		"no table":       {Table: tb.cfg.Table + "_none", Key: "id"},
		"no column":      {Table: tb.cfg.Table, Key: "sku"},
		"no significant": {Table: tb.cfg.Table, Key: "id", Significant: []string{"title"}},
		"other pub":      {Table: tb.cfg.Table, Key: "id", Publication: tb.cfg.Table + "_other", Slot: tb.cfg.Slot},
		"bad slot":       {Table: tb.cfg.Table, Key: "id", Slot: "Products-Slot"},
		"expression":     {Table: "(SELECT 1) AS t", Key: "id"},
	} {
		t.Run(name, func(t *testing.T) {
			f, err := newPGLogical(context.Background(), tb.db, cfg)
			if err == nil {
				f.close()
				t.Fatal("no error")
			}
			t.Log(err)
		})
	}
	var n int
	tb.db.QueryRow("SELECT count(*) FROM pg_replication_slots WHERE slot_name LIKE $1", tb.cfg.Table+"%").Scan(&n)
	if n != 0 {
		t.Errorf("%d slots made by refused configurations", n)
	}
}

// TestPGLogicalRedeliver: a consumer that stops mid-stream without
// acknowledging gets, on its next start, every change after the last
// position it acknowledged, and none before.
func TestPGLogicalRedeliver(t *testing.T) {
	tb := newLRTable(t, 0)
	f := tb.feed(t, tb.db)
	ctx := context.Background()
	insert := func(lo, hi int) {
		for k := lo; k <= hi; k++ {
			tb.exec(t, fmt.Sprintf("INSERT INTO %s VALUES (%d, 'p', 1)", tb.cfg.Table, k))
		}
	}
	first := newReceived()
	nextInto := func(r *received) feedPos {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		cs, pos, err := f.next(cctx)
		if errors.Is(err, errResync) {
			err = f.ack(ctx, pos) // the new slot's: nothing to rebuild here
		}
		if err != nil {
			t.Fatal(err)
		}
		r.add(cs)
		return pos
	}
	insert(1, 50)
	var acked feedPos
	for n, _ := first.missing(1, 50); n > 0; n, _ = first.missing(1, 50) {
		acked = nextInto(first)
	}
	if err := f.ack(ctx, acked); err != nil {
		t.Fatal(err)
	}
	insert(51, 100)
	for n, _ := first.missing(51, 100); n == 50; n, _ = first.missing(51, 100) {
		nextInto(first) // delivered, never acknowledged
	}
	if err := f.ack(ctx, acked+1<<40); err == nil {
		t.Error("an ack past what was delivered was taken")
	}
	f.close()

	again := newReceived()
	stop := consume(tb.feed(t, tb.db), again)
	again.waitAll(t, 51, 100, 10*time.Second)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if n, _ := again.missing(1, 50); n != 50 {
		t.Errorf("%d acknowledged changes delivered again", 50-n)
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

// TestPGLogicalCut: the feed's connection cut for 10 s while writers go
// on; once it heals, every change committed is delivered within 2 s.
func TestPGLogicalCut(t *testing.T) {
	if testing.Short() {
		t.Skip("takes 12 s")
	}
	tb := newLRTable(t, 0)
	proxy, db := proxiedDB(t, tb.dsn)
	f := tb.feed(t, db)
	r := newReceived()
	stop := consume(f, r)
	key := int64(0)
	write := func(d time.Duration) {
		for end := time.Now().Add(d); time.Now().Before(end); {
			key++
			tb.exec(t, fmt.Sprintf("INSERT INTO %s VALUES (%d, 'p', 1)", tb.cfg.Table, key))
			time.Sleep(5 * time.Millisecond)
		}
	}
	write(time.Second)
	r.waitAll(t, 1, key, 5*time.Second)
	proxy.Cut()
	write(10 * time.Second)
	cutLast := key
	proxy.Restore()
	healed := time.Now()
	r.waitAll(t, 1, cutLast, 2*time.Second)
	t.Logf("%d changes committed during the cut, all delivered %v after it healed", cutLast, time.Since(healed))
	write(500 * time.Millisecond)
	r.waitAll(t, 1, key, 5*time.Second)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	l, err := f.lag(context.Background())
	if err != nil || !l.Holding || !l.Active || l.Failure != nil {
		t.Errorf("lag after healing = %+v, %v; want holding and active", l, err)
	}
}

// TestPGLogicalSilent: a connection on which the server falls silent
// (replies held back by the proxy, as by a dropped route) is given up and
// made again, and every change committed meanwhile is delivered.
func TestPGLogicalSilent(t *testing.T) {
	if testing.Short() {
		t.Skip("takes 10 s")
	}
	defer func(d time.Duration) { statusIdle = d }(statusIdle)
	statusIdle = 500 * time.Millisecond // given up after 1.5 s
	tb := newLRTable(t, 0)
	proxy, db := proxiedDB(t, tb.dsn)
	logs := &testkit.SyncBuffer{}
	cfg := tb.cfg
	cfg.Logger = slog.New(slog.NewTextHandler(logs, nil))
	f, err := newPGLogical(context.Background(), db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer f.close()
	r := newReceived()
	stop := consume(f, r)
	tb.exec(t, "INSERT INTO "+tb.cfg.Table+" VALUES (1, 'p', 1)")
	r.waitAll(t, 1, 1, 5*time.Second)
	proxy.Slow(4 * time.Second)
	for k := 2; k <= 50; k++ {
		tb.exec(t, fmt.Sprintf("INSERT INTO %s VALUES (%d, 'p', 1)", tb.cfg.Table, k))
		time.Sleep(50 * time.Millisecond)
	}
	waitFor(t, 10*time.Second, "the silent connection given up", func() bool {
		return strings.Contains(logs.String(), "no word from the server")
	})
	proxy.Slow(0)
	r.waitAll(t, 1, 50, 20*time.Second)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}

// TestPGLogicalTakeover: a second replica's feed waits while the first
// holds the slot, and once the first stops it delivers every change the
// first did not acknowledge.
func TestPGLogicalTakeover(t *testing.T) {
	tb := newLRTable(t, 0)
	a := tb.feed(t, tb.db)
	ra := newReceived()
	stopA := consume(a, ra)
	waitFor(t, 5*time.Second, "the first feed holds the slot", func() bool { l, _ := a.lag(context.Background()); return l.Holding })
	b := tb.feed(t, tb.db)
	rb := newReceived()
	stopB := consume(b, rb)
	waitFor(t, 5*time.Second, "the second feed finds the slot busy", func() bool {
		l, _ := b.lag(context.Background())
		return errors.Is(l.Failure, errSlotBusy) && !l.Holding && l.Active
	})
	for k := 1; k <= 100; k++ {
		tb.exec(t, fmt.Sprintf("INSERT INTO %s VALUES (%d, 'p', 1)", tb.cfg.Table, k))
	}
	ra.waitAll(t, 1, 100, 10*time.Second)
	if n, _ := rb.missing(1, 100); n != 100 {
		t.Fatalf("the waiting feed delivered %d changes", 100-n)
	}
	if err := stopA(); err != nil {
		t.Fatal(err)
	}
	a.close()
	stopped := time.Now()
	for k := 101; k <= 200; k++ {
		tb.exec(t, fmt.Sprintf("INSERT INTO %s VALUES (%d, 'p', 1)", tb.cfg.Table, k))
	}
	rb.waitAll(t, 101, 200, 10*time.Second)
	t.Logf("the second feed took over and delivered the 100 changes since %v after the first stopped", time.Since(stopped))
	if err := stopB(); err != nil {
		t.Fatal(err)
	}
	b.close()
	waitFor(t, 5*time.Second, "no feed goroutine left", func() bool {
		buf := make([]byte, 1<<20)
		return !strings.Contains(string(buf[:runtime.Stack(buf, true)]), "(*pgLogical).run")
	})
}

// TestPGLogicalBurst: 10,000 rows updated in about a second by 8 writers,
// each change of a significant column delivered.
func TestPGLogicalBurst(t *testing.T) {
	const rows, writers, perTxn = 10_000, 8, 25
	tb := newLRTable(t, rows, "slug")
	f := tb.feed(t, tb.db)
	r := newReceived()
	stop := consume(f, r)
	start := time.Now()
	var wg sync.WaitGroup
	errc := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for lo := 1 + w*perTxn; lo <= rows; lo += writers * perTxn {
				q := fmt.Sprintf("UPDATE %s SET slug = slug || 'x' WHERE id BETWEEN %d AND %d", tb.cfg.Table, lo, lo+perTxn-1)
				if _, err := tb.db.Exec(q); err != nil {
					errc <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	wrote := time.Since(start)
	close(errc)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	r.waitAll(t, 1, rows, 30*time.Second)
	t.Logf("%d updates committed in %v, all delivered %v after the first", rows, wrote, time.Since(start))
	for k := int64(1); k <= rows; k++ {
		if c, _ := r.last(k); !c.Significant || c.Deleted {
			t.Fatalf("key %d: %+v, want a significant update", k, c)
		}
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}

// TestPGLogicalLag: the lag counts what is read and not acknowledged.
func TestPGLogicalLag(t *testing.T) {
	tb := newLRTable(t, 0)
	f := tb.feed(t, tb.db)
	ctx := context.Background()
	tb.exec(t, "INSERT INTO "+tb.cfg.Table+" VALUES (1, 'p', 1)")
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var pos feedPos
	for r := newReceived(); !r.has(1); {
		cs, p, err := f.next(cctx)
		if errors.Is(err, errResync) {
			err = f.ack(ctx, p) // the new slot's
		}
		if err != nil {
			t.Fatal(err)
		}
		r.add(cs)
		pos = p
	}
	time.Sleep(50 * time.Millisecond)
	l, err := f.lag(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if l.Bytes <= 0 || l.Time < 50*time.Millisecond || !l.Holding || l.WALStatus == "" {
		t.Errorf("lag before the ack = %+v; want bytes, time, holding and a WAL status", l)
	}
	before := l.Bytes
	if err := f.ack(ctx, pos); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, "the slot confirms the ack", func() bool {
		l, err = f.lag(ctx)
		return err == nil && l.Time == 0 && l.Bytes < before
	})
}
