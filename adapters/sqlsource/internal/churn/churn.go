// Package churn measures how fresh a large catalogue stays under
// sustained churn (issue 28's "Done when"): a PostgreSQL table of
// products (10,000,000 rows by default, filled once with generate_series
// and kept between runs), served by sqlsource and a Sitemap in this
// process, with sqlsource's Watch telling the Sitemap of the changes
// (their pages, or their keys where the Sitemap has InvalidateKeys),
// while a load applies significant changes (renames) at a fixed rate
// spread over every page and probes some of them: the time from a
// rename's commit to the first response whose bytes hold it. It reports
// the p50, p90 and p99 of that time, and the CPU this process (the
// server: Sitemap, Source and watcher) used meanwhile, in cores.
//
// The command internal/cmd/churn runs the load in a child process, so
// that the CPU measured is the server's alone.
package churn

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/freshmap/sitemap"
	"github.com/freshmap/sitemap/adapters/sqlsource"
)

// BaseURL is the host of the served URLs.
const BaseURL = "https://shop.example.com"

// Config is a benchmark's table and server.
type Config struct {
	DB       *sql.DB // PostgreSQL, through pgx
	Table    string  // the products table, kept between runs
	Rows     int64   // rows: keys 1 to Rows
	PageSize int     // keys a page (and a segment: SegmentSize; 0 is sqlsource's default)

	SegmentSize int
	Every       time.Duration     // Watch's interval
	Capture     sqlsource.Capture // the change capture
	Keys        bool              // tell the Sitemap keys (InvalidateKeys), not pages
	Out         io.Writer
}

// keysInvalidator is a Sitemap that can be told keys (issue 28).
type keysInvalidator interface {
	InvalidateKeys(section string, keys ...int64) error
}

// toldAt passes the watcher's calls on to the Sitemap and keeps when each
// page was told (by its number, or by a key on it), so that a probe's
// time splits into commit → told and told → served.
type toldAt struct {
	sm     *sitemap.Sitemap
	pageOf func(key int64) int64

	mu sync.Mutex
	at map[int64][]time.Time // page → when it was told, in order
}

func (t *toldAt) record(pages []int64) {
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, n := range pages {
		t.at[n] = append(t.at[n], now)
	}
}

// first returns when page was first told at or after since, if it was.
func (t *toldAt) first(page int64, since time.Time) (time.Time, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, at := range t.at[page] {
		if !at.Before(since) {
			return at, true
		}
	}
	return time.Time{}, false
}

// reset forgets every call: a run starts.
func (t *toldAt) reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.at = map[int64][]time.Time{}
}

// toldPages is the watcher's Invalidator that takes pages only, so that
// the watcher tells pages even to a Sitemap that could take keys.
type toldPages struct{ *toldAt }

func (t toldPages) Invalidate(section string, pages ...int64) error {
	t.record(pages)
	return t.sm.Invalidate(section, pages...)
}

// toldKeys takes keys too, and passes them to the Sitemap's InvalidateKeys.
type toldKeys struct {
	toldPages
	keys keysInvalidator
}

func (t toldKeys) InvalidateKeys(section string, keys ...int64) error {
	pages := make([]int64, 0, len(keys))
	for _, k := range keys {
		pages = append(pages, t.pageOf(k))
	}
	t.record(pages)
	return t.keys.InvalidateKeys(section, keys...)
}

// Bench is the table served, watched, and ready for runs.
type Bench struct {
	Config
	Src *sqlsource.Source
	SM  *sitemap.Sitemap
	URL string // the server's base URL, such as http://127.0.0.1:port

	srv     *http.Server
	told    *toldAt
	watcher *sqlsource.Watcher
	capture sqlsource.Capture // the one the Source chose
}

// Open fills the table if it is not there with Rows rows, installs the
// summary (kept between runs too), serves it, builds every page once and
// starts the watcher. With Keys, it fails if the Sitemap has no
// InvalidateKeys.
func Open(ctx context.Context, c Config) (*Bench, error) {
	if c.Rows < 1 || c.PageSize < 1 || c.Table == "" || c.Out == nil {
		return nil, fmt.Errorf("churn: want rows and a page size above 0, a table and an output, not %d, %d, %q", c.Rows, c.PageSize, c.Table)
	}
	if c.Every <= 0 {
		c.Every = 250 * time.Millisecond
	}
	b := &Bench{Config: c}
	if err := b.fill(ctx); err != nil {
		return nil, err
	}
	var err error
	b.Src, err = sqlsource.New(c.DB, sqlsource.Config{Table: c.Table, Key: "id", LocTemplate: BaseURL + "/p/{slug}",
		LastMod: "updated_at", Filter: "published", PageSize: c.PageSize, SegmentSize: c.SegmentSize, KeyStart: 1,
		Summary: true, Significant: []string{"slug", "published"}, Capture: c.Capture, WatchInterval: c.Every,
		Dialect: sqlsource.Postgres, Logger: slog.New(slog.NewTextHandler(c.Out, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if err := b.Src.InstallSummary(ctx); err != nil {
		return nil, err
	}
	fmt.Fprintf(c.Out, "InstallSummary (a no-op when kept from a run before): %v\n", time.Since(start).Round(time.Millisecond))
	var inv sqlsource.Invalidator
	b.SM, err = sitemap.New(sitemap.Config{BaseURL: BaseURL, Logger: slog.New(slog.DiscardHandler)},
		sitemap.Section{Name: "products", Source: b.Src})
	if err != nil {
		return nil, err
	}
	b.told = &toldAt{sm: b.SM, pageOf: b.Src.PageOf, at: map[int64][]time.Time{}}
	inv = toldPages{b.told}
	if c.Keys {
		keys, ok := any(b.SM).(keysInvalidator)
		if !ok {
			b.SM.Close()
			return nil, errors.New("churn: keys: this Sitemap has no InvalidateKeys (the root package predates issue 28's segments); tell pages")
		}
		inv = toldKeys{toldPages{b.told}, keys}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.SM.Close()
		return nil, err
	}
	b.URL = "http://" + ln.Addr().String()
	b.srv = &http.Server{Handler: b.SM}
	go b.srv.Serve(ln)
	if err := b.warm(ctx); err != nil {
		b.Close(ctx)
		return nil, err
	}
	if b.watcher, err = b.Src.Watch(ctx, inv, "products"); err != nil {
		b.Close(ctx)
		return nil, err
	}
	st, err := b.Src.WatchStats(ctx)
	if err != nil {
		b.Close(ctx)
		return nil, err
	}
	b.capture = st.Capture
	return b, nil
}

// Pages returns the number of pages of the table.
func (b *Bench) Pages() int64 { return (b.Rows + int64(b.PageSize) - 1) / int64(b.PageSize) }

// PagePath returns the path of page n.
func PagePath(n int64) string { return fmt.Sprintf("/sitemap-products-%d.xml.gz", n) }

// fill makes the table with keys 1 to Rows, unless it is there with as
// many rows.
func (b *Bench) fill(ctx context.Context) error {
	var n sql.NullInt64
	err := b.DB.QueryRowContext(ctx, "SELECT count(*) FROM "+b.Table).Scan(&n)
	if err == nil && n.Int64 == b.Rows {
		fmt.Fprintf(b.Out, "%s: %d rows, kept from a run before\n", b.Table, b.Rows)
		return nil
	}
	start := time.Now()
	stmts := []string{
		"DROP TABLE IF EXISTS " + b.Table,
		"CREATE TABLE " + b.Table + " (id BIGINT NOT NULL, slug TEXT NOT NULL, updated_at TIMESTAMPTZ NOT NULL, published BOOLEAN NOT NULL)",
		fmt.Sprintf("INSERT INTO %s SELECT g, 'p-' || g, now(), true FROM generate_series(1, %d) g", b.Table, b.Rows),
		"ALTER TABLE " + b.Table + " ADD PRIMARY KEY (id)",
		"VACUUM ANALYZE " + b.Table,
	}
	var took []string
	for _, q := range stmts {
		t := time.Now()
		if _, err := b.DB.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("churn: %s: %w", q[:min(len(q), 60)], err)
		}
		took = append(took, strings.Fields(q)[0]+" "+time.Since(t).Round(time.Millisecond).String())
	}
	fmt.Fprintf(b.Out, "%s: %d rows filled in %v (%s)\n", b.Table, b.Rows, time.Since(start).Round(time.Millisecond), strings.Join(took, ", "))
	return nil
}

// warm builds every page once, two at a time, and says how long it took
// and the CPU it used.
func (b *Bench) warm(ctx context.Context) error {
	start, cpu0 := time.Now(), cpuTime()
	pages := make(chan int64)
	errs := make(chan error, 2)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range pages {
				if _, _, err := fetch(ctx, b.URL+PagePath(n), ""); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	var err error
feed:
	for n := int64(1); n <= b.Pages(); n++ {
		select {
		case pages <- n:
		case err = <-errs:
			break feed
		}
	}
	close(pages)
	wg.Wait()
	if err == nil && len(errs) > 0 {
		err = <-errs
	}
	if err != nil {
		return fmt.Errorf("churn: build every page: %w", err)
	}
	wall := time.Since(start)
	fmt.Fprintf(b.Out, "every page built once (%d pages of %d keys): %v, %.1f s of CPU\n", b.Pages(), b.PageSize,
		wall.Round(time.Millisecond), (cpuTime() - cpu0).Seconds())
	return nil
}

// A LoadFunc applies the load spec says and reports what it measured.
type LoadFunc func(ctx context.Context, spec LoadSpec) (LoadResult, error)

// Run applies a load of rate renames a second for dur with load, and
// writes what it measured, with the CPU this process used in the
// meantime.
func (b *Bench) Run(ctx context.Context, rate float64, dur time.Duration, probes float64, seed uint64, load LoadFunc) (LoadResult, error) {
	spec := LoadSpec{Table: b.Table, Rows: b.Rows, PageSize: b.PageSize, URL: b.URL, Rate: rate, Dur: dur, Probes: probes, Seed: seed}
	b.told.reset()
	cpu := make(chan [3]float64, 1)
	go func() { // the CPU over the load's span, not its drain
		start, cpu0, pg0, busy0 := time.Now(), cpuTime(), postgresCPU(), machineBusy()
		time.Sleep(dur)
		wall := time.Since(start).Seconds()
		cpu <- [3]float64{(cpuTime() - cpu0).Seconds() / wall, postgresDelta(pg0, postgresCPU()).Seconds() / wall,
			(machineBusy() - busy0).Seconds() / wall}
	}()
	st0, err := b.Src.WatchStats(ctx)
	if err != nil {
		return LoadResult{}, err
	}
	res, err := load(ctx, spec)
	if err != nil {
		return res, err
	}
	c := <-cpu
	st1, err := b.Src.WatchStats(ctx)
	if err != nil {
		return res, err
	}
	res.ServerCores, res.PostgresCores, res.MachineCores = c[0], c[1], c[2]
	mode := "pages (Invalidate)"
	if b.Keys {
		mode = "keys (InvalidateKeys)"
	}
	lags := slices.Sorted(slices.Values(res.Lags))
	var toTell, toServe []time.Duration // commit → its page told, told → served
	for i, p := range res.Probed {
		if at, ok := b.told.first(p.Page, p.Committed); ok && i < len(res.Lags) && res.Lags[i] < MaxLag {
			toTell, toServe = append(toTell, at.Sub(p.Committed)), append(toServe, res.Lags[i]-at.Sub(p.Committed))
		}
	}
	slices.Sort(toTell)
	slices.Sort(toServe)
	res.Told = len(toTell)
	fmt.Fprintf(b.Out, "%s, %s, interval %v: asked %.0f renames/s for %v, committed %.1f/s (%d late); commit → new bytes served, %d probes (%d not served within %v, counted as that): p50 %v, p90 %v, p99 %v, max %v; of which commit → the first call telling its page (%d probes) p50 %v, p99 %v, and from that call → served p50 %v, p99 %v; CPU in cores: this server %.2f, PostgreSQL %.2f (every client's), the machine %.2f\n",
		mode, b.capture, b.Every, rate, dur, float64(res.Writes)/dur.Seconds(), res.Late, len(lags), res.Unserved, MaxLag,
		quantile(lags, 0.5), quantile(lags, 0.9), quantile(lags, 0.99), quantile(lags, 1), len(toTell), quantile(toTell, 0.5), quantile(toTell, 0.99), quantile(toServe, 0.5), quantile(toServe, 0.99), res.ServerCores, res.PostgresCores, res.MachineCores)
	if n := st1.Batches - st0.Batches; n > 0 {
		per := func(a, b time.Duration) time.Duration {
			return ((b - a) / time.Duration(n)).Round(100 * time.Microsecond)
		}
		fmt.Fprintf(b.Out, "  the watcher, over the load and its drain: %d batches, %.0f changes each; a batch's read %v, apply %v, from its apply to told and acknowledged %v (means)\n",
			n, float64(st1.Applied-st0.Applied)/float64(n), per(st0.ReadTime, st1.ReadTime), per(st0.ApplyTime, st1.ApplyTime), per(st0.BatchTime, st1.BatchTime))
	}
	return res, nil
}

// quantile returns the q-quantile of sorted, rounded to the millisecond.
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(q*float64(len(sorted))))].Round(time.Millisecond)
}

// Close stops the watcher and the server; the table and its summary stay.
func (b *Bench) Close(ctx context.Context) error {
	var err error
	if b.watcher != nil {
		err = b.watcher.Close()
	}
	if b.srv != nil {
		b.srv.Close()
	}
	b.SM.Close()
	return err
}

// Drop removes the summary and the table.
func Drop(ctx context.Context, db *sql.DB, src *sqlsource.Source, table string) error {
	var err error
	if src != nil {
		err = src.RemoveSummary(ctx)
	}
	if _, e := db.ExecContext(ctx, "DROP TABLE IF EXISTS "+table); err == nil {
		err = e
	}
	return err
}
