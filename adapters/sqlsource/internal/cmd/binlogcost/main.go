// Command binlogcost measures what reading MariaDB's (or MySQL's)
// row-based binary log would cost as sqlsource's change capture, beside
// the change table's triggers: the write benchmark of
// adapters/sqlsource/internal/writecost (a products table of -rows rows,
// -writers writers by primary key doing inserts, significant and
// insignificant updates and deletes, on random rows and on the rows of
// one page, the modes interleaved over -rounds rounds) with two modes of
// its own beside off, triggers, on and off again, and off unlogged (off
// with the writers' sessions out of the binary log, sql_log_bin = 0):
//
//   - binlog tell: no trigger; a reader follows the table's row events
//     from the server as a replica does (go-mysql's BinlogSyncer), finds
//     each committed row's key and, from the FULL before and after
//     images of an update, whether the key or a significant column
//     (slug, published) changed, and tells the pages once an interval
//     (250 ms) to the benchmark's counter. Nothing is applied: this is
//     the reader's cost alone.
//   - binlog apply: the same reader writes the changes it found into the
//     change table, one INSERT of many rows an interval, and Watch
//     applies them and tells the pages as in on: what a binlog capture
//     that keeps sqlsource's apply would cost.
//
// The server must have log_bin, binlog_format=ROW and binlog_row_image
// FULL (or MINIMAL); the user needs REPLICATION SLAVE and REPLICATION
// CLIENT (root has them). It lives in a module of its own so that
// go-mysql stays out of sqlsource's go.mod.
//
//	go run ./adapters/sqlsource/internal/cmd/binlogcost -dsn 'root@tcp(127.0.0.1:3308)/test?parseTime=true' -rows 2000000 -rounds 3
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"log"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/freshmap/sitemap/adapters/sqlsource"
	"github.com/freshmap/sitemap/adapters/sqlsource/internal/writecost"

	_ "github.com/go-sql-driver/mysql"
)

func main() {
	log.SetFlags(0)
	dsn := flag.String("dsn", "", "the MariaDB or MySQL database, go-sql-driver's form")
	rows := flag.Int64("rows", 2_000_000, "rows in the table")
	writers := flag.Int("writers", 8, "concurrent writers")
	dur := flag.Duration("dur", time.Second, "how long each case runs in each mode and round")
	rounds := flag.Int("rounds", 3, "rounds of every mode, interleaved")
	modeNames := flag.String("modes", "off,off unlogged,triggers,on,binlog tell,binlog apply,off again", "the modes, by commas, the first the one the others are compared with")
	flag.Parse()
	if *dsn == "" {
		log.Fatal("binlogcost: -dsn is required")
	}
	db, err := sql.Open("mysql", *dsn)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(*writers + 4)
	db.SetMaxIdleConns(*writers + 4)
	ctx := context.Background()
	var meter writecost.Meter = writecost.ProcessMeter{}
	if pid, err := serverPID(ctx, db); err == nil {
		meter = writecost.ProcessMeter{Server: pid}
	}
	b, err := writecost.Open(ctx, writecost.Config{DB: db, Dialect: sqlsource.MySQL, Rows: *rows, Writers: *writers,
		Dur: *dur, Rounds: *rounds, Out: os.Stdout, Settle: 500 * time.Millisecond, Meter: meter})
	if err != nil {
		log.Fatal(err)
	}
	// The writers of "off unlogged" write through connections whose
	// session has sql_log_bin = 0: the same server and run, without the
	// binary log.
	sep := "?"
	if strings.Contains(*dsn, "?") {
		sep = "&"
	}
	unlogged, err := sql.Open("mysql", *dsn+sep+"sql_log_bin=0")
	if err != nil {
		log.Fatal(err)
	}
	defer unlogged.Close()
	unlogged.SetMaxOpenConns(*writers + 4)
	unlogged.SetMaxIdleConns(*writers + 4)
	m := modes{b: b, dsn: *dsn}
	all := map[string]writecost.Mode{"off": b.Off(), "off unlogged": m.unlogged(unlogged), "triggers": b.Triggers(), "on": b.On(),
		"binlog tell": m.tell(), "binlog apply": m.apply(), "off again": {Name: "off again", Start: b.Off().Start}}
	var run []writecost.Mode
	for name := range strings.SplitSeq(*modeNames, ",") {
		mode, ok := all[strings.TrimSpace(name)]
		if !ok {
			b.Close(ctx)
			log.Fatalf("binlogcost: no mode %q (the modes: %s)", name, strings.Join(slices.Sorted(maps.Keys(all)), ", "))
		}
		run = append(run, mode)
	}
	err = b.Run(ctx, run)
	if err == nil && m.events > 0 {
		fmt.Printf("\nthe binlog modes' readers read %d row events of the table\n", m.events)
	}
	if cerr := b.Close(ctx); err == nil {
		err = cerr
	}
	if err != nil {
		log.Fatal(err)
	}
}

// serverPID is the server's process id, from its pid file, for the
// meter (the server on this machine).
func serverPID(ctx context.Context, db *sql.DB) (int, error) {
	var file string
	if err := db.QueryRowContext(ctx, "SELECT @@pid_file").Scan(&file); err != nil {
		return 0, err
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

// modes makes the binlog modes of a bench.
type modes struct {
	b      *writecost.Bench
	dsn    string
	events int64 // row events the readers read, over all runs
}

// start drops the triggers and starts a reader of the bench's table.
func (m *modes) start(ctx context.Context, s sink) (*reader, error) {
	if err := m.b.DropTriggers(ctx); err != nil {
		return nil, err
	}
	return startReader(ctx, m.b.DB, m.dsn, m.b.Table, "id", []string{"slug", "published"}, 250*time.Millisecond, s)
}

// unlogged is off with the writers' sessions out of the binary log
// (sql_log_bin = 0): what the same writes cost the same server without
// it, interleaved with the other modes.
func (m *modes) unlogged(db *sql.DB) writecost.Mode {
	return writecost.Mode{Name: "off unlogged", Start: func(ctx context.Context) (func(context.Context) error, error) {
		if err := m.b.DropTriggers(ctx); err != nil {
			return nil, err
		}
		logged := m.b.DB
		m.b.DB = db
		return func(context.Context) error {
			m.b.DB = logged
			return nil
		}, nil
	}}
}

// tell is the reader telling the counter the pages, applying nothing.
func (m *modes) tell() writecost.Mode {
	return writecost.Mode{Name: "binlog tell", Start: func(ctx context.Context) (func(context.Context) error, error) {
		r, err := m.start(ctx, func(_ context.Context, cs []change) error {
			return m.b.Told.Invalidate("products", pagesOf(m.b.Src, cs)...)
		})
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context) error {
			err := r.stop(ctx)
			m.events += r.events()
			return err
		}, nil
	}}
}

// apply is the reader filling the change table, and Watch applying it.
func (m *modes) apply() writecost.Mode {
	return writecost.Mode{Name: "binlog apply", Start: func(ctx context.Context) (func(context.Context) error, error) {
		r, err := m.start(ctx, func(ctx context.Context, cs []change) error { return record(ctx, m.b.DB, m.b.Table, cs) })
		if err != nil {
			return nil, err
		}
		w, err := m.b.Src.Watch(ctx, &m.b.Told, "products")
		if err != nil {
			r.stop(ctx)
			return nil, err
		}
		return func(ctx context.Context) error {
			err := r.stop(ctx)
			m.events += r.events()
			if err == nil {
				err = drained(ctx, m.b.DB, m.b.Table)
			}
			if cerr := w.Close(); err == nil {
				err = cerr
			}
			return err
		}, nil
	}}
}

// pagesOf lists the pages of the changes' keys, each once, in order.
func pagesOf(src *sqlsource.Source, cs []change) []int64 {
	seen := map[int64]bool{}
	for _, c := range cs {
		if n := src.PageOf(c.key); n > 0 {
			seen[n] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// record writes changes into table's change table, as its triggers
// would (kind 1 a write, 2 a delete), in one transaction of statements
// of up to 1,000 rows.
func record(ctx context.Context, db *sql.DB, table string, cs []change) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for rest := cs; len(rest) > 0; {
		n := min(len(rest), 1000)
		var q strings.Builder
		q.WriteString("INSERT INTO " + table + "_sitemap_changes (sitemap_key, sitemap_kind, sitemap_changed_at) VALUES ")
		args := make([]any, 0, 2*n)
		for i, c := range rest[:n] {
			if i > 0 {
				q.WriteString(", ")
			}
			kind := "1"
			if c.deleted {
				kind = "2"
			}
			q.WriteString("(?, " + kind + ", ?)")
			args = append(args, c.key, c.at.UTC())
		}
		if _, err := tx.ExecContext(ctx, q.String(), args...); err != nil {
			return err
		}
		rest = rest[n:]
	}
	return tx.Commit()
}

// drained waits until Watch has applied all the change table holds.
func drained(ctx context.Context, db *sql.DB, table string) error {
	for deadline := time.Now().Add(5 * time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		var n int
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+table+"_sitemap_changes").Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
	}
	return fmt.Errorf("binlogcost: the change table is not drained after 5 minutes")
}
