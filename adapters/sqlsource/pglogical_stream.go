package sqlsource

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// One replication session of the logical decoding feed: a connection
// that streams from the slot, owned by the feed's goroutine, which reads
// and decodes the messages, queues the committed transactions for next,
// and tells the server the position the slot may confirm.

// session streams from the slot on one connection until it fails or ctx
// is done. It reports whether it got as far as streaming.
// With resync, next first tells that every row may have changed (the
// slot was made anew).
func (f *pgLogical) session(ctx context.Context, s slotSetup, resync bool) (bool, error) {
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	conn, err := replicate(cctx, f.db, f.cfg, s.binary)
	cancel()
	if err != nil {
		return false, err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), time.Second)
		conn.Close(cctx)
		cancel()
	}()
	st := &stream{heard: time.Now(), f: f, conn: conn, dec: newPGDecoder(catalogName(f.cfg.Key), catalogNames(f.cfg.Significant), s.table)}
	f.mu.Lock()
	if f.failure != nil {
		f.cfg.Logger.Info("sqlsource: logical decoding: reading the slot", "slot", f.cfg.Slot)
	}
	f.holding, f.failure = true, nil
	// What was queued and not taken comes again from the slot, from the
	// position it confirmed (which another replica may have moved).
	f.acked, f.delivered = max(f.acked, s.confirmed), max(f.delivered, s.confirmed)
	f.queue, f.queueEnd = nil, f.delivered
	if resync {
		f.resync = true // changes before the slot was made were not kept
		f.signal()
	}
	f.mu.Unlock()
	err = st.run(ctx)
	if ctx.Err() != nil {
		st.finish()
		return true, nil
	}
	return true, err
}

// finish tells the server the last acknowledged position, so that the
// next reader starts there, and ends the stream, waiting (a second at
// most) for the server to end it too: a connection closed with replies
// unread is reset, and the reset can drop the position sent just before.
func (st *stream) finish() {
	if st.status(true) != nil {
		return
	}
	nc := st.conn.Conn()
	nc.SetDeadline(time.Now().Add(time.Second))
	pglogrepl.SendStandbyCopyDone(context.Background(), st.conn) // read until the server's ReadyForQuery
	nc.SetDeadline(time.Time{})
}

func catalogNames(idents []string) []string {
	names := make([]string, len(idents))
	for i, s := range idents {
		names[i] = catalogName(s)
	}
	return names
}

// stream is one session's reading state, owned by the reading goroutine.
type stream struct {
	f       *pgLogical
	conn    *pgconn.PgConn
	dec     *pgDecoder
	walEnd  feedPos   // how far the server has decoded, from its messages
	sent    feedPos   // the position last confirmed to the server
	sentAt  time.Time // when
	heard   time.Time // when the server last spoke, or the feed last began to read again
	pending []*pgTxn  // committed transactions not yet queued (the queue was full)
}

// The stream reads in bursts. The server sends a message per change and
// per transaction's start and end, each as soon as it is decoded; read
// one by one, each is a read call and a wake-up of the reading
// goroutine, which on a busy machine cost the database's writers more
// CPU than the decoding of the change (BENCHMARKS.md, h27cost). So once
// the stream has read for burstMost it rests burstRest, while the
// server's messages gather in the socket's buffer, to be read many a
// call. A change's delivery waits at most burstRest more; the server
// waits for nothing (it keeps what does not fit in the buffer, and its
// timeouts are of seconds). A stream that reads a message now and then
// reads each as it comes, which costs little; one catching up on a
// backlog reads it from a full buffer, faster than the server decodes.
const (
	burstRest = 40 * time.Millisecond
	burstMost = 5 * time.Millisecond
)

// run reads messages, decoding them and queueing committed transactions,
// and sends status updates, until the connection fails or ctx is done.
// It reads with the connection's read deadline, moved forward at most
// every half statusEvery, and not with a context a message, whose timer
// and watcher cost as much as the read.
func (st *stream) run(ctx context.Context) error {
	nc := st.conn.Conn()
	defer nc.SetReadDeadline(time.Time{})
	stop := context.AfterFunc(ctx, func() { nc.SetReadDeadline(time.Unix(1, 0)) }) // end a read under way
	defer stop()
	var deadline, burst time.Time // the read deadline set; when this burst of reads began, zero while resting
	for {
		if err := st.status(false); err != nil {
			return err
		}
		if !st.flush() {
			// The queue is full: wait for next to take it, still answering
			// the server on time.
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-st.f.room:
			case <-time.After(statusEvery):
			}
			st.heard = time.Now() // silence counts only while the feed reads
			continue
		}
		now := time.Now()
		if deadline.Sub(now) < statusEvery/2 {
			deadline = now.Add(statusEvery)
			nc.SetReadDeadline(deadline)
			if err := ctx.Err(); err != nil { // done before the deadline moved: AfterFunc's is lost
				return err
			}
		}
		if burst.IsZero() {
			burst = now
		}
		msg, err := st.conn.ReceiveMessage(context.Background())
		pause := time.Since(burst) > burstMost
		if err != nil {
			if ctx.Err() == nil && pgconn.Timeout(err) && !st.conn.IsClosed() {
				if silent := time.Since(st.heard); silent > 3*statusIdle {
					return fmt.Errorf("sqlsource: logical decoding: no word from the server in %v", silent.Round(time.Millisecond))
				}
				continue
			}
			return err
		}
		st.heard = time.Now()
		switch m := msg.(type) {
		case *pgproto3.CopyData:
			if err := st.copyData(m.Data); err != nil {
				return err
			}
		case *pgproto3.ErrorResponse:
			return pgconn.ErrorResponseToPgError(m)
		case *pgproto3.NoticeResponse:
		default:
			return fmt.Errorf("sqlsource: logical decoding: unexpected %T in the replication stream", msg)
		}
		if pause && !st.rest(ctx, msg) {
			return ctx.Err()
		}
		if pause {
			burst = time.Time{}
		}
	}
}

// rest waits burstRest after a burst that ended on msg, unless ctx is
// done first, and reports whether ctx is still live. After a keepalive
// it does not wait: the server may have asked for a reply, which the
// loop sends first.
func (st *stream) rest(ctx context.Context, msg pgproto3.BackendMessage) bool {
	if m, ok := msg.(*pgproto3.CopyData); !ok || len(m.Data) == 0 || m.Data[0] != pglogrepl.XLogDataByteID {
		return true
	}
	st.flush() // what the burst decoded goes to the queue first
	return sleep(ctx, burstRest)
}

// copyData handles one message of the stream: a keepalive or WAL data.
func (st *stream) copyData(data []byte) error {
	if len(data) == 0 {
		return errors.New("sqlsource: logical decoding: empty message in the replication stream")
	}
	switch data[0] {
	case pglogrepl.PrimaryKeepaliveMessageByteID:
		k, err := pglogrepl.ParsePrimaryKeepaliveMessage(data[1:])
		if err != nil {
			return fmt.Errorf("sqlsource: logical decoding: %w", err)
		}
		st.walEnd = max(st.walEnd, feedPos(k.ServerWALEnd))
		if k.ReplyRequested {
			st.sentAt = time.Time{} // answer now
		}
	case pglogrepl.XLogDataByteID:
		x, err := pglogrepl.ParseXLogData(data[1:])
		if err != nil {
			return fmt.Errorf("sqlsource: logical decoding: %w", err)
		}
		txn, err := st.dec.decode(x.WALData)
		if err != nil {
			return fmt.Errorf("sqlsource: logical decoding: %w", err)
		}
		if txn != nil {
			st.walEnd = max(st.walEnd, txn.end)
			st.pending = append(st.pending, txn)
		}
	}
	return nil
}

// flush moves the pending transactions to the feed's queue while it has
// room. It reports whether all of them went.
func (st *stream) flush() bool {
	f := st.f
	f.mu.Lock()
	defer f.mu.Unlock()
	defer func() {
		if len(st.pending) == 0 && !st.dec.inTxn {
			f.seen = max(f.seen, st.walEnd)
		}
	}()
	for len(st.pending) > 0 {
		txn := st.pending[0]
		if len(f.queue) > 0 && len(f.queue)+len(txn.changes) > queueMax {
			break
		}
		st.pending = st.pending[1:]
		f.queueEnd = txn.end
		if !txn.resync && len(txn.changes) == 0 && len(f.queue) == 0 && !f.resync {
			// A transaction with no row of ours (another table of the
			// publication's): nothing to deliver, but past it may be
			// confirmed once everything before is (see status).
			continue
		}
		f.queue = append(f.queue, txn.changes...)
		f.resync = f.resync || txn.resync
	}
	if len(f.queue) > 0 || f.resync {
		f.signal()
	}
	return len(st.pending) == 0
}

// status tells the server the position the slot may confirm, when it
// moved (at most every statusEvery) or statusIdle has passed, or always
// when force is set. That is the last acknowledged position; or, when
// everything delivered is acknowledged and nothing is queued, pending or
// half-read, how far the server has decoded, so that a slot whose table
// is not written does not keep the WAL of every other table.
func (st *stream) status(force bool) error {
	f := st.f
	f.mu.Lock()
	pos := f.acked
	idle := f.acked >= f.delivered && len(f.queue) == 0 && !f.resync && len(st.pending) == 0 && !st.dec.inTxn
	if idle {
		pos = max(pos, st.walEnd)
	}
	f.mu.Unlock()
	now := time.Now()
	switch {
	case pos == 0:
		return nil // nothing known yet: the slot keeps what it confirmed
	case force:
	case pos != st.sent && now.Sub(st.sentAt) >= statusEvery:
	case now.Sub(st.sentAt) >= statusIdle:
	default:
		return nil
	}
	err := pglogrepl.SendStandbyStatusUpdate(context.Background(), st.conn, pglogrepl.StandbyStatusUpdate{
		WALWritePosition: pglogrepl.LSN(pos), WALFlushPosition: pglogrepl.LSN(pos), WALApplyPosition: pglogrepl.LSN(pos), ClientTime: now,
		ReplyRequested: now.Sub(st.heard) >= statusIdle})
	if err != nil {
		return fmt.Errorf("sqlsource: logical decoding: status update: %w", err)
	}
	st.sent, st.sentAt = pos, now
	return nil
}
