//go:build linux

package sqlsource

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/freshmap/sitemap/adapters/sqlsource/internal/cputime"
)

// BenchmarkPGLogicalDecodeCPU measures what decoding a change costs the
// server's walsender and the consumer, apart from the writes: per round,
// 8 writers commit 40,000 single-row updates of stock and updated_at (an
// insignificant change, REPLICA IDENTITY FULL: the old row and the new)
// to a table shaped as the write-cost benchmark's, then a feed reads them
// all from the slot; the rounds turn between pgoutput's text format and
// its binary one, which goes first in every other iteration. It reports, per format, the walsender's CPU (its
// process's, from /proc) and this process's (the feed's reading and
// decoding) per change.
func BenchmarkPGLogicalDecodeCPU(b *testing.B) {
	const rows, writes, writers = 100_000, 40_000, 8
	tb := newLRTable(b, 0, "slug")
	tb.exec(b, "DROP TABLE "+tb.cfg.Table,
		"CREATE TABLE "+tb.cfg.Table+" (id BIGINT PRIMARY KEY, slug VARCHAR(64) NOT NULL, stock INTEGER NOT NULL, updated_at TIMESTAMPTZ NOT NULL, published BOOLEAN NOT NULL)",
		fmt.Sprintf("INSERT INTO %s SELECT g, 'p-' || g, 10, now(), true FROM generate_series(1, %d) g", tb.cfg.Table, rows))
	f, err := newPGLogical(context.Background(), tb.db, tb.cfg) // the slot, from here on
	if err != nil {
		b.Fatal(err)
	}
	r := newReceived()
	stop := consume(f, r)
	waitFor(b, 20*time.Second, "the slot", func() bool { r.mu.Lock(); defer r.mu.Unlock(); return r.resyncs > 0 })
	stop()
	f.close()
	var wal, own [2]time.Duration
	var changes [2]int
	round := 0
	for b.Loop() {
		for i := range 2 {
			text := (i + round/2) % 2 // each format first in every other iteration
			round++
			tb.update(b, writers, writes, fmt.Sprintf("stock = %d, updated_at = now()", round))
			cfg := tb.cfg
			cfg.text = text == 1
			before, err := cputime.Self()
			if err != nil {
				b.Fatal(err)
			}
			f, err := newPGLogical(context.Background(), tb.db, cfg)
			if err != nil {
				b.Fatal(err)
			}
			r := newReceived()
			stop := consume(f, r)
			r.waitAll(b, 1, writes, 2*time.Minute)
			var pid int
			if err := tb.db.QueryRow("SELECT active_pid FROM pg_replication_slots WHERE slot_name = $1", tb.cfg.Slot).Scan(&pid); err != nil {
				b.Fatal(err)
			}
			walsender, err := cputime.Proc(pid)
			if err != nil {
				b.Fatal(err)
			}
			after, err := cputime.Self()
			if err != nil {
				b.Fatal(err)
			}
			wal[text] += walsender
			own[text] += after - before
			changes[text] += writes
			stop()
			f.close()
			time.Sleep(200 * time.Millisecond) // the walsender lets the slot go
		}
	}
	for i, name := range []string{"binary", "text"} {
		b.ReportMetric(float64(wal[i].Microseconds())/float64(changes[i]), "walsender-µs/change-"+name)
		b.ReportMetric(float64(own[i].Microseconds())/float64(changes[i]), "consumer-µs/change-"+name)
	}
}
