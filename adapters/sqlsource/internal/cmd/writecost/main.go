// Command writecost measures what sqlsource's freshness costs the
// application's writes (see adapters/sqlsource/internal/writecost): a products table of
// -rows rows, -writers concurrent writers (SQLite: one) by primary key,
// on random rows and on the rows of one page, doing inserts, significant
// updates (the slug), insignificant updates (stock and updated_at) and
// deletes, each for -dur, in three modes interleaved over -rounds
// rounds: off (no trigger), triggers (the change table's triggers alone:
// what the writer pays) and on (the triggers and Watch consuming). It
// prints each case's throughput and p99 latency, their ratios to off and
// the spread of the ratios over the rounds; with -control (the default),
// off runs again as a fourth mode, whose ratio to off is what the
// machine's noise alone gives. With -lag N it then measures,
// on the same table with the writers renaming at full speed, how long a
// commit takes to reach the bytes a Sitemap serves, N probes. PostgreSQL's
// logical decoding is measured by sqlsource's BenchmarkWriteCost.
//
//	go run ./adapters/sqlsource/internal/cmd/writecost -db postgres -dsn postgres://postgres@127.0.0.1:5432/test?sslmode=disable -lag 100
//	go run ./adapters/sqlsource/internal/cmd/writecost -db mysql -dsn 'root@tcp(127.0.0.1:3306)/test?parseTime=true'
//	go run ./adapters/sqlsource/internal/cmd/writecost -db sqlite -dsn 'file:/tmp/writecost.db?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=busy_timeout(10000)'
package main

import (
	"context"
	"database/sql"
	"flag"
	"log"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/freshmap/sitemap/adapters/sqlsource"
	"github.com/freshmap/sitemap/adapters/sqlsource/internal/writecost"

	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"
)

func main() {
	log.SetFlags(0)
	dbName := flag.String("db", "postgres", "sqlite, postgres or mysql")
	dsn := flag.String("dsn", "", "the database")
	rows := flag.Int64("rows", 2_000_000, "rows in the table")
	writers := flag.Int("writers", 8, "concurrent writers (SQLite: 1)")
	dur := flag.Duration("dur", time.Second, "how long each case runs in each mode and round")
	rounds := flag.Int("rounds", 5, "rounds of every mode, interleaved")
	lag := flag.Int("lag", 0, "then measure commit → new bytes served, this many probes")
	keep := flag.Bool("keep", false, "keep the table")
	control := flag.Bool("control", true, "also run off a second time, as a mode of its own: its ratio to off is the noise")
	flag.Parse()
	driver := map[string]string{"sqlite": "sqlite", "postgres": "pgx", "mysql": "mysql"}[*dbName]
	if driver == "" || *dsn == "" {
		log.Fatal("writecost: -db must be sqlite, postgres or mysql, and -dsn is required")
	}
	var meter writecost.Meter = writecost.ProcessMeter{Files: *dbName == "sqlite"}
	if *dbName == "postgres" {
		// The meter finds the backends serving the benchmark by their
		// application_name.
		const app = "sqlsource_writecost"
		sep := "?"
		if strings.Contains(*dsn, "?") {
			sep = "&"
		}
		*dsn += sep + "application_name=" + app
		meter = &writecost.PGMeter{App: app}
	}
	db, err := sql.Open(driver, *dsn)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	if *dbName == "sqlite" {
		db.SetMaxOpenConns(4) // the writer, and Watch
	} else {
		db.SetMaxOpenConns(*writers + 4)
	}
	db.SetMaxIdleConns(*writers + 4) // a backend that closes takes its CPU with it
	if *dbName == "mysql" {
		// The server's CPU, of its process as a whole (this machine's).
		var file string
		if err := db.QueryRow("SELECT @@pid_file").Scan(&file); err == nil {
			if b, err := os.ReadFile(file); err == nil {
				if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
					meter = writecost.ProcessMeter{Server: pid}
				}
			}
		}
	}
	if m, ok := meter.(*writecost.PGMeter); ok {
		m.DB = db
	}
	ctx := context.Background()
	b, err := writecost.Open(ctx, writecost.Config{DB: db, Dialect: sqlsource.Dialect(*dbName), Rows: *rows, Writers: *writers,
		Dur: *dur, Rounds: *rounds, Out: os.Stdout, Keep: *keep, Settle: 500 * time.Millisecond, Meter: meter})
	if err != nil {
		log.Fatal(err)
	}
	modes := []writecost.Mode{b.Off(), b.Triggers(), b.On()}
	if *control {
		modes = append(modes, writecost.Mode{Name: "off again", Start: b.Off().Start})
	}
	err = b.Run(ctx, modes)
	if err == nil && *lag > 0 {
		err = b.Lag(ctx, "change table", b.WatchConsumer, *lag)
	}
	if cerr := b.Close(ctx); err == nil {
		err = cerr
	}
	if err != nil {
		log.Fatal(err)
	}
}
