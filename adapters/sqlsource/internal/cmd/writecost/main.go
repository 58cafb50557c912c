// Command writecost measures what sqlsource's freshness costs the
// application's writes: a products table of -rows rows, -writers
// concurrent writers (SQLite: one) by primary key, on random rows and on
// the rows of one page, doing inserts, significant updates (the slug),
// insignificant updates (stock and updated_at) and deletes, each for
// -dur, without freshness (no trigger), with the change table's triggers
// alone (what the writer pays) and with Watch consuming too, alternating,
// three rounds each. It prints each
// case's throughput and p99 latency and their ratios. With -lag it then
// measures, on the same table with the writers renaming at full speed,
// how long a commit takes to reach the bytes a Sitemap serves.
//
//	go run ./adapters/sqlsource/internal/cmd/writecost -db postgres -dsn postgres://postgres@127.0.0.1:5432/test?sslmode=disable -lag
//	go run ./adapters/sqlsource/internal/cmd/writecost -db mysql -dsn 'root@tcp(127.0.0.1:3306)/test?parseTime=true'
//	go run ./adapters/sqlsource/internal/cmd/writecost -db sqlite -dsn /tmp/writecost.db
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/freshmap/sitemap/adapters/sqlsource"

	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"
)

const pageSize = 50000

type bench struct {
	db      *sql.DB
	dialect sqlsource.Dialect
	table   string
	rows    int64
	writers int
	dur     time.Duration
	src     *sqlsource.Source
}

func main() {
	dbName := flag.String("db", "postgres", "sqlite, postgres or mysql")
	dsn := flag.String("dsn", "", "the database")
	rows := flag.Int64("rows", 2_000_000, "rows in the table")
	writers := flag.Int("writers", 8, "concurrent writers (SQLite: 1)")
	dur := flag.Duration("dur", 3*time.Second, "how long each case runs")
	lag := flag.Bool("lag", false, "also measure commit → new bytes served")
	keep := flag.Bool("keep", false, "keep the table")
	flag.Parse()
	driver := map[string]string{"sqlite": "sqlite", "postgres": "pgx", "mysql": "mysql"}[*dbName]
	if driver == "" || *dsn == "" {
		log.Fatal("writecost: -db must be sqlite, postgres or mysql, and -dsn is required")
	}
	db, err := sql.Open(driver, *dsn)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	b := &bench{db: db, dialect: sqlsource.Dialect(*dbName), rows: *rows, writers: *writers, dur: *dur,
		table: fmt.Sprintf("writecost_%d", time.Now().UnixNano()%1_000_000)}
	if b.dialect == sqlsource.SQLite {
		b.writers = 1
		db.SetMaxOpenConns(4) // the writer, and Watch (give the DSN busy_timeout and WAL pragmas)
	} else {
		db.SetMaxOpenConns(b.writers + 4)
	}
	ctx := context.Background()
	start := time.Now()
	if err := b.create(ctx); err != nil {
		log.Fatal(err)
	}
	if !*keep {
		defer db.Exec("DROP TABLE IF EXISTS " + b.table)
	}
	fmt.Printf("%s: %d rows loaded in %v; %d writers, %v a case\n", *dbName, b.rows, time.Since(start).Round(time.Millisecond), b.writers, b.dur)
	b.src, err = sqlsource.New(db, sqlsource.Config{Table: b.table, Key: "id", LocTemplate: "https://shop.example.com/p/{slug}",
		LastMod: "updated_at", Filter: "published", PageSize: pageSize, KeyStart: 1, Summary: true,
		Significant: []string{"slug", "published"}, WatchInterval: 250 * time.Millisecond, Dialect: b.dialect})
	if err != nil {
		log.Fatal(err)
	}
	defer b.src.RemoveSummary(ctx)
	start = time.Now()
	if err := b.src.InstallSummary(ctx); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("InstallSummary: %v\n", time.Since(start).Round(time.Millisecond))
	fmt.Println("| case | off ops/s | triggers ops/s | ratio | on ops/s | ratio | off p99 | triggers p99 | ratio | on p99 | ratio |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, c := range b.cases() {
		var res [3]result
		for round := range rounds {
			for m := range res {
				res[m].add(b.run(ctx, c, mode(m), round))
			}
		}
		off, trig, on := &res[off], &res[triggers], &res[on]
		fmt.Printf("| %s | %.0f | %.0f | %.2f× | %.0f | %.2f× | %v | %v | %.2f× | %v | %.2f× |\n", c.name,
			off.rate(), trig.rate(), trig.rate()/off.rate(), on.rate(), on.rate()/off.rate(),
			ms(off.p99()), ms(trig.p99()), float64(trig.p99())/float64(off.p99()), ms(on.p99()), float64(on.p99())/float64(off.p99()))
	}
	if *lag {
		if err := b.lag(ctx); err != nil {
			log.Fatal(err)
		}
	}
}

// create makes the table: even ids 2 to 2×rows, so that inserts have
// the odd ids to take.
func (b *bench) create(ctx context.Context) error {
	ts, boolT := "TIMESTAMP", "BOOLEAN"
	switch b.dialect {
	case sqlsource.MySQL:
		ts = "DATETIME"
	case sqlsource.SQLite:
		ts = "TEXT"
	}
	stmts := []string{"CREATE TABLE " + b.table + " (id BIGINT PRIMARY KEY, slug VARCHAR(64) NOT NULL, stock INTEGER NOT NULL, updated_at " + ts +
		" NOT NULL, published " + boolT + " NOT NULL)"}
	n := fmt.Sprint(b.rows)
	switch b.dialect {
	case sqlsource.Postgres:
		stmts = append(stmts, "INSERT INTO "+b.table+" SELECT 2*g, 'p-' || g, 10, now(), true FROM generate_series(1, "+n+") g",
			"ANALYZE "+b.table)
	case sqlsource.MySQL:
		stmts = append(stmts, "INSERT INTO "+b.table+" SELECT 2*seq, CONCAT('p-', seq), 10, UTC_TIMESTAMP(), true FROM seq_1_to_"+n)
	default:
		stmts = append(stmts, "INSERT INTO "+b.table+" WITH RECURSIVE g(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM g WHERE x < "+n+
			") SELECT 2*x, 'p-' || x, 10, strftime('%Y-%m-%d %H:%M:%S', 'now'), 1 FROM g")
	}
	for _, q := range stmts {
		if _, err := b.db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q[:min(len(q), 60)], err)
		}
	}
	return nil
}

// A case is one kind of write on one set of rows: op writes the i-th.
type writeCase struct {
	name string
	op   func(ctx context.Context, i int64, r *rand.Rand) error
	max  int64 // the most writes it has rows for
}

func (b *bench) cases() []writeCase {
	ph := func(i int) string { return placeholder(b.dialect, i) }
	now := map[sqlsource.Dialect]string{sqlsource.Postgres: "now()", sqlsource.MySQL: "UTC_TIMESTAMP()",
		sqlsource.SQLite: "strftime('%Y-%m-%d %H:%M:%S', 'now')"}[b.dialect]
	exec := func(ctx context.Context, q string, args ...any) error {
		_, err := b.db.ExecContext(ctx, q, args...)
		return err
	}
	// The ids the inserts take, and the deletes remove: odd ones spread
	// over the table, or those of one page past its end.
	spread := func(i int64) int64 { return 2*((i*7919)%b.rows) + 1 }
	past := (2*b.rows/pageSize + 2) * pageSize
	onePage := func(i int64) int64 { return past + 1 + i%pageSize }
	randomRow := func(r *rand.Rand) int64 { return 2 * (1 + r.Int64N(b.rows)) }
	pageRow := func(r *rand.Rand) int64 { return 9*pageSize + 2 + 2*r.Int64N(pageSize/2-1) }
	ins := "INSERT INTO " + b.table + " (id, slug, stock, updated_at, published) VALUES (" + ph(1) + ", " + ph(2) + ", 1, " + now + ", true)"
	del := "DELETE FROM " + b.table + " WHERE id = " + ph(1)
	sig := "UPDATE " + b.table + " SET slug = " + ph(1) + ", updated_at = " + now + " WHERE id = " + ph(2)
	quiet := "UPDATE " + b.table + " SET stock = stock + 1, updated_at = " + now + " WHERE id = " + ph(1)
	var cs []writeCase
	for _, p := range []struct {
		name string
		key  func(int64) int64
		row  func(*rand.Rand) int64
		max  int64
	}{{"random rows", spread, randomRow, b.rows}, {"rows of one page", onePage, pageRow, pageSize}} {
		cs = append(cs,
			writeCase{"insert, " + p.name, func(ctx context.Context, i int64, _ *rand.Rand) error {
				return exec(ctx, ins, p.key(i), fmt.Sprint("n-", i))
			}, p.max},
			writeCase{"significant update (slug), " + p.name, func(ctx context.Context, i int64, r *rand.Rand) error {
				return exec(ctx, sig, fmt.Sprint("s-", i, "-", r.Int32()), p.row(r))
			}, 1 << 40},
			writeCase{"insignificant update (stock, updated_at), " + p.name, func(ctx context.Context, _ int64, r *rand.Rand) error {
				return exec(ctx, quiet, p.row(r))
			}, 1 << 40},
			writeCase{"delete, " + p.name, func(ctx context.Context, i int64, _ *rand.Rand) error {
				return exec(ctx, del, p.key(i))
			}, p.max})
	}
	return cs
}

func placeholder(d sqlsource.Dialect, i int) string {
	if d == sqlsource.Postgres {
		return fmt.Sprintf("$%d", i)
	}
	return "?"
}

// rounds is how many times each case runs in each mode, alternating:
// the machine's noise falls on both.
const rounds = 3

// result is the writes of the runs of one case in one mode.
type result struct {
	lat     []time.Duration
	elapsed time.Duration
}

func (r *result) add(o result) {
	r.lat = append(r.lat, o.lat...)
	r.elapsed += o.elapsed
}

func (r *result) rate() float64 { return float64(len(r.lat)) / r.elapsed.Seconds() }

func (r *result) p99() time.Duration {
	if len(r.lat) == 0 {
		return 0
	}
	slices.Sort(r.lat)
	return r.lat[len(r.lat)*99/100]
}

// inserted holds, per rows, mode and round, the ids an insert case took
// (from, count), which its delete case then removes; taken, per rows, the
// count of ids taken.
var (
	inserted = map[string][2]int64{}
	taken    = map[string]int64{}
)

// mode is how much freshness a run has.
type mode int

const (
	off      mode = iota // no trigger
	triggers             // the triggers, no Watch: what the writer pays
	on                   // the triggers and Watch consuming
)

func ms(d time.Duration) string { return d.Round(10 * time.Microsecond).String() }

// run runs c for the bench's duration, in mode m.
func (b *bench) run(ctx context.Context, c writeCase, m mode, round int) result {
	var watch *sqlsource.Watcher
	if m != off {
		// Installed already: this makes the triggers again.
		if err := b.src.InstallSummary(ctx); err != nil {
			log.Fatal(err)
		}
	}
	if m == on {
		var err error
		if watch, err = b.src.Watch(ctx, nop{}, "products"); err != nil {
			log.Fatal(err)
		}
	} else if m == off {
		b.dropTriggers(ctx)
	}
	b.settle(ctx)
	// Inserts take the ids after those taken before on the same rows;
	// deletes remove what the insert of the same rows, mode and round
	// inserted.
	pattern := strings.TrimPrefix(strings.TrimPrefix(c.name, "insert, "), "delete, ")
	key := pattern + fmt.Sprint(m, round)
	limit, base := c.max, int64(0)
	switch {
	case strings.HasPrefix(c.name, "insert, "):
		base = taken[pattern]
		limit -= base
	case strings.HasPrefix(c.name, "delete, "):
		base, limit = inserted[key][0], inserted[key][1]
	}
	var next atomic.Int64
	var mu sync.Mutex
	var lat []time.Duration
	deadline := time.Now().Add(b.dur)
	var wg sync.WaitGroup
	start := time.Now()
	for w := range b.writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), uint64(time.Now().UnixNano())))
			var mine []time.Duration
			for time.Now().Before(deadline) {
				i := next.Add(1) - 1
				if i >= limit {
					break
				}
				t := time.Now()
				if err := c.op(ctx, base+i, r); err != nil {
					log.Fatalf("%s: %v", c.name, err)
				}
				mine = append(mine, time.Since(t))
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if strings.HasPrefix(c.name, "insert, ") {
		inserted[key] = [2]int64{base, int64(len(lat))}
		taken[pattern] = base + int64(len(lat))
	}
	if m == triggers { // apply what the run recorded, untimed
		var err error
		if watch, err = b.src.Watch(ctx, nop{}, "products"); err != nil {
			log.Fatal(err)
		}
		for n := 1; n > 0; time.Sleep(100 * time.Millisecond) {
			if err := b.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+b.table+"_sitemap_changes").Scan(&n); err != nil {
				log.Fatal(err)
			}
		}
	}
	if watch != nil {
		if err := watch.Close(); err != nil {
			log.Fatal(err)
		}
	}
	return result{lat: lat, elapsed: elapsed}
}

// dropTriggers turns freshness off: no trigger on the table (the
// summary stays, so that turning it on again makes the triggers alone).
func (b *bench) dropTriggers(ctx context.Context) {
	name := b.table + "_sitemap_changes"
	stmts := []string{"DROP TRIGGER IF EXISTS " + name + "_ins", "DROP TRIGGER IF EXISTS " + name + "_del", "DROP TRIGGER IF EXISTS " + name + "_upd"}
	if b.dialect == sqlsource.Postgres {
		stmts = []string{"DROP TRIGGER IF EXISTS " + name + "_insdel ON " + b.table, "DROP TRIGGER IF EXISTS " + name + "_upd ON " + b.table}
	}
	for _, q := range stmts {
		if _, err := b.db.ExecContext(ctx, q); err != nil {
			log.Fatal(err)
		}
	}
}

// settle lets what the last step left behind finish before a case: on
// SQLite, a checkpoint of the WAL.
func (b *bench) settle(ctx context.Context) {
	if b.dialect == sqlsource.SQLite {
		b.db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	}
	time.Sleep(time.Second)
}

type nop struct{}

func (nop) Invalidate(string, ...int64) error { return nil }

func init() {
	log.SetFlags(0)
	log.SetOutput(os.Stderr)
}
