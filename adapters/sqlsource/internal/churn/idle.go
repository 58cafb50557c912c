package churn

import (
	"context"
	"fmt"
	"time"
)

// Idle measures what the watcher costs while nothing changes, for dur:
// the reads of the change table a second (its scans, from PostgreSQL's
// statistics, which count every reader's: the watcher is the only one
// while no load runs), and the CPU of this process and of PostgreSQL (every
// client's) in cores. With logical decoding there is no change table: its
// reads are reported as 0.
func (b *Bench) Idle(ctx context.Context, dur time.Duration) error {
	scans := func() int64 {
		var n int64
		// Statistics are sent at a transaction's end and read as a
		// snapshot: a fresh one each time.
		if _, err := b.DB.ExecContext(ctx, "SELECT pg_stat_clear_snapshot()"); err != nil {
			return 0
		}
		b.DB.QueryRowContext(ctx, "SELECT COALESCE(seq_scan, 0) + COALESCE(idx_scan, 0) FROM pg_stat_user_tables WHERE relname = $1",
			b.Table+"_sitemap_changes").Scan(&n)
		return n
	}
	// The backends send their statistics about once a second: the
	// count read is that of a second or so before, at both ends.
	scans0, start, cpu0, pg0 := scans(), time.Now(), cpuTime(), postgresCPU()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(dur):
	}
	wall := time.Since(start).Seconds()
	cpu, pg := (cpuTime()-cpu0).Seconds()/wall, postgresDelta(pg0, postgresCPU()).Seconds()/wall
	fmt.Fprintf(b.Out, "idle, %s, interval %v, for %v: %.2f reads of the change table a second; CPU in cores: this server %.4f, PostgreSQL %.4f (every client's)\n",
		b.capture, b.Every, dur, float64(scans()-scans0)/wall, cpu, pg)
	return nil
}
