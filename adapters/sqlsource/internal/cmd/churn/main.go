// Command churn measures commit → new bytes served under sustained churn
// (see adapters/sqlsource/internal/churn): a PostgreSQL table of -rows
// products (filled once, in -table, and kept between runs), served in
// this process by sqlsource and a Sitemap, Watch telling the Sitemap the
// changed pages (-tell pages, today's code) or keys (-tell keys, which
// needs a Sitemap with InvalidateKeys), while a child process of this
// command renames rows at each of -rates a second for -dur, spread over
// every page, and probes -probes of them a second. For each rate it
// prints the p50, p90 and p99 of commit → new bytes served and this
// process's CPU (the server's alone: the load runs in the child) in cores.
//
//	go run ./adapters/sqlsource/internal/cmd/churn -dsn 'postgres://postgres@127.0.0.1:5432/test?sslmode=disable' -rates 200,50,20
package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"log"
	"os"
	"os/exec"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/freshmap/sitemap/adapters/sqlsource"
	"github.com/freshmap/sitemap/adapters/sqlsource/internal/churn"

	_ "github.com/jackc/pgx/v5/stdlib"
)

func main() {
	log.SetFlags(0)
	dsn := flag.String("dsn", "", "the PostgreSQL database (pgx DSN)")
	table := flag.String("table", "churn_products", "the products table, kept between runs")
	rows := flag.Int64("rows", 10_000_000, "rows in the table")
	page := flag.Int("page", 50_000, "keys a page")
	segment := flag.Int("segment", 0, "keys a segment (sqlsource's Config.SegmentSize; 0 is its default)")
	rates := flag.String("rates", "200", "renames a second, one run each, comma-separated (empty: none)")
	dur := flag.Duration("dur", time.Minute, "how long each rate runs")
	probes := flag.Float64("probes", 5, "probed renames a second")
	every := flag.Duration("every", 250*time.Millisecond, "Watch's interval (Config.WatchInterval)")
	capture := flag.String("capture", "table", "the change capture: table or logical")
	tell := flag.String("tell", "pages", "what Watch tells the Sitemap: pages (Invalidate) or keys (InvalidateKeys)")
	settle := flag.Duration("settle", 10*time.Second, "the pause before each run")
	drop := flag.Bool("drop", false, "remove the table and its summary at the end")
	idle := flag.Duration("idle", 0, "first measure the watcher on the idle table for this long (reads a second, CPU)")
	profile := flag.String("cpuprofile", "", "write the server's CPU profile over the runs (not the warm-up) to this file")
	loadSpec := flag.String("load", "", "(the child process) run this load, JSON, and print what it measured")
	flag.Parse()
	if *dsn == "" {
		log.Fatal("churn: -dsn is required")
	}
	db, err := sql.Open("pgx", *dsn)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	if *loadSpec != "" {
		child(ctx, db, *loadSpec)
		return
	}
	var rs []float64
	for _, f := range strings.Split(*rates, ",") {
		if strings.TrimSpace(*rates) == "" {
			break // -idle alone
		}
		r, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || r <= 0 {
			log.Fatalf("churn: -rates: %q is not a rate", f)
		}
		rs = append(rs, r)
	}
	capt := map[string]sqlsource.Capture{"table": sqlsource.CaptureChangeTable, "logical": sqlsource.CaptureLogical}[*capture]
	if *capture != "table" && *capture != "logical" {
		log.Fatal("churn: -capture must be table or logical")
	}
	if *tell != "pages" && *tell != "keys" {
		log.Fatal("churn: -tell must be pages or keys")
	}
	db.SetMaxOpenConns(16)
	b, err := churn.Open(ctx, churn.Config{DB: db, Table: *table, Rows: *rows, PageSize: *page, SegmentSize: *segment,
		Every: *every, Capture: capt, Keys: *tell == "keys", Out: os.Stdout})
	if err != nil {
		log.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		log.Fatal(err)
	}
	load := func(ctx context.Context, spec churn.LoadSpec) (churn.LoadResult, error) {
		js, err := json.Marshal(spec)
		if err != nil {
			return churn.LoadResult{}, err
		}
		cmd := exec.CommandContext(ctx, exe, "-dsn", *dsn, "-load", string(js))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, os.Stderr
		if err := cmd.Run(); err != nil {
			return churn.LoadResult{}, err
		}
		var res churn.LoadResult
		return res, json.Unmarshal(out.Bytes(), &res)
	}
	if *idle > 0 {
		time.Sleep(*settle)
		if err := b.Idle(ctx, *idle); err != nil {
			log.Fatal(err)
		}
	}
	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer f.Close()
		defer pprof.StopCPUProfile()
	}
	for i, r := range rs {
		time.Sleep(*settle)
		if _, err := b.Run(ctx, r, *dur, *probes, uint64(time.Now().UnixNano())+uint64(i), load); err != nil {
			log.Print(err)
			break
		}
	}
	err = b.Close(ctx)
	if *drop {
		if derr := churn.Drop(ctx, db, b.Src, *table); err == nil {
			err = derr
		}
	}
	if err != nil {
		log.Fatal(err)
	}
}

// child runs the load the parent gave and prints its result as JSON.
func child(ctx context.Context, db *sql.DB, spec string) {
	var s churn.LoadSpec
	if err := json.Unmarshal([]byte(spec), &s); err != nil {
		log.Fatal(err)
	}
	db.SetMaxOpenConns(16)
	res, err := churn.Load(ctx, db, s)
	if err != nil {
		log.Fatal(err)
	}
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		log.Fatal(err)
	}
}
