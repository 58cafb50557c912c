package sqlsource

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pglogrepl"
)

// The logical decoding feed: the committed changes of a PostgreSQL table,
// read from its replication slot (pglogical_slot.go) and decoded from
// pgoutput (pglogical_decode.go). One goroutine owns the replication
// connection (pglogical_stream.go): it reads, decodes, queues committed
// transactions for next, and answers the server, so keepalives are
// answered on time however long the consumer takes between next and ack.
// Its lag is in pglogical_lag.go.
//
// Delivery is at least once. The slot's confirmed position moves only to
// positions given to ack, so a transaction handed out by next and not
// acknowledged, when the process stops or the connection breaks, is sent
// again from the slot to whichever consumer reads it next.

// The feed's limits and timings.
const (
	// statusEvery is how often the feed tells the server the position it
	// confirms while the position moves; idle, every statusIdle. The
	// server's wal_sender_timeout (one minute by default) must be longer.
	statusEvery = time.Second
	// queueMax is how many changes the feed holds for next before it stops
	// reading, beside at most one transaction (of at most txnMax).
	queueMax = 100_000
	// retryMost bounds the wait between two tries to read the slot, after
	// a failed connection or while another consumer holds it: when the
	// server is back, or the holder stops, this feed reads within it. Two
	// connection attempts a second per replica cost the server little.
	retryMost = 500 * time.Millisecond
)

// slotWait bounds a setup in the background, which may make the slot:
// PostgreSQL makes one only once the transactions open when it starts
// have ended.
const slotWait = time.Minute

// statusIdle is how often the feed tells the server its position when
// the position does not move; it then also asks for a reply if the server
// has said nothing for as long. A connection on which the server says
// nothing for 3 × statusIdle while the feed reads is taken for dead: one
// dropped without a word, by a firewall or a failover, would otherwise be
// waited on until TCP gives up, many minutes later. A variable for the
// tests.
var statusIdle = 10 * time.Second

// errResync is returned by next, with the changes it could name and the
// position to acknowledge once done, when it cannot name every row that
// changed: a TRUNCATE of the table, a transaction that wrote more than
// txnMax rows, or a slot made anew (its changes before were not kept).
// Every row may have changed.
var errResync = errors.New("sqlsource: logical decoding: every row may have changed")

// errFeedClosed is returned by next after close.
var errFeedClosed = errors.New("sqlsource: logical decoding: the feed is closed")

// pgLogical reads the committed changes of a table from its replication
// slot. Its methods are safe for concurrent use.
type pgLogical struct {
	db     *sql.DB
	cfg    logicalConfig
	cancel context.CancelFunc
	done   chan struct{} // closed when the reading goroutine has returned
	ready  chan struct{} // a token when the queue has something for next
	room   chan struct{} // a token when next has emptied the queue

	mu        sync.Mutex
	queue     []rowChange
	queueEnd  feedPos   // the end of the last queued transaction
	resync    bool      // a transaction queued cannot name its rows
	delivered feedPos   // the end of the last transaction next returned
	acked     feedPos   // the highest position given to ack
	unacked   []pending // what next returned and ack has not yet covered, in order
	told      *told     // a resync returned by next and not yet acknowledged
	seen      feedPos   // how far the server has decoded, all of it queued (stream.flush)
	holding   bool      // this feed streams from the slot now
	failure   error     // why it does not, if it tried and failed
}

// told is a resync that next returned: the changes it could name, and
// the position that ends them.
type told struct {
	changes []rowChange
	pos     feedPos
}

// pending is a position next returned and the commit time of its oldest
// change, for the lag in time.
type pending struct {
	pos    feedPos
	oldest time.Time
}

// newPGLogical checks the server and the table, makes the publication and
// the slot if missing, and starts reading. A configuration mistake or a
// server without logical decoding (errNoLogical) is an error here; a
// connection that fails later, or a slot another replica reads, is tried
// again with backoff and logged once.
func newPGLogical(ctx context.Context, db *sql.DB, cfg logicalConfig) (*pgLogical, error) {
	cfg, err := cfg.normalize()
	if err != nil {
		return nil, err
	}
	if !isPgx(db) {
		return nil, errors.New("sqlsource: logical decoding needs the pgx driver (github.com/jackc/pgx/v5/stdlib)")
	}
	pctx, cancel := context.WithTimeout(ctx, callTimeout)
	s, err := prepare(pctx, db, cfg)
	cancel()
	waiting := errors.Is(err, errSlotWait) // the rest is checked: the slot is made in the background
	if err != nil && !waiting {
		return nil, err
	}
	ctx, cancel = context.WithCancel(context.WithoutCancel(ctx))
	f := &pgLogical{db: db, cfg: cfg, cancel: cancel, done: make(chan struct{}),
		ready: make(chan struct{}, 1), room: make(chan struct{}, 1)}
	if waiting {
		f.failure = err
		cfg.Logger.Warn("sqlsource: logical decoding: the replication slot is not made yet; trying again", "slot", cfg.Slot, "err", err)
	}
	go f.run(ctx, s, waiting)
	return f, nil
}

// next waits for committed changes and returns those queued, in commit
// order, with the position that ends the last of their transactions. It
// returns no changes, with the last position delivered, when none came
// within the configured wait (logicalConfig.Wait), so that the consumer
// can do its periodic work. It returns errResync, with the changes it
// could name and that position, when every row may have changed; and
// again, at every call, until that position is acknowledged, so that a
// consumer that takes it for a failure and tries again loses nothing.
func (f *pgLogical) next(ctx context.Context) ([]rowChange, feedPos, error) {
	wait := time.NewTimer(f.cfg.Wait)
	defer wait.Stop()
	for {
		f.mu.Lock()
		if t := f.told; t != nil {
			f.mu.Unlock()
			return slices.Clone(t.changes), t.pos, errResync
		}
		if len(f.queue) > 0 || f.resync {
			changes, pos, resync := f.queue, f.queueEnd, f.resync
			f.queue, f.resync = nil, false
			f.delivered = max(f.delivered, pos) // a redelivery after a reconnect may be behind
			p := pending{pos: pos}
			if len(changes) > 0 {
				p.oldest = changes[0].Committed
			}
			f.unacked = append(f.unacked, p)
			if resync {
				f.told = &told{changes: slices.Clone(changes), pos: pos}
			}
			f.mu.Unlock()
			select {
			case f.room <- struct{}{}:
			default:
			}
			if resync {
				return changes, pos, errResync
			}
			return changes, pos, nil
		}
		f.mu.Unlock()
		select {
		case <-f.ready:
		case <-wait.C:
			f.mu.Lock()
			defer f.mu.Unlock()
			return nil, f.delivered, nil
		case <-ctx.Done():
			return nil, 0, ctx.Err()
		case <-f.done:
			return nil, 0, errFeedClosed
		}
	}
}

// ack says every change up to pos is applied, so the slot may confirm
// it: the next status update to the server carries it. pos must be one
// that next returned (or an earlier one); acknowledging past what was
// delivered is an error.
func (f *pgLogical) ack(ctx context.Context, pos feedPos) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if pos > f.delivered {
		return fmt.Errorf("sqlsource: logical decoding: ack of %s past the last position delivered, %s", pglogrepl.LSN(pos), pglogrepl.LSN(f.delivered))
	}
	if pos > f.acked {
		f.acked = pos
	}
	if f.told != nil && pos >= f.told.pos {
		f.told = nil
	}
	i := 0
	for i < len(f.unacked) && f.unacked[i].pos <= pos {
		i++
	}
	f.unacked = f.unacked[i:]
	return nil
}

// caughtUp reports whether every change committed up to target is
// delivered and acknowledged, no resync waiting: an ack reached target
// (the stream is in commit order, so every transaction that ended before
// it is applied), or the stream has heard the server decode past target
// and nothing is queued or waits for an ack (no change of the table came
// since). Under a steady stream of commits the second never holds while
// the consumer waits between batches (the keys' pacing, watch.go).
func (f *pgLogical) caughtUp(target feedPos) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.resync || f.told != nil {
		return false
	}
	return f.acked >= target || f.holding && f.seen >= target && len(f.queue) == 0 && f.acked >= f.delivered
}

// busy reports whether another consumer holds the slot, so that this
// feed waits for its turn.
func (f *pgLogical) busy() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return errors.Is(f.failure, errSlotBusy)
}

// close stops reading, after telling the server the last acknowledged
// position, and releases the slot for another replica. What was delivered
// and not acknowledged will be delivered again from the slot.
func (f *pgLogical) close() error {
	f.cancel()
	<-f.done
	return nil
}

// run reads the slot, connecting again with backoff whenever the
// connection fails or another consumer holds the slot, until ctx is done.
func (f *pgLogical) run(ctx context.Context, s slotSetup, unprepared bool) {
	defer close(f.done)
	backoff := minBackoff
	first, busy := !unprepared, false
	owed := s.created // a resync, until a session streams
	for {
		// Setup again after a failure, since the table, the publication or
		// the slot may be what failed; not while another replica holds the
		// slot, which tries only to read it.
		if !first && !busy {
			// A minute: making the slot waits for the transactions open.
			pctx, cancel := context.WithTimeout(ctx, slotWait)
			var err error
			s, err = prepare(pctx, f.db, f.cfg)
			cancel()
			owed = owed || s.created
			if err != nil {
				if !f.retry(ctx, err, &backoff) {
					return
				}
				continue
			}
		}
		first = false
		streamed, err := f.session(ctx, s, owed)
		if ctx.Err() != nil {
			return
		}
		if streamed {
			backoff = minBackoff
			owed = false
		}
		busy = errors.Is(err, errSlotBusy)
		if !f.retry(ctx, err, &backoff) {
			return
		}
	}
}

// retry records and logs (once per kind) why the feed is not reading,
// then waits the backoff and doubles it up to retryMost. It reports
// whether ctx is still live.
func (f *pgLogical) retry(ctx context.Context, err error, backoff *time.Duration) bool {
	f.mu.Lock()
	same := f.failure != nil && errors.Is(f.failure, errSlotBusy) == errors.Is(err, errSlotBusy)
	f.failure = err
	f.holding = false
	f.mu.Unlock()
	if !same {
		if errors.Is(err, errSlotBusy) {
			f.cfg.Logger.Info("sqlsource: logical decoding: another replica reads the slot; this one takes over when it stops", "slot", f.cfg.Slot)
		} else {
			f.cfg.Logger.Warn("sqlsource: logical decoding: cannot read the slot; trying again", "slot", f.cfg.Slot, "err", err)
		}
	}
	ok := sleep(ctx, *backoff)
	*backoff = min(2**backoff, retryMost)
	return ok
}

// signal gives next a token; f.mu is held.
func (f *pgLogical) signal() {
	select {
	case f.ready <- struct{}{}:
	default:
	}
}

// newLogicalFeed returns the logical decoding feed of s's table (Config's
// Table, Key and Significant), reading the slot and publication named (""
// for the default, "sqlsource_" and the table's name), for Watch: next
// waits at most Config.WatchInterval, and what the feed cannot do is
// logged to Config.Logger.
func (s *Source) newLogicalFeed(ctx context.Context, slot, publication string) (*pgLogical, error) {
	return newPGLogical(ctx, s.db, s.logicalConfig(slot, publication))
}

// removeLogicalFeed drops the slot and the publication that
// newLogicalFeed made, and makes the table's replica identity DEFAULT
// again if it made it FULL; every feed reading the slot must be closed.
func (s *Source) removeLogicalFeed(ctx context.Context, slot, publication string) error {
	return dropLogical(ctx, s.db, s.logicalConfig(slot, publication))
}

func (s *Source) logicalConfig(slot, publication string) logicalConfig {
	return logicalConfig{Table: s.sum.table, Key: s.sum.key, Significant: s.sum.significant,
		Slot: slot, Publication: publication, Wait: s.watchEvery, Logger: s.log}
}
