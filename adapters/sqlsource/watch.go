package sqlsource

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pglogrepl"
)

// Watch: the consumer of the change feed. It reads the committed changes
// (changefeed.go: the change table), applies them where builds read them
// (apply.go: the page summary and the row times), tells a Sitemap of the
// pages they are on, and only then lets the feed forget them. A consumer
// that dies between reading and applying loses nothing: the changes are
// still in the feed, and the next consumer applies them.

// Invalidator is told of the pages that changed: a *sitemap.Sitemap, whose
// Invalidate rebuilds them (and, with a Store, tells every replica). One
// that also has InvalidateKeys (see keysInvalidator) is told the keys of
// the rows instead.
type Invalidator interface {
	Invalidate(section string, pages ...int64) error
}

// keysInvalidator is an Invalidator that can be told the keys of the rows
// that changed, such as a *sitemap.Sitemap whose section's Source reads
// segments apart: it re-reads only the segments that hold them.
type keysInvalidator interface {
	InvalidateKeys(section string, keys ...int64) error
}

// The watcher's waits. A failed read or apply is tried again after
// minBackoff, doubling up to maxBackoff; a call that takes longer than
// callTimeout fails.
const (
	minBackoff  = 100 * time.Millisecond
	maxBackoff  = 10 * time.Second
	callTimeout = 10 * time.Second
)

// catchUpWait bounds how long Pages waits, from Watch's start, for the
// changes committed before it to be applied (logical decoding): past it,
// Pages fails at once, saying why, until they are. A variable for tests.
var catchUpWait = time.Minute

// appliedHook, when set (by a test), is called by the watcher after each
// batch it applies, before it goes on.
var appliedHook atomic.Pointer[func()]

// applied calls appliedHook, if set.
func applied() {
	if f := appliedHook.Load(); f != nil {
		(*f)()
	}
}

// A Watcher applies a Source's changes and tells an Invalidator of the
// pages they are on, from Source.Watch until its context is done or Close
// is called.
type Watcher struct {
	src     *Source
	feed    changeFeed
	inv     Invalidator
	keysInv keysInvalidator // inv, when it takes keys; nil once it refused them
	section string
	every   time.Duration
	log     *slog.Logger
	cancel  context.CancelFunc
	done    chan struct{} // closed when the goroutine has returned

	errMu sync.Mutex
	err   error // what stopped the watcher: a failed Invalidate

	// With logical decoding: the feed, and the gate that Pages waits on
	// until the watcher has applied every change committed before it
	// started (caught is closed then, or when the slot is another
	// replica's), so that a new process never reads a summary that does
	// not know of a change its rows already show.
	logical *pgLogical
	target  feedPos       // the server's WAL flush position when Watch started
	caught  chan struct{} // closed once caught up; nil with the change table
	started time.Time     // when Watch started: Pages waits for caught until catchUpWait after

	counters watchCounters

	// Owned by the watcher's goroutine.
	pending map[int64]bool // pages changed and not yet told
	keys    map[int64]bool // with keysInv: keys of rows changed and not yet told
	open    bool           // caught is closed
	last    time.Time      // when Invalidate was last called
	paced   time.Time      // when the pace of the calls counts from: the last call; with the change table, the read of the batch it told
	readAt  time.Time      // when the feed returned the batch being applied
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
// Watch reads the change table every Config.WatchInterval, counted from
// the start of the read before (at once again after a full batch of
// 10,000 changes). For each batch it counts the
// listed rows of the pages the changes are on and records them, with a
// later change time, in the page summary (and each changed row's time in
// the row times), and deletes the batch from the change table, in one
// transaction (so that Pages, which also counts the changes waiting there,
// sees the batch waiting or applied, never both); then it tells inv of
// those pages, at once, and at most once per read (a call is due a
// WatchInterval after the read of the batch told before, and half of one
// after the call before), every page changed since the call before: a
// hundred thousand writes to one page in a minute cost at most one
// rebuild of it per interval. The changes committed while no Watch ran (a
// deploy, a crash before the transaction committed) are applied when the
// next starts.
//
// When inv also has a method InvalidateKeys(section string, keys ...int64)
// error, as a *sitemap.Sitemap does, Watch tells it the keys of the rows
// that changed significantly instead of their pages (every page after a
// resync), with the same pacing, so that it re-reads only the segments
// that hold them (see Source.SegmentURLs); it acknowledges a batch only
// after that call (with the change table, it tells the keys first, then
// applies and deletes the batch in one transaction), and reads the next
// batch only then. If InvalidateKeys
// fails (the section's Source does not read segments), Watch tells the
// pages instead from then on, and logs it once.
//
// With a Store, the Sitemap tells the other replicas: one Watch per fleet
// is enough. Two at once each apply every change (the pages move their
// change times twice; nothing is lost). Without any, the change table
// grows and Pages counts every page it names from its rows.
//
// With Config.Capture CaptureLogical (or CaptureAuto choosing it), Watch
// reads the changes from the table's replication slot instead, and
// acknowledges them to the server once applied; see the package doc,
// "Choosing the change capture". Until it has applied the changes
// committed before it started, the Source's Pages waits for it, for at
// most a minute from Watch's start: after that, Pages fails at once
// with an error that says why (the Sitemap answers 503 and keeps serving
// the copies it has), until the Watcher has caught up.
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
	capture, err := s.captureOf(ctx)
	if err != nil {
		return nil, err
	}
	w := &Watcher{src: s, inv: inv, section: section, every: s.watchEvery, log: s.log,
		done: make(chan struct{}), pending: map[int64]bool{}, keys: map[int64]bool{}, started: time.Now()}
	w.keysInv, _ = inv.(keysInvalidator)
	if capture == CaptureLogical {
		if err := w.startLogical(ctx); err != nil {
			return nil, err
		}
	} else {
		w.feed = s.newChangeTable()
	}
	ctx, w.cancel = context.WithCancel(ctx)
	s.watching.Store(w)
	go w.run(ctx)
	return w, nil
}

// startLogical opens the logical decoding feed, and the gate Pages waits
// on until the changes committed before now are applied.
func (w *Watcher) startLogical(ctx context.Context) error {
	s := w.src
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	var at string
	if err := s.db.QueryRowContext(cctx, "SELECT pg_current_wal_flush_lsn()::text").Scan(&at); err != nil {
		return fmt.Errorf("sqlsource: watch: %w", err)
	}
	target, err := pglogrepl.ParseLSN(at)
	if err != nil {
		return fmt.Errorf("sqlsource: watch: %w", err)
	}
	f, err := s.newLogicalFeed(ctx, s.capture.slot, s.capture.publication)
	if err != nil {
		return err
	}
	w.feed, w.logical, w.target, w.caught = f, f, feedPos(target), make(chan struct{})
	return nil
}

// run is the watcher's loop: read, apply, tell, forget.
func (w *Watcher) run(ctx context.Context) {
	defer close(w.done)
	defer w.feed.close()
	defer w.openGate()
	defer w.src.watching.CompareAndSwap(w, nil)
	backoff := minBackoff
	for {
		err := w.step(ctx)
		if err == nil && w.logical != nil && !w.open && (w.logical.caughtUp(w.target) || w.logical.busy()) {
			w.openGate()
		}
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
	if _, ok := w.feed.(*changeTable); !ok {
		// Logical decoding delivers changes as they come: within an
		// interval of the last call, wait for the next call to be due
		// before reading, then read all that came and tell it at once. A
		// change then waits at most an interval to be told; read first,
		// a change that came while the watcher waited to tell the batch
		// before was read only after that call and waited for the next,
		// up to two intervals (TestWatchKeysLatency).
		if d := time.Until(w.due()); d > 0 && !sleep(ctx, d) {
			return ctx.Err()
		}
	}
	changes, pos, err := w.feed.next(ctx)
	w.readAt = time.Now()
	resync := errors.Is(err, errResync)
	if err != nil && !resync {
		return err
	}
	if tf, ok := w.feed.(txFeed); ok && len(changes) > 0 {
		return w.applyForget(ctx, tf, changes, pos) // the change table: no resync
	}
	if len(changes) > 0 || resync {
		start := w.readAt
		pages, err := w.src.apply(ctx, changes, nil)
		if err != nil {
			return fmt.Errorf("apply %d changes: %w", len(changes), err)
		}
		applied()
		w.batchApplied(start)
		defer w.batchTold(start) // apply, tell and ack
		if resync {
			// Every row may have changed: every page is counted again,
			// its time moved, and told.
			if pages, err = w.src.recount(ctx); err != nil {
				return fmt.Errorf("count every page again (%w): %w", errResync, err)
			}
			w.counters.resyncs.Add(1)
			w.log.Warn("sqlsource: watch: every row may have changed (a new replication slot, a TRUNCATE, or a transaction too large to name its rows): every page counted again",
				"table", w.src.sum.table, "pages", len(pages))
		}
		w.counters.applied.Add(int64(len(changes)))
		if w.keysInv != nil {
			w.noteKeys(changes)
			if resync {
				for _, n := range pages {
					w.pending[n] = true
				}
			}
			// The summary records pages, not keys: acknowledged only once
			// told, so a consumer that dies before telling loses none.
			if err := w.tellNow(ctx); err != nil {
				return err
			}
			return w.feed.ack(ctx, pos)
		}
		for _, n := range pages {
			w.pending[n] = true
		}
		// Recorded in the summary: acknowledged before Invalidate, which
		// is the push, not the record (Pages shows the new Versions).
		// Between the apply and the ack, Pages reads the summary alone
		// (the slot's changes are not counted), and a consumer that dies
		// there applies the batch again: its pages' times move a second
		// later, never back.
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

// applyForget applies a batch of the change table and deletes it from
// there in one transaction (so that Pages, which counts the changes
// waiting there too, never counts it twice), then tells the pages when
// due. With an Invalidator that takes keys, it tells the keys first and
// only then applies and deletes the batch: the summary records pages, not
// keys, so a consumer that dies before telling loses none (the next one
// reads the batch again), and waiting for the call before reading on
// keeps the keys held to one batch.
func (w *Watcher) applyForget(ctx context.Context, tf txFeed, changes []rowChange, pos feedPos) error {
	start := w.readAt
	defer w.batchTold(start) // tell, apply and delete
	told := w.keysInv != nil // the batch's keys, or their pages if the keys are refused
	if told {
		w.noteKeys(changes)
		if err := w.tellNow(ctx); err != nil {
			return err
		}
	}
	applying := time.Now()
	pages, err := w.src.apply(ctx, changes, func(ctx context.Context, tx *sql.Tx) error { return tf.forget(ctx, tx, pos) })
	if err != nil {
		return fmt.Errorf("apply %d changes: %w", len(changes), err)
	}
	tf.forgotten(pos)
	applied()
	w.batchApplied(applying)
	w.counters.applied.Add(int64(len(changes)))
	if !told {
		for _, n := range pages {
			w.pending[n] = true
		}
	}
	if !w.flush() {
		return errors.New("stopped")
	}
	return nil
}

// batchApplied counts a batch whose apply began at start and ended now,
// and its read's time with the change table (WatchStats).
func (w *Watcher) batchApplied(start time.Time) {
	w.counters.batches.Add(1)
	w.counters.applying.Add(int64(time.Since(start)))
	if t, ok := w.feed.(*changeTable); ok {
		w.counters.reading.Add(int64(t.took))
	}
}

// batchTold counts the time from a batch's read at start to its changes
// told and acknowledged (WatchStats).
func (w *Watcher) batchTold(start time.Time) { w.counters.telling.Add(int64(time.Since(start))) }

// noteKeys adds the keys of the significant changes, on a page, to those
// to tell.
func (w *Watcher) noteKeys(changes []rowChange) {
	for _, c := range changes {
		if c.Significant && w.src.PageOf(c.Key) != 0 {
			w.keys[c.Key] = true
		}
	}
}

// tellNow tells the keys and pages pending, waiting for the interval since
// the last call to pass; it fails if ctx ends first (nothing told) or the
// Invalidator fails.
func (w *Watcher) tellNow(ctx context.Context) error {
	if len(w.keys) == 0 && len(w.pending) == 0 {
		return nil
	}
	if d := time.Until(w.due()); d > 0 && !sleep(ctx, d) {
		return ctx.Err()
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

// due reports when the pending pages may be told: an interval after the
// pace counts from (paced), and never within half an interval of the
// last call.
func (w *Watcher) due() time.Time {
	at := w.paced.Add(w.every)
	if half := w.last.Add(w.every / 2); half.After(at) {
		return half
	}
	return at
}

// flush tells the Invalidator of the pending pages and keys, if there are
// any and the interval since the last call has passed. It returns false if
// the Invalidator failed, which stops the watcher.
func (w *Watcher) flush() bool {
	if len(w.pending)+len(w.keys) == 0 || time.Now().Before(w.due()) {
		return true
	}
	pages, keys := slices.Sorted(maps.Keys(w.pending)), slices.Sorted(maps.Keys(w.keys))
	clear(w.pending)
	clear(w.keys)
	w.last = time.Now()
	w.paced = w.last
	if _, ok := w.feed.(*changeTable); ok {
		// The change table is read at most once an interval (next), and
		// a call tells what one read found: paced from that read, a call
		// follows its read at once. Paced from the call before, one slow
		// apply would delay every call after it by as much
		// (TestWatchSlowApplyOnce); half an interval from the call before
		// at least, it delays the next by at most that.
		w.paced = w.readAt
	}
	var err error
	if len(pages) > 0 {
		err = w.inv.Invalidate(w.section, pages...)
	}
	if err == nil && len(keys) > 0 {
		err = w.invalidateKeys(keys)
	}
	if err != nil {
		err = fmt.Errorf("sqlsource: watch: %w", err)
		w.log.Error("sqlsource: watch stopped", "err", err)
		w.errMu.Lock()
		w.err = err
		w.errMu.Unlock()
		return false
	}
	return true
}

// invalidateKeys tells the Invalidator of keys. If it refuses them (a
// Sitemap whose section's Source does not read segments, such as a
// wrapper of the Source), it is told their pages, now and from then on,
// and that is logged once.
func (w *Watcher) invalidateKeys(keys []int64) error {
	err := w.keysInv.InvalidateKeys(w.section, keys...)
	if err == nil {
		return nil
	}
	var pages []int64
	for _, k := range keys {
		if n := w.src.PageOf(k); len(pages) == 0 || pages[len(pages)-1] != n {
			pages = append(pages, n) // keys in order: pages in order
		}
	}
	if perr := w.inv.Invalidate(w.section, pages...); perr != nil {
		return perr
	}
	w.keysInv = nil
	w.log.Warn("sqlsource: watch: InvalidateKeys refused the keys; telling their pages instead, from now on", "section", w.section, "err", err)
	return nil
}

// openGate lets Pages read the summary: the watcher caught up, gave up its
// turn to another replica, or stopped.
func (w *Watcher) openGate() {
	if w.caught != nil && !w.open {
		w.open = true
		close(w.caught)
	}
}

// waitCaughtUp waits until the Source's logical decoding watcher, if one
// runs in this process, has applied the changes committed before it
// started; or, past catchUpWait from its start, or at ctx's end, returns
// an error that says why it has not (its feed's last failure, such as a
// replication connection that cannot be made).
func (s *Source) waitCaughtUp(ctx context.Context) error {
	w := s.watching.Load()
	if w == nil || w.caught == nil {
		return nil
	}
	select {
	case <-w.caught:
		return nil
	default:
	}
	var cause error
	if left := time.Until(w.started.Add(catchUpWait)); left > 0 {
		t := time.NewTimer(left)
		defer t.Stop()
		select {
		case <-w.caught:
			return nil
		case <-ctx.Done():
			cause = ctx.Err()
		case <-t.C:
		}
	}
	f := w.logical
	f.mu.Lock()
	if f.failure != nil {
		cause = errors.Join(cause, f.failure)
	}
	f.mu.Unlock()
	why := "applying them"
	if cause != nil {
		why = cause.Error()
	}
	return fmt.Errorf("logical decoding has not applied the changes committed before Watch started %v ago, so the summary may not show them (%s)",
		time.Since(w.started).Round(time.Second), why)
}

// watchCounters count what a watcher did, and the time its steps took,
// in nanoseconds (WatchStats).
type watchCounters struct {
	applied, resyncs, batches  atomic.Int64
	reading, applying, telling atomic.Int64
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
