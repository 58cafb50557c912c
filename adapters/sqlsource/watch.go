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

// Watch: the consumer of the change feed. It reads the committed changes
// (changefeed.go: the change table), applies them where builds read them
// (apply.go: the page summary and the row times), tells a Sitemap of the
// pages they are on, and only then lets the feed forget them. A consumer
// that dies between reading and applying loses nothing: the changes are
// still in the feed, and the next consumer applies them.

// Invalidator is told of the pages that changed: a *sitemap.Sitemap, whose
// Invalidate rebuilds them (and, with a Store, tells every replica).
type Invalidator interface {
	Invalidate(section string, pages ...int64) error
}

// The watcher's waits. A failed read or apply is tried again after
// minBackoff, doubling up to maxBackoff; a call that takes longer than
// callTimeout fails.
const (
	minBackoff  = 100 * time.Millisecond
	maxBackoff  = 10 * time.Second
	callTimeout = 10 * time.Second
)

// A Watcher applies a Source's changes and tells an Invalidator of the
// pages they are on, from Source.Watch until its context is done or Close
// is called.
type Watcher struct {
	src     *Source
	feed    changeFeed
	inv     Invalidator
	section string
	every   time.Duration
	log     *slog.Logger
	cancel  context.CancelFunc
	done    chan struct{} // closed when the goroutine has returned

	errMu sync.Mutex
	err   error // what stopped the watcher: a failed Invalidate

	// Owned by the watcher's goroutine.
	pending map[int64]bool // pages changed and not yet told
	last    time.Time      // when Invalidate was last called
	failing bool           // the last read or apply failed (logged once)
}

// Watch starts applying the changes the database records for the table
// (see InstallSummary) and telling inv, as inv.Invalidate(section,
// pages...), of the pages they are on, until ctx is done or the Watcher
// is closed. It needs Config.Summary and an installed summary. Give it
// the Sitemap that serves the Source, and the section's name:
//
//	w, err := src.Watch(ctx, sm, "products")
//	if err != nil {
//		log.Fatal(err)
//	}
//	defer w.Close()
//
// Watch reads the change table every Config.WatchInterval (at once again
// after a full batch of 10,000 changes). For each batch it counts the
// listed rows of the pages the changes are on and records them, with a
// later change time, in the page summary (and each changed row's time in
// the row times), in one transaction; then it tells inv of those pages,
// at most once per WatchInterval, every page changed since the call
// before: a hundred thousand writes to one page in a minute cost at most
// one rebuild of it per interval. Only then does it delete the batch from
// the change table. The changes committed while no Watch ran (a deploy, a
// crash between reading and deleting) are applied when the next starts.
//
// With a Store, the Sitemap tells the other replicas: one Watch per fleet
// is enough. Two at once each apply every change (the pages move their
// change times twice; nothing is lost). Without any, the change table
// grows and Pages counts every page it names from its rows.
//
// When a read or an apply fails, Watch tries again after 100 ms, doubling
// up to 10 s, and logs once (Config.Logger). A failed Invalidate (an
// unknown section) stops the watcher; Close returns that error.
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
	w := &Watcher{src: s, feed: s.newChangeTable(), inv: inv, section: section, every: s.watchEvery, log: s.log,
		cancel: cancel, done: make(chan struct{}), pending: map[int64]bool{}}
	go w.run(ctx)
	return w, nil
}

// run is the watcher's loop: read, apply, tell, forget.
func (w *Watcher) run(ctx context.Context) {
	defer close(w.done)
	defer w.feed.close()
	backoff := minBackoff
	for {
		err := w.step(ctx)
		if ctx.Err() != nil || w.stopped() {
			return
		}
		if err != nil {
			w.fail(err)
			if !sleep(ctx, backoff) {
				return
			}
			backoff = min(2*backoff, maxBackoff)
			continue
		}
		w.recovered()
		backoff = minBackoff
	}
}

// step reads the next changes, applies them, tells the pages when due and
// acknowledges the changes.
func (w *Watcher) step(ctx context.Context) error {
	changes, pos, err := w.feed.next(ctx)
	if err != nil {
		return err
	}
	if len(changes) > 0 {
		pages, err := w.src.apply(ctx, changes)
		if err != nil {
			return fmt.Errorf("apply %d changes: %w", len(changes), err)
		}
		for _, n := range pages {
			w.pending[n] = true
		}
		// Recorded in the summary: acknowledged before Invalidate, which
		// is the push, not the record (Pages shows the new Versions).
		if err := w.feed.ack(ctx, pos); err != nil {
			w.flush()
			return err
		}
	}
	if !w.flush() {
		return errors.New("stopped")
	}
	return nil
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
		w.log.Warn("sqlsource: watch: the changes cannot be read or applied; trying again", "table", w.src.sum.table, "err", err)
	}
	w.failing = true
}

// recovered logs the end of a run of failures.
func (w *Watcher) recovered() {
	if w.failing {
		w.log.Info("sqlsource: watch: the changes are applied again", "table", w.src.sum.table)
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
