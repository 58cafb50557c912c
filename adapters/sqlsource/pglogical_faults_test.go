package sqlsource

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/freshmap/sitemap/internal/testkit"
)

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

// TestPGLogicalTakeoverAfterCrash: the replica holding the slot loses
// its connection without a word (its process killed, its network gone);
// the waiting one takes over and delivers what was committed since, and
// the first, back, waits in its turn.
func TestPGLogicalTakeoverAfterCrash(t *testing.T) {
	tb := newLRTable(t, 0)
	proxy, dbA := proxiedDB(t, tb.dsn)
	a := tb.feed(t, dbA)
	ra := newReceived()
	stopA := consume(a, ra)
	waitFor(t, 5*time.Second, "the first feed holds the slot", func() bool { l, _ := a.lag(context.Background()); return l.Holding })
	b := tb.feed(t, tb.db)
	rb := newReceived()
	stopB := consume(b, rb)
	busy := func(f *pgLogical) func() bool {
		return func() bool {
			l, _ := f.lag(context.Background())
			return errors.Is(l.Failure, errSlotBusy) && !l.Holding
		}
	}
	waitFor(t, 5*time.Second, "the second feed finds the slot busy", busy(b))
	insert := func(lo, hi int) {
		for k := lo; k <= hi; k++ {
			tb.exec(t, fmt.Sprintf("INSERT INTO %s VALUES (%d, 'p', 1)", tb.cfg.Table, k))
		}
	}
	insert(1, 50)
	ra.waitAll(t, 1, 50, 10*time.Second)
	proxy.Cut()
	crashed := time.Now()
	insert(51, 100)
	rb.waitAll(t, 51, 100, 10*time.Second)
	t.Logf("the second feed delivered the 50 changes since the crash %v after it", time.Since(crashed))
	proxy.Restore()
	waitFor(t, 5*time.Second, "the first feed, back, finds the slot busy", busy(a))
	insert(101, 110)
	rb.waitAll(t, 101, 110, 10*time.Second)
	if n, _ := ra.missing(51, 110); n != 60 {
		t.Errorf("the first feed delivered %d changes it could not have read", 60-n)
	}
	for _, stop := range []func() error{stopA, stopB} {
		if err := stop(); err != nil {
			t.Error(err)
		}
	}
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
