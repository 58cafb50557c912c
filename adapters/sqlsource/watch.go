package sqlsource

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"
)

// Watch: the changes the page summary records, told to a Sitemap as they
// are committed, with no call of the application's. On PostgreSQL (with
// the pgx driver) the summary's triggers notify each page written, once
// per transaction, and a listener on a connection of its own hears them
// (notify.go); elsewhere the summary's change counters are read every
// Config.WatchInterval (poll.go). Both compare the counters with those
// read last whenever they (re)connect, so a change made while they could
// not hear is told then.

// Invalidator is told of the pages that changed: a *sitemap.Sitemap, whose
// Invalidate rebuilds them (and, with a Store, tells every replica).
type Invalidator interface {
	Invalidate(section string, pages ...int64) error
}

// The watcher's waits. A failed connection or read is tried again after
// minBackoff, doubling up to maxBackoff; a read or connection attempt
// that takes longer than callTimeout fails.
const (
	minBackoff  = 100 * time.Millisecond
	maxBackoff  = 10 * time.Second
	callTimeout = 10 * time.Second
)

// A Watcher tells an Invalidator of the pages of a Source that changed,
// from Source.Watch until its context is done or Close is called.
type Watcher struct {
	src     *Source
	inv     Invalidator
	section string
	every   time.Duration
	log     *slog.Logger
	cancel  context.CancelFunc
	done    chan struct{} // closed when the goroutine has returned

	errMu sync.Mutex
	err   error // what stopped the watcher: a failed Invalidate

	// Owned by the watcher's goroutine (and by Watch before it starts).
	seen    map[int64]int64 // page → its change counter when the summary was read last
	pending map[int64]bool  // pages changed and not yet told
	last    time.Time       // when Invalidate was last called
	failing bool            // the last connection or read failed (logged once)
}

// Watch starts telling inv, as inv.Invalidate(section, pages...), of the
// pages whose rows are written, as the page summary records them, until
// ctx is done or the Watcher is closed. It needs Config.Summary and an
// installed summary (see InstallSummary). Give it the Sitemap that serves
// the Source, and the section's name:
//
//	w, err := src.Watch(ctx, sm, "products")
//	if err != nil {
//		log.Fatal(err)
//	}
//	defer w.Close()
//
// With a Store, the Sitemap tells the other replicas: one Watch per fleet
// is enough, and more only repeat its Invalidate calls.
//
// On PostgreSQL with the pgx driver (github.com/jackc/pgx/v5/stdlib), the
// summary's triggers notify the page of each row written, once per page
// per transaction, and Watch listens on a connection of its own, opened
// with the configuration of db's connections (outside db's pool): a
// commit is told at once. With any other database or driver, Watch reads
// the change counter of every page (one summary row per page) every
// Config.WatchInterval and tells the pages whose counter moved.
//
// Either way Invalidate is called at most once per WatchInterval, with
// every page changed since the call before: a hundred thousand writes to
// one page in a minute cost at most one rebuild of it per interval.
//
// Watch reads the counters before it returns, and a commit after that is
// told. When the listener's connection fails, or a read does, it tries
// again after 100 ms, doubling up to 10 s, and logs once (Config.Logger);
// once it reads the counters again it tells every page whose counter moved
// meanwhile, so no change is lost. If the first read fails, the first that
// succeeds tells every page. A failed Invalidate (an unknown section)
// stops the watcher; Close returns that error.
func (s *Source) Watch(ctx context.Context, inv Invalidator, section string) (*Watcher, error) {
	switch {
	case !s.sum.on:
		return nil, errors.New("sqlsource: Watch needs Config.Summary and an installed summary")
	case inv == nil || reflect.ValueOf(inv).Kind() == reflect.Pointer && reflect.ValueOf(inv).IsNil():
		return nil, errors.New("sqlsource: Watch: nil Invalidator")
	case strings.TrimSpace(section) == "":
		return nil, errors.New("sqlsource: Watch needs the section's name")
	}
	ctx, cancel := context.WithCancel(ctx)
	w := &Watcher{src: s, inv: inv, section: section, every: s.watchEvery, log: s.log, cancel: cancel,
		done: make(chan struct{}), seen: map[int64]int64{}, pending: map[int64]bool{}}
	if s.dialect == Postgres && isPgx(s.db) {
		l := &listener{w: w}
		if err := l.connect(ctx); err != nil {
			w.fail(err)
		}
		clear(w.pending) // the first read is where the watching starts
		go w.run(func() { l.run(ctx) })
		return w, nil
	}
	if err := w.revalidate(ctx); err != nil {
		w.fail(err)
	}
	clear(w.pending)
	go w.run(func() { w.poll(ctx) })
	return w, nil
}

// run runs f, the watcher's loop, and marks the watcher done.
func (w *Watcher) run(f func()) {
	defer close(w.done)
	f()
}

// Close stops the watcher and waits for its goroutine to return. It
// returns the error that stopped it, if one did (a failed Invalidate);
// stopping by Close or by Watch's context is not an error. Calling it
// again returns the same.
func (w *Watcher) Close() error {
	w.cancel()
	<-w.done
	w.errMu.Lock()
	defer w.errMu.Unlock()
	return w.err
}

// revalidate reads every page's change counter, adds the pages whose
// counter differs from the one read last (or that appeared or went) to
// the pending ones, and keeps the counters as the last read.
func (w *Watcher) revalidate(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	rows, err := w.src.db.QueryContext(ctx, w.src.sum.countersQuery)
	if err != nil {
		return fmt.Errorf("read the summary's counters: %w", err)
	}
	defer rows.Close()
	now := make(map[int64]int64, len(w.seen))
	for rows.Next() {
		var page, changes int64
		if err := rows.Scan(&page, &changes); err != nil {
			return fmt.Errorf("read the summary's counters: %w", err)
		}
		now[page] = changes
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read the summary's counters: %w", err)
	}
	for page, changes := range now {
		if old, ok := w.seen[page]; !ok || old != changes {
			w.pending[page] = true
		}
	}
	for page := range w.seen {
		if _, ok := now[page]; !ok {
			w.pending[page] = true // the summary was removed and installed again
		}
	}
	w.seen = now
	return nil
}

// due reports when the pending pages may be told: at once if the last
// Invalidate was at least an interval ago.
func (w *Watcher) due() time.Time { return w.last.Add(w.every) }

// flush tells the Invalidator of the pending pages, if there are any and
// the interval since the last call has passed. It returns false if the
// Invalidator failed, which stops the watcher.
func (w *Watcher) flush() bool {
	if len(w.pending) == 0 || time.Now().Before(w.due()) {
		return true
	}
	pages := slices.Sorted(maps.Keys(w.pending))
	clear(w.pending)
	w.last = time.Now()
	if err := w.inv.Invalidate(w.section, pages...); err != nil {
		err = fmt.Errorf("sqlsource: watch: %w", err)
		w.log.Error("sqlsource: watch stopped", "err", err)
		w.errMu.Lock()
		w.err = err
		w.errMu.Unlock()
		return false
	}
	return true
}

// stopped reports whether a failed Invalidate stopped the watcher.
func (w *Watcher) stopped() bool {
	w.errMu.Lock()
	defer w.errMu.Unlock()
	return w.err != nil
}

// fail logs the first of a run of failures.
func (w *Watcher) fail(err error) {
	if !w.failing {
		w.log.Warn("sqlsource: watch: the summary cannot be read; trying again", "table", w.src.sum.table, "err", err)
	}
	w.failing = true
}

// recovered logs the end of a run of failures.
func (w *Watcher) recovered() {
	if w.failing {
		w.log.Info("sqlsource: watch: the summary is read again", "table", w.src.sum.table)
	}
	w.failing = false
}

// sleep waits d, or until ctx is done; it reports whether ctx is not.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
