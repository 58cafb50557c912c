package sqlsource

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// WatchStats is the state of a Source's change capture, as WatchStats
// reads it: which capture the Source uses, what its Watcher in this
// process applied, and how far behind the changes are.
type WatchStats struct {
	// Capture is the change capture the Source uses: CaptureChangeTable
	// or CaptureLogical (CaptureAuto until the Source has asked the
	// server, at its first InstallSummary, Watch or WatchStats).
	Capture Capture
	// Watching says a Watcher of the Source runs in this process.
	// Reading says, with logical decoding, that it reads the replication
	// slot now; false while another replica does (one reads it at a time).
	Watching, Reading bool
	// Applied is how many changes the Watcher applied; Resyncs, how often
	// it counted every page again because the slot could not name the
	// rows that changed (a new slot, a TRUNCATE, a huge transaction).
	Applied, Resyncs int64
	// Batches is how many batches of changes (each one read of the
	// change table, or what the slot had delivered) the Watcher applied.
	// ReadTime is the time the reads of those batches took (with the
	// change table; not the waits between them), ApplyTime the time their
	// applies took, and BatchTime the time from a batch's apply to its
	// changes told (which waits for WatchInterval since the call before)
	// and acknowledged; each summed over the batches.
	Batches                        int64
	ReadTime, ApplyTime, BatchTime time.Duration

	// Pending is, with the change table, how many changes wait in it.
	Pending int64
	// Lag is how long ago the oldest change not yet applied was
	// committed (with logical decoding, of those this process read);
	// zero when there is none.
	Lag time.Duration

	// With logical decoding, the slot as the server reports it.
	// LagBytes is the WAL written since the position the slot confirmed,
	// which a reader has yet to read and apply; RetainedBytes, the WAL the
	// server keeps for the slot, for every table, while nobody confirms
	// past it (bounded only by the server's max_slot_wal_keep_size).
	LagBytes, RetainedBytes int64
	// SlotActive says some consumer, this process's or another's, reads
	// the slot.
	SlotActive bool
	// WALStatus is the server's word on the slot's WAL: "reserved" or
	// "extended" (kept), "unreserved" (past max_slot_wal_keep_size, to be
	// removed at the next checkpoint) or "lost" (removed: the next reader
	// makes the slot anew and counts every page again).
	WALStatus string
	// Failure is why this process's Watcher does not read the slot, if
	// it does not: another replica holds it, the last connection error,
	// or that there is no slot yet (the first Watch makes it).
	Failure error
}

// WatchStats reads the state of the Source's change capture and of its
// Watcher in this process, if one runs: with the change table, the
// changes waiting in it; with logical decoding, the replication slot's
// lag from the server. It costs one query.
func (s *Source) WatchStats(ctx context.Context) (WatchStats, error) {
	if !s.sum.on {
		return WatchStats{}, fmt.Errorf("sqlsource: WatchStats needs Config.Summary")
	}
	var st WatchStats
	var err error
	if st.Capture, err = s.captureOf(ctx); err != nil {
		return st, err
	}
	w := s.watching.Load()
	if w != nil {
		st.Watching = true
		c := &w.counters
		st.Applied, st.Resyncs, st.Batches = c.applied.Load(), c.resyncs.Load(), c.batches.Load()
		st.ReadTime, st.ApplyTime, st.BatchTime = time.Duration(c.reading.Load()), time.Duration(c.applying.Load()), time.Duration(c.telling.Load())
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	if st.Capture != CaptureLogical {
		var oldest timeScanner
		err := s.db.QueryRowContext(ctx, "SELECT COUNT(*), MIN(sitemap_changed_at) FROM "+changesName(s.sum.table)).Scan(&st.Pending, &oldest)
		if err != nil {
			return st, fmt.Errorf("sqlsource: watch stats: %w", err)
		}
		if !oldest.t.IsZero() {
			st.Lag = max(time.Since(oldest.t), 0)
		}
		return st, nil
	}
	var l slotLag
	if w != nil && w.logical != nil {
		l, err = w.logical.lag(ctx)
	} else {
		var cfg logicalConfig
		if cfg, err = s.logicalNames(); err == nil {
			l, err = readSlot(ctx, s.db, cfg.Slot)
		}
	}
	if errors.Is(err, errNoSlot) {
		st.Failure = fmt.Errorf("%w (the first Watch makes it)", err)
		return st, nil
	}
	if err != nil {
		return st, err
	}
	st.Reading, st.Lag, st.LagBytes, st.RetainedBytes = l.Holding, l.Time, l.Bytes, l.Retained
	st.SlotActive, st.WALStatus, st.Failure = l.Active, l.WALStatus, l.Failure
	return st, nil
}
