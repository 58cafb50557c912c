package sqlsource

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// The lag of logical decoding: how far the slot is behind the server's
// WAL, and how old the oldest change read but not yet acknowledged is.
//
// What a slot retains: the server keeps every WAL segment from the slot's
// restart position on, for every table, and the catalogue rows old enough
// to decode them, until the slot confirms past them. A slot nobody reads
// (every replica stopped) therefore makes the WAL grow without bound,
// unless max_slot_wal_keep_size limits it: past that size the server
// removes the WAL anyway and the slot is lost (wal_status "lost"), and the
// next reader must start afresh from a full rebuild. A slot that is no
// longer wanted is dropped with
//
//	SELECT pg_drop_replication_slot('sqlsource_products');
//	DROP PUBLICATION sqlsource_products;
//
// (dropLogical does both, once no replica reads the slot).

// slotLag is the state of a feed's slot.
type slotLag struct {
	// Bytes is the WAL written since the position the slot confirmed:
	// what a consumer has yet to read or acknowledge.
	Bytes int64
	// Retained is the WAL the server keeps for the slot, from its restart
	// position (at least Bytes, and more while a long transaction is open).
	Retained int64
	// Time is how long ago the oldest change that this feed read and that
	// is not yet acknowledged was committed; zero when there is none.
	Time time.Duration
	// Active says a consumer, this feed or another replica's, reads the
	// slot; Holding, that this feed does.
	Active, Holding bool
	// WALStatus is the server's word on the slot's WAL: "reserved" or
	// "extended" (kept), "unreserved" (over max_slot_wal_keep_size, to be
	// removed at the next checkpoint) or "lost" (removed: the slot cannot
	// be read again and must be dropped).
	WALStatus string
	// Failure is why this feed does not read the slot, if it does not:
	// errSlotBusy while another replica holds it, or the last connection
	// error.
	Failure error
}

// errNoSlot says the slot is not there: no Watch made it yet, or it was
// dropped.
var errNoSlot = errors.New("it does not exist")

// lag reads the slot's state from the server.
func (f *pgLogical) lag(ctx context.Context) (slotLag, error) {
	l, err := readSlot(ctx, f.db, f.cfg.Slot)
	if err != nil {
		return l, err
	}
	now := time.Now()
	f.mu.Lock()
	defer f.mu.Unlock()
	l.Holding, l.Failure = f.holding, f.failure
	var oldest time.Time
	for _, p := range f.unacked {
		if !p.oldest.IsZero() {
			oldest = p.oldest
			break
		}
	}
	if oldest.IsZero() && len(f.queue) > 0 {
		oldest = f.queue[0].Committed
	}
	if !oldest.IsZero() {
		l.Time = max(now.Sub(oldest), 0)
	}
	return l, nil
}

// readSlot reads the server's side of a slot's lag: whether a consumer
// reads it, its bytes behind, retained and its WAL status.
func readSlot(ctx context.Context, db *sql.DB, slot string) (slotLag, error) {
	var l slotLag
	err := db.QueryRowContext(ctx, `SELECT active,
		COALESCE((pg_current_wal_lsn() - confirmed_flush_lsn)::bigint, 0),
		COALESCE((pg_current_wal_lsn() - restart_lsn)::bigint, 0),
		COALESCE(wal_status, '')
		FROM pg_replication_slots WHERE slot_name = $1`, slot).Scan(&l.Active, &l.Bytes, &l.Retained, &l.WALStatus)
	if errors.Is(err, sql.ErrNoRows) {
		return l, fmt.Errorf("sqlsource: logical decoding: replication slot %s: %w", slot, errNoSlot)
	}
	if err != nil {
		return l, fmt.Errorf("sqlsource: logical decoding: read the slot's lag: %w", err)
	}
	return l, nil
}
