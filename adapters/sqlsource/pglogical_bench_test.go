package sqlsource

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkPGLogicalWrite measures what logical decoding costs the
// application's writes: 8 concurrent writers, each write its own
// transaction, on a table of SITEMAP_BENCH_ROWS rows (default 200,000),
// in four modes, SITEMAP_BENCH_ROUNDS times over (default 2),
// alternately, since the machine is noisy:
//   - plain: no publication or slot, the table's replica identity DEFAULT;
//   - full: the same with REPLICA IDENTITY FULL, what Significant sets;
//   - logical: a feed reading the slot and acknowledging as it goes,
//     without Significant (identity DEFAULT);
//   - significant: the same with Significant (identity FULL).
//
// Operations: a stock update of a random row (insignificant), a slug
// update of a random row (significant), an insert past the last key, a
// delete from the first key on. It reports writes/s, the p99 latency of
// one write, and, with a feed, how long it then took to deliver one more
// commit (delivery-ms).
func BenchmarkPGLogicalWrite(b *testing.B) {
	rows := 200_000
	if s := os.Getenv("SITEMAP_BENCH_ROWS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("SITEMAP_BENCH_ROWS=%q: want a positive number", s)
		}
		rows = n
	}
	rounds := 2
	if s := os.Getenv("SITEMAP_BENCH_ROUNDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("SITEMAP_BENCH_ROUNDS=%q: want a positive number", s)
		}
		rounds = n
	}
	start := time.Now()
	tb := newLRTable(b, rows, "slug")
	tb.exec(b, "VACUUM ANALYZE "+tb.cfg.Table)
	b.Logf("%d rows made in %v", rows, time.Since(start).Round(time.Millisecond))
	var inserted, deleted atomic.Int64
	inserted.Store(int64(rows))
	marker := int64(0)
	table := tb.cfg.Table
	for round := range rounds {
		for _, mode := range []string{"plain", "full", "logical", "significant"} {
			b.Run(mode, func(b *testing.B) {
				identity := map[string]string{"plain": "DEFAULT", "full": "FULL", "logical": "DEFAULT", "significant": "DEFAULT"}[mode]
				tb.exec(b, "ALTER TABLE "+table+" REPLICA IDENTITY "+identity)
				var r *received
				if mode == "logical" || mode == "significant" {
					cfg := tb.cfg
					if mode == "logical" {
						cfg.Significant = nil
					}
					f, err := newPGLogical(context.Background(), tb.db, cfg)
					if err != nil {
						b.Fatal(err)
					}
					r = newReceived()
					stop := consume(f, r)
					defer func() {
						stop()
						f.close()
						for range 100 { // its walsender may hold the slot a moment
							if dropLogical(context.Background(), tb.db, cfg) == nil {
								break
							}
							time.Sleep(100 * time.Millisecond)
						}
					}()
				}
				for _, op := range []string{"stock", "slug", "insert", "delete"} {
					b.Run(op, func(b *testing.B) {
						var mu sync.Mutex
						var lat []time.Duration
						b.SetParallelism(8 / min(8, max(1, runtimeProcs())))
						b.ResetTimer()
						t0 := time.Now()
						b.RunParallel(func(pb *testing.PB) {
							rnd := rand.New(rand.NewPCG(rand.Uint64(), uint64(round)))
							mine := make([]time.Duration, 0, 1024)
							ctx := context.Background()
							for pb.Next() {
								var q string
								switch op {
								case "stock":
									q = fmt.Sprintf("UPDATE %s SET stock = stock + 1 WHERE id = %d", table, 1+rnd.IntN(rows))
								case "slug":
									q = fmt.Sprintf("UPDATE %s SET slug = 's%d' WHERE id = %d", table, rnd.Int64(), 1+rnd.IntN(rows))
								case "insert":
									q = fmt.Sprintf("INSERT INTO %s VALUES (%d, 'new', 1)", table, inserted.Add(1))
								case "delete":
									q = fmt.Sprintf("DELETE FROM %s WHERE id = %d", table, deleted.Add(1))
								}
								w := time.Now()
								if _, err := tb.db.ExecContext(ctx, q); err != nil {
									b.Error(err)
									return
								}
								mine = append(mine, time.Since(w))
							}
							mu.Lock()
							lat = append(lat, mine...)
							mu.Unlock()
						})
						elapsed := time.Since(t0)
						b.StopTimer()
						slices.Sort(lat)
						if len(lat) > 0 {
							b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "writes/s")
							b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
						}
						if r != nil {
							marker--
							w := time.Now()
							tb.exec(b, fmt.Sprintf("INSERT INTO %s VALUES (%d, 'marker', 1)", table, marker))
							for !r.has(marker) {
								if time.Since(w) > time.Minute {
									b.Fatal("the marker was not delivered within a minute")
								}
								time.Sleep(time.Millisecond)
							}
							b.ReportMetric(float64(time.Since(w).Microseconds())/1000, "delivery-ms")
						}
					})
				}
			})
		}
	}
}

// runtimeProcs is GOMAXPROCS, by which RunParallel multiplies its
// parallelism: 8 writers on 2 cores is a parallelism of 4.
func runtimeProcs() int { return runtime.GOMAXPROCS(0) }

// BenchmarkPGLogicalCatchUp measures how fast a feed reads what was
// committed while no replica read the slot: 8 writers commit 20,000
// single-row updates (timer stopped), then a feed starts and delivers
// them all. It reports the changes delivered per second: how soon a
// fleet that was down is fresh again.
func BenchmarkPGLogicalCatchUp(b *testing.B) {
	const rows, writes, writers = 100_000, 20_000, 8
	tb := newLRTable(b, rows)
	f, err := newPGLogical(context.Background(), tb.db, tb.cfg) // the slot, from here on
	if err != nil {
		b.Fatal(err)
	}
	f.close()
	var total time.Duration
	round := 0
	for b.Loop() {
		b.StopTimer()
		round++
		tb.update(b, writers, writes, "stock = "+strconv.Itoa(round))
		b.StartTimer()
		start := time.Now()
		f, err := newPGLogical(context.Background(), tb.db, tb.cfg)
		if err != nil {
			b.Fatal(err)
		}
		r := newReceived()
		stop := consume(f, r)
		r.waitAll(b, 1, writes, 2*time.Minute)
		total += time.Since(start)
		stop()
		f.close()
	}
	b.ReportMetric(float64(writes*b.N)/total.Seconds(), "changes/s")
}
