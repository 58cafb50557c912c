// Package writecost measures what sqlsource's freshness costs the
// application's writes: a products table, concurrent writers by primary
// key (SQLite: one) on random rows and on the rows of one page, doing
// inserts, significant updates (the slug), insignificant updates (stock
// and updated_at) and deletes, each case run in every mode in short
// rounds, the modes interleaved (their order turning each round), so the
// machine's noise falls on all of them. It reports, per case and mode,
// the pooled throughput and p99 latency, their ratio to the first mode
// (freshness off) and the spread of that ratio over the rounds.
//
// The command internal/cmd/writecost runs it with the change table's
// modes; sqlsource's benchmark BenchmarkWriteCost adds logical decoding,
// whose feed is not exported.
package writecost

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/freshmap/sitemap/adapters/sqlsource"
)

// PageSize is the sitemap pages' size, in keys.
const PageSize = 50000

// Config is a benchmark's table and load.
type Config struct {
	DB      *sql.DB
	Dialect sqlsource.Dialect
	Rows    int64         // rows in the table (even ids 2 to 2×Rows)
	Writers int           // concurrent writers; SQLite has one
	Dur     time.Duration // how long one case runs in one mode, one round
	Rounds  int           // rounds of every mode (0: Run runs none)
	Out     io.Writer     // where the tables go
	Keep    bool          // Close leaves the table
	Settle  time.Duration // the pause before each run, for what the last one left behind
	Meter   Meter         // if set, Run also writes where each case and mode's cost went
	// TellPages has Lag's consumer told the pages that changed
	// (Invalidate), as an Invalidator without InvalidateKeys is; else the
	// keys, as a Sitemap is.
	TellPages bool
}

// Bench is a products table with its Source, installed.
type Bench struct {
	Config
	Table string
	Src   *sqlsource.Source

	runs     int64               // runs so far: each one-page insert run takes a page of its own
	inserted map[string][2]int64 // per rows, mode and round, the ids (from, count) the insert took
	taken    int64               // random-rows ids taken

	// Told counts what the consumers told (batches and pages): give it
	// to a consumer of a mode of your own.
	Told Counter
}

// Counter is an Invalidator that counts the calls (a consumer's applied
// batches that named a page) and the pages told.
type Counter struct{ batches, pages atomic.Int64 }

// Invalidate counts.
func (c *Counter) Invalidate(_ string, pages ...int64) error {
	c.batches.Add(1)
	c.pages.Add(int64(len(pages)))
	return nil
}

// Open makes the table (loading its rows) and installs the summary.
func Open(ctx context.Context, c Config) (*Bench, error) {
	if c.Dialect == sqlsource.SQLite {
		c.Writers = 1
	}
	if c.Rounds < 0 || c.Writers < 1 || c.Rows < PageSize || c.Dur <= 0 {
		return nil, fmt.Errorf("writecost: want rounds >= 0, writers >= 1, rows >= %d and a duration, not %d, %d, %d, %v",
			PageSize, c.Rounds, c.Writers, c.Rows, c.Dur)
	}
	b := &Bench{Config: c, Table: fmt.Sprintf("writecost_%d", time.Now().UnixNano()%1_000_000),
		inserted: map[string][2]int64{}}
	start := time.Now()
	if err := b.create(ctx); err != nil {
		return nil, err
	}
	fmt.Fprintf(b.Out, "%s: %d rows loaded in %v; %d writers, %v a case, %d rounds\n", b.Dialect, b.Rows,
		time.Since(start).Round(time.Millisecond), b.Writers, b.Dur, b.Rounds)
	var err error
	b.Src, err = sqlsource.New(b.DB, sqlsource.Config{Table: b.Table, Key: "id", LocTemplate: "https://shop.example.com/p/{slug}",
		LastMod: "updated_at", Filter: "published", PageSize: PageSize, KeyStart: 1, Summary: true,
		Significant: []string{"slug", "published"}, WatchInterval: 250 * time.Millisecond, Dialect: b.Dialect,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Close(ctx)
		return nil, err
	}
	start = time.Now()
	if err := b.Src.InstallSummary(ctx); err != nil {
		b.Close(ctx)
		return nil, err
	}
	fmt.Fprintf(b.Out, "InstallSummary: %v\n", time.Since(start).Round(time.Millisecond))
	return b, nil
}

// Close removes the summary and, unless Keep, the table.
func (b *Bench) Close(ctx context.Context) error {
	var err error
	if b.Src != nil {
		err = b.Src.RemoveSummary(ctx)
	}
	if !b.Keep {
		if _, e := b.DB.ExecContext(ctx, "DROP TABLE IF EXISTS "+b.Table); err == nil {
			err = e
		}
	}
	return err
}

// create makes the table: even ids 2 to 2×rows, so that inserts have
// the odd ids to take.
func (b *Bench) create(ctx context.Context) error {
	ts, boolT := "TIMESTAMP", "BOOLEAN"
	switch b.Dialect {
	case sqlsource.MySQL:
		ts = "DATETIME"
	case sqlsource.SQLite:
		ts = "TEXT"
	}
	stmts := []string{"CREATE TABLE " + b.Table + " (id BIGINT PRIMARY KEY, slug VARCHAR(64) NOT NULL, stock INTEGER NOT NULL, updated_at " + ts +
		" NOT NULL, published " + boolT + " NOT NULL)"}
	n := fmt.Sprint(b.Rows)
	switch b.Dialect {
	case sqlsource.Postgres:
		stmts = append(stmts, "INSERT INTO "+b.Table+" SELECT 2*g, 'p-' || g, 10, now(), true FROM generate_series(1, "+n+") g",
			"VACUUM ANALYZE "+b.Table)
	case sqlsource.MySQL:
		stmts = append(stmts, "INSERT INTO "+b.Table+" SELECT 2*seq, CONCAT('p-', seq), 10, UTC_TIMESTAMP(), true FROM seq_1_to_"+n)
	default:
		stmts = append(stmts, "INSERT INTO "+b.Table+" WITH RECURSIVE g(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM g WHERE x < "+n+
			") SELECT 2*x, 'p-' || x, 10, strftime('%Y-%m-%d %H:%M:%S', 'now'), 1 FROM g")
	}
	for _, q := range stmts {
		if _, err := b.DB.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q[:min(len(q), 60)], err)
		}
	}
	return nil
}

// A Mode is how much freshness a run has: Start turns it on before the
// run (untimed) and returns what turns it off after it (untimed too).
type Mode struct {
	Name  string
	Start func(ctx context.Context) (stop func(ctx context.Context) error, err error)
}

// Off is no freshness: no trigger on the table (the summary stays).
func (b *Bench) Off() Mode {
	return Mode{"off", func(ctx context.Context) (func(context.Context) error, error) {
		return func(context.Context) error { return nil }, b.DropTriggers(ctx)
	}}
}

// Triggers is the change table's triggers without a consumer: what the
// writer's own transaction pays. What the run recorded is applied after
// it, untimed.
func (b *Bench) Triggers() Mode {
	return Mode{"triggers", func(ctx context.Context) (func(context.Context) error, error) {
		if err := b.Src.InstallSummary(ctx); err != nil {
			return nil, err
		}
		return b.drain, nil
	}}
}

// On is the change table's triggers and Watch consuming.
func (b *Bench) On() Mode {
	return Mode{"on", func(ctx context.Context) (func(context.Context) error, error) {
		if err := b.Src.InstallSummary(ctx); err != nil {
			return nil, err
		}
		w, err := b.Src.Watch(ctx, &b.Told, "products")
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context) error {
			if err := b.drain(ctx); err != nil {
				w.Close()
				return err
			}
			return w.Close()
		}, nil
	}}
}

// drain applies what the change table holds, with a Watch of its own
// when none is running, and waits until it is empty.
func (b *Bench) drain(ctx context.Context) error {
	w, err := b.Src.Watch(ctx, nop{}, "products")
	if err != nil {
		return err
	}
	defer w.Close()
	for deadline := time.Now().Add(5 * time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		var n int
		if err := b.DB.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+b.Table+"_sitemap_changes").Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
	}
	return fmt.Errorf("writecost: the change table is not drained after 5 minutes")
}

// DropTriggers turns the change table's triggers off (the summary stays,
// so that InstallSummary makes the triggers alone again).
func (b *Bench) DropTriggers(ctx context.Context) error {
	name := b.Table + "_sitemap_changes"
	stmts := []string{"DROP TRIGGER IF EXISTS " + name + "_ins", "DROP TRIGGER IF EXISTS " + name + "_del", "DROP TRIGGER IF EXISTS " + name + "_upd"}
	if b.Dialect == sqlsource.Postgres {
		for i, q := range stmts {
			stmts[i] = q + " ON " + b.Table
		}
		stmts = append(stmts, "DROP TRIGGER IF EXISTS "+name+"_insdel ON "+b.Table)
	}
	for _, q := range stmts {
		if _, err := b.DB.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// A writeCase is one kind of write on one set of rows.
type writeCase struct {
	name string
	kind string // insert, delete or update
	op   func(ctx context.Context, key int64, r *rand.Rand) error
	rows string // "random rows" or "rows of one page"
}

func (b *Bench) cases() []writeCase {
	ph := func(i int) string { return Placeholder(b.Dialect, i) }
	now := map[sqlsource.Dialect]string{sqlsource.Postgres: "now()", sqlsource.MySQL: "UTC_TIMESTAMP()",
		sqlsource.SQLite: "strftime('%Y-%m-%d %H:%M:%S', 'now')"}[b.Dialect]
	exec := func(ctx context.Context, q string, args ...any) error {
		_, err := b.DB.ExecContext(ctx, q, args...)
		return err
	}
	randomRow := func(r *rand.Rand) int64 { return 2 * (1 + r.Int64N(b.Rows)) }
	pageRow := func(r *rand.Rand) int64 { return 9*PageSize + 2 + 2*r.Int64N(PageSize/2-1) }
	ins := "INSERT INTO " + b.Table + " (id, slug, stock, updated_at, published) VALUES (" + ph(1) + ", " + ph(2) + ", 1, " + now + ", true)"
	del := "DELETE FROM " + b.Table + " WHERE id = " + ph(1)
	sig := "UPDATE " + b.Table + " SET slug = " + ph(1) + ", updated_at = " + now + " WHERE id = " + ph(2)
	quiet := "UPDATE " + b.Table + " SET stock = stock + 1, updated_at = " + now + " WHERE id = " + ph(1)
	var cs []writeCase
	for _, p := range []struct {
		name string
		row  func(*rand.Rand) int64
	}{{"random rows", randomRow}, {"rows of one page", pageRow}} {
		cs = append(cs,
			writeCase{"insert, " + p.name, "insert", func(ctx context.Context, k int64, _ *rand.Rand) error {
				return exec(ctx, ins, k, fmt.Sprint("n-", k))
			}, p.name},
			writeCase{"significant update (slug), " + p.name, "update", func(ctx context.Context, _ int64, r *rand.Rand) error {
				return exec(ctx, sig, fmt.Sprint("s-", r.Int32()), p.row(r))
			}, p.name},
			writeCase{"insignificant update (stock, updated_at), " + p.name, "update", func(ctx context.Context, _ int64, r *rand.Rand) error {
				return exec(ctx, quiet, p.row(r))
			}, p.name},
			writeCase{"delete, " + p.name, "delete", func(ctx context.Context, k int64, _ *rand.Rand) error {
				return exec(ctx, del, k)
			}, p.name})
	}
	return cs
}

// Placeholder is the dialect's i-th query parameter.
func Placeholder(d sqlsource.Dialect, i int) string {
	if d == sqlsource.Postgres {
		return fmt.Sprintf("$%d", i)
	}
	return "?"
}

// run is one run of a case in one mode: the latency of each write.
type run struct {
	lat     []time.Duration
	elapsed time.Duration
	used    Usage // with Config.Meter
	batches int64 // consumer's batches told, and pages, in the run
	pages   int64
}

func (r run) rate() float64 {
	if r.elapsed <= 0 {
		return 0
	}
	return float64(len(r.lat)) / r.elapsed.Seconds()
}

func p99(lat []time.Duration) time.Duration {
	if len(lat) == 0 {
		return 0
	}
	s := slices.Clone(lat)
	slices.Sort(s)
	return s[len(s)*99/100]
}

// Run runs every case in every mode, Rounds rounds, the modes' order
// turning by one each round, and writes a table: per case and mode the
// pooled writes/s and p99, their ratio to modes[0]'s, and the least and
// most of that ratio over the rounds.
func (b *Bench) Run(ctx context.Context, modes []Mode) error {
	if b.Rounds == 0 {
		return nil
	}
	fmt.Fprintf(b.Out, "modes, in turn: %s; ratios to %s, pooled over %d rounds and the least and most of one round's\n", names(modes), modes[0].Name, b.Rounds)
	fmt.Fprintln(b.Out, "| case | mode | writes/s | × "+modes[0].Name+" | rounds (min–max) | p99 | × "+modes[0].Name+" | rounds (min–max) |")
	fmt.Fprintln(b.Out, "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
	var costs strings.Builder
	for _, c := range b.cases() {
		runs := make([][]run, len(modes)) // [mode][round]
		for round := range b.Rounds {
			for k := range modes {
				m := (round + k) % len(modes)
				r, err := b.run(ctx, c, modes[m], m, round)
				if err != nil {
					return fmt.Errorf("%s, %s: %w", c.name, modes[m].Name, err)
				}
				runs[m] = append(runs[m], r)
			}
		}
		pooled := make([]run, len(modes))
		for m := range modes {
			for _, r := range runs[m] {
				pooled[m].lat = append(pooled[m].lat, r.lat...)
				pooled[m].elapsed += r.elapsed
				pooled[m].used = pooled[m].used.add(r.used)
				pooled[m].batches += r.batches
				pooled[m].pages += r.pages
			}
			if b.Meter != nil {
				costLine(&costs, c.name, modes[m].Name, pooled[m].used, len(pooled[m].lat), pooled[m].batches, pooled[m].pages)
			}
		}
		for m, mode := range modes {
			line := fmt.Sprintf("| %s | %s | %.0f |", c.name, mode.Name, pooled[m].rate())
			if m == 0 {
				line += fmt.Sprintf(" | | %v | | |", ms(p99(pooled[0].lat)))
			} else {
				var rate, lat []float64
				for i, r := range runs[m] {
					rate = append(rate, ratio(r.rate(), runs[0][i].rate()))
					lat = append(lat, ratio(float64(p99(r.lat)), float64(p99(runs[0][i].lat))))
				}
				line += fmt.Sprintf(" %.2f× | %.2f–%.2f× | %v | %.2f× | %.2f–%.2f× |", ratio(pooled[m].rate(), pooled[0].rate()),
					slices.Min(rate), slices.Max(rate), ms(p99(pooled[m].lat)),
					ratio(float64(p99(pooled[m].lat)), float64(p99(pooled[0].lat))), slices.Min(lat), slices.Max(lat))
			}
			fmt.Fprintln(b.Out, line)
		}
	}
	if b.Meter != nil {
		fmt.Fprintln(b.Out, "\nCPU per write (µs; client: this process, writers and consumer; server: the backends serving it; walsender: "+
			"the slot's decoding) and WAL bytes per write (the cluster's), pooled; the consumer's batches that named pages, and pages told:")
		fmt.Fprintln(b.Out, "| case | mode | writes | client µs | server µs | walsender µs | WAL B | batches | pages |")
		fmt.Fprintln(b.Out, "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
		fmt.Fprint(b.Out, costs.String())
	}
	return nil
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func ms(d time.Duration) string { return d.Round(10 * time.Microsecond).String() }

// run runs c for the bench's duration in mode (the m-th), round.
func (b *Bench) run(ctx context.Context, c writeCase, mode Mode, m, round int) (run, error) {
	stop, err := mode.Start(ctx)
	if err != nil {
		return run{}, err
	}
	if b.Dialect == sqlsource.SQLite {
		// Let what the last run left behind finish first: a checkpoint.
		b.DB.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	}
	time.Sleep(b.Settle)
	// Inserts take fresh ids: odd ones spread over the table, or those of
	// a new page past its end, one for each run; deletes remove what the
	// insert of the same rows, mode and round inserted.
	key := c.rows + fmt.Sprint(m, "/", round)
	var keyOf func(i int64) int64
	limit := int64(1 << 62)
	switch c.kind {
	case "insert":
		if c.rows == "random rows" {
			base := b.taken
			keyOf = func(i int64) int64 { return 2*(((base+i)*7919)%b.Rows) + 1 }
			limit = b.Rows - base
		} else {
			first := (2*b.Rows/PageSize+2+b.runs)*PageSize + 1
			b.runs++
			keyOf = func(i int64) int64 { return first + i }
			limit = PageSize
		}
	case "delete":
		from, n := b.inserted[key][0], b.inserted[key][1]
		if c.rows == "random rows" {
			keyOf = func(i int64) int64 { return 2*(((from+i)*7919)%b.Rows) + 1 }
		} else {
			keyOf = func(i int64) int64 { return from + i }
		}
		limit = n
	}
	var next atomic.Int64
	var mu sync.Mutex
	var lat []time.Duration
	var failed error
	var before Usage
	if b.Meter != nil {
		if before, err = b.Meter.Read(ctx); err != nil {
			stop(ctx)
			return run{}, err
		}
	}
	batches, pages := b.Told.batches.Load(), b.Told.pages.Load()
	deadline := time.Now().Add(b.Dur)
	var wg sync.WaitGroup
	start := time.Now()
	for w := range b.Writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), uint64(time.Now().UnixNano())))
			var mine []time.Duration
			var err error
			for time.Now().Before(deadline) {
				i := next.Add(1) - 1
				if i >= limit {
					break
				}
				k := int64(0)
				if keyOf != nil {
					k = keyOf(i)
				}
				t := time.Now()
				if err = c.op(ctx, k, r); err != nil {
					break
				}
				mine = append(mine, time.Since(t))
			}
			mu.Lock()
			lat = append(lat, mine...)
			if err != nil && failed == nil {
				failed = err
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	out := run{elapsed: elapsed, batches: b.Told.batches.Load() - batches, pages: b.Told.pages.Load() - pages}
	if b.Meter != nil && failed == nil {
		after, err := b.Meter.Read(ctx)
		if err != nil {
			failed = err
		}
		out.used = after.sub(before)
	}
	if failed != nil {
		stop(ctx)
		return run{}, failed
	}
	if c.kind == "insert" {
		if c.rows == "random rows" {
			b.inserted[key] = [2]int64{b.taken, int64(len(lat))}
			b.taken += int64(len(lat))
		} else {
			b.inserted[key] = [2]int64{keyOf(0), int64(len(lat))}
		}
	}
	if err := stop(ctx); err != nil {
		return run{}, err
	}
	out.lat = lat
	return out, nil
}

type nop struct{}

func (nop) Invalidate(string, ...int64) error { return nil }

// Nop is an Invalidator that does nothing, for consumers that only apply.
var Nop sqlsource.Invalidator = nop{}

// names lists the modes' names.
func names(modes []Mode) string {
	var s []string
	for _, m := range modes {
		s = append(s, m.Name)
	}
	return strings.Join(s, ", ")
}
