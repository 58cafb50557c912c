package sqlsource

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pglogrepl"
)

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

// TestPGLogicalLag: the lag counts what is read and not acknowledged.
func TestPGLogicalLag(t *testing.T) {
	tb := newLRTable(t, 0)
	f := tb.feed(t, tb.db)
	ctx := context.Background()
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	// The new slot's resync is taken and acknowledged first: a change
	// decoded before it was taken would come with it and be acknowledged
	// with it, leaving nothing behind to measure.
	if _, p, err := f.next(cctx); !errors.Is(err, errResync) {
		t.Fatalf("first next of a new slot: %v, want a resync", err)
	} else if err := f.ack(ctx, p); err != nil {
		t.Fatal(err)
	}
	tb.exec(t, "INSERT INTO "+tb.cfg.Table+" VALUES (1, 'p', 1)")
	var pos feedPos
	for r := newReceived(); !r.has(1); {
		cs, p, err := f.next(cctx)
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
	if err := f.ack(ctx, pos); err != nil {
		t.Fatal(err)
	}
	// The bytes behind depend on everybody's writes to the server: what
	// the ack moves is the slot's confirmed position.
	waitFor(t, 5*time.Second, "the slot confirms the ack", func() bool {
		var confirmed string
		tb.db.QueryRow("SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = $1", tb.cfg.Slot).Scan(&confirmed)
		at, _ := pglogrepl.ParseLSN(confirmed)
		l, err = f.lag(ctx)
		return err == nil && l.Time == 0 && feedPos(at) >= pos
	})
}

// TestPGLogicalFromSource: a Source's feed takes its table, key and
// significant columns, and the default names.
func TestPGLogicalFromSource(t *testing.T) {
	tb := newLRTable(t, 3)
	src, err := New(tb.db, Config{Table: tb.cfg.Table, Key: "id", LocTemplate: "https://example.com/p/{slug}",
		Summary: true, Significant: []string{"slug"}, WatchInterval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	f, err := src.newLogicalFeed(ctx, "", "")
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		f.close()
		waitFor(t, 10*time.Second, "the slot and publication removed", func() bool { return src.removeLogicalFeed(ctx, "", "") == nil })
		var n int
		tb.db.QueryRow("SELECT count(*) FROM pg_replication_slots WHERE slot_name = $1", "sqlsource_"+tb.cfg.Table).Scan(&n)
		if n != 0 {
			t.Error("the default slot is still there")
		}
	}()
	if f.cfg.Slot != "sqlsource_"+tb.cfg.Table || f.cfg.Publication != f.cfg.Slot || f.cfg.Wait != 100*time.Millisecond {
		t.Errorf("slot %q, publication %q, wait %v", f.cfg.Slot, f.cfg.Publication, f.cfg.Wait)
	}
	r := newReceived()
	stop := consume(f, r)
	tb.exec(t, "UPDATE "+tb.cfg.Table+" SET stock = 0 WHERE id = 1", "UPDATE "+tb.cfg.Table+" SET slug = 'x' WHERE id = 2")
	r.waitAll(t, 1, 2, 10*time.Second)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if c, _ := r.last(1); c.Significant {
		t.Error("a stock update is significant")
	}
	if c, _ := r.last(2); !c.Significant {
		t.Error("a rename is not significant")
	}
}

// TestPGLogicalCaughtUp: the feed has caught up with a position once an
// ack reaches it, even with later changes queued and delivered (a steady
// stream of commits, read while the consumer waits between batches), or
// once the server decoded past it with nothing queued or unacknowledged;
// never while a resync waits to be taken or acknowledged.
func TestPGLogicalCaughtUp(t *testing.T) {
	const target = feedPos(1000)
	later := []rowChange{{Key: 7}}
	for _, c := range []struct {
		name string
		f    *pgLogical
		want bool
	}{
		{"nothing read yet", &pgLogical{}, false},
		{"acked short of target, later changes queued", &pgLogical{holding: true, seen: 2000, acked: 900, delivered: 900, queue: later, queueEnd: 1100}, false},
		{"acked short of target, delivered past it", &pgLogical{holding: true, seen: 2000, acked: 900, delivered: 1100}, false},
		{"acked past target, later changes queued", &pgLogical{holding: true, seen: 2000, acked: 1100, delivered: 1100, queue: later, queueEnd: 1200}, true},
		{"acked past target, later changes delivered", &pgLogical{holding: true, seen: 2000, acked: 1100, delivered: 1300}, true},
		{"acked past target, not holding the slot now", &pgLogical{acked: 1100, delivered: 1100}, true},
		{"decoded past target, nothing of the table", &pgLogical{holding: true, seen: 1000, acked: 500, delivered: 500}, true},
		{"decoded short of target", &pgLogical{holding: true, seen: 999, acked: 500, delivered: 500}, false},
		{"a resync queued (a new slot)", &pgLogical{holding: true, seen: 2000, acked: 1100, delivered: 1100, resync: true}, false},
		{"a resync delivered, not acknowledged", &pgLogical{holding: true, seen: 2000, acked: 1100, delivered: 1200, told: &told{pos: 1200}}, false},
	} {
		if got := c.f.caughtUp(target); got != c.want {
			t.Errorf("%s: caughtUp = %v, want %v", c.name, got, c.want)
		}
	}
}
