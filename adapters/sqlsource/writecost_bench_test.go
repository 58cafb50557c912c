package sqlsource_test

import (
	"context"
	"database/sql"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/freshmap/sitemap/adapters/sqlsource"
	"github.com/freshmap/sitemap/adapters/sqlsource/internal/writecost"
	"github.com/freshmap/sitemap/internal/testenv"
)

// BenchmarkWriteCost is adapters/sqlsource/internal/cmd/writecost on PostgreSQL with logical
// decoding as a fourth mode (a slot read by the feed, which Watch does not
// export, applying and acknowledging; no trigger) and off again as a fifth
// (its ratio to off is the noise), and commit → new bytes served for both
// consumers. Run it once: -benchtime 1x. Its table is
// SITEMAP_BENCH_ROWS rows (default 200,000; the figure is
// 2,000,000), SITEMAP_BENCH_ROUNDS rounds (default 3; 0 for commit →
// bytes alone) of
// SITEMAP_BENCH_DUR a case (default 1s), and SITEMAP_BENCH_PROBES
// commit → bytes probes (default 100; 0 for none). "logical" reads
// pgoutput's binary format where the server has it, "logical text" its
// text format; SITEMAP_BENCH_MODES, if set, names the modes to run, by
// commas, the first the one the others are compared with (such as
// "off,logical text,logical,off again"); SITEMAP_BENCH_LAGS, if set, the
// consumers whose commit → bytes to measure ("change table", "logical
// decoding"); SITEMAP_BENCH_TELL=pages has them tell the Sitemap the
// pages that changed, not the keys.
func BenchmarkWriteCost(b *testing.B) {
	dsn := os.Getenv("SITEMAP_TEST_POSTGRES_DSN")
	if dsn == "" {
		testenv.Unavailable(b, "PostgreSQL", "SITEMAP_TEST_POSTGRES_DSN is not set")
	}
	env := func(name string, def int) int {
		s := os.Getenv(name)
		if s == "" {
			return def
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			b.Fatalf("%s=%q: want a number >= 0", name, s)
		}
		return n
	}
	dur := time.Second
	if s := os.Getenv("SITEMAP_BENCH_DUR"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			b.Fatalf("SITEMAP_BENCH_DUR=%q: want a duration", s)
		}
		dur = d
	}
	// Its connections carry an application_name of their own, by which
	// the meter finds the backends serving it and the slot's walsender.
	const app = "sqlsource_writecost"
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	db, err := sql.Open("pgx", dsn+sep+"application_name="+app)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(12)
	db.SetMaxIdleConns(12) // a backend that closes takes its CPU with it
	ctx := context.Background()
	for range b.N {
		wb, err := writecost.Open(ctx, writecost.Config{DB: db, Dialect: sqlsource.Postgres, Rows: int64(env(envBenchRows, 200_000)),
			Writers: 8, Dur: dur, Rounds: env("SITEMAP_BENCH_ROUNDS", 3), Out: os.Stdout, Settle: 500 * time.Millisecond,
			Meter: &writecost.PGMeter{DB: db, App: app}, TellPages: os.Getenv("SITEMAP_BENCH_TELL") == "pages"})
		if err != nil {
			b.Fatal(err)
		}
		logicalAs := func(text bool) func(ctx context.Context, inv sqlsource.Invalidator, section string) (func() error, error) {
			return func(ctx context.Context, inv sqlsource.Invalidator, section string) (func() error, error) {
				if err := wb.DropTriggers(ctx); err != nil {
					return nil, err
				}
				return sqlsource.ConsumeLogical(ctx, wb.Src, inv, section, text)
			}
		}
		logical := logicalAs(false)
		logicalMode := func(name string, text bool) writecost.Mode {
			return writecost.Mode{Name: name, Start: func(ctx context.Context) (func(context.Context) error, error) {
				stop, err := logicalAs(text)(ctx, &wb.Told, "products")
				if err != nil {
					return nil, err
				}
				return func(context.Context) error { return stop() }, nil
			}}
		}
		modes := []writecost.Mode{wb.Off(), wb.Triggers(), wb.On(), logicalMode("logical", false),
			logicalMode("logical text", true), {Name: "off again", Start: wb.Off().Start}}
		if names := os.Getenv("SITEMAP_BENCH_MODES"); names != "" {
			modes = pickModes(b, modes, names)
		}
		err = wb.Run(ctx, modes)
		if probes := env("SITEMAP_BENCH_PROBES", 100); err == nil && probes > 0 {
			lags := []struct {
				name     string
				consumer writecost.Consumer
			}{{"change table", wb.WatchConsumer}, {"logical decoding", logical}}
			for _, l := range lags {
				if names := os.Getenv("SITEMAP_BENCH_LAGS"); names != "" && !slices.Contains(strings.Split(names, ","), l.name) {
					continue
				}
				if err = wb.Lag(ctx, l.name, l.consumer, probes); err != nil {
					break
				}
			}
		}
		if cerr := wb.Close(ctx); err == nil {
			err = cerr
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

// pickModes returns the modes named in names, separated by commas, in
// that order.
func pickModes(b *testing.B, modes []writecost.Mode, names string) []writecost.Mode {
	var out []writecost.Mode
	for name := range strings.SplitSeq(names, ",") {
		i := slices.IndexFunc(modes, func(m writecost.Mode) bool { return m.Name == strings.TrimSpace(name) })
		if i < 0 {
			b.Fatalf("SITEMAP_BENCH_MODES: no mode %q", name)
		}
		out = append(out, modes[i])
	}
	return out
}
