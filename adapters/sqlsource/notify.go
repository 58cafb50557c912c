package sqlsource

import (
	"context"
	"database/sql"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// pingEvery is how long the listener waits for a notification before it
// checks that its connection still answers (a connection cut without a
// word, by a firewall, would otherwise be waited on for ever).
const pingEvery = 30 * time.Second

// isPgx reports whether db's driver is pgx's database/sql driver, whose
// connections can listen.
func isPgx(db *sql.DB) bool {
	t := reflect.TypeOf(db.Driver())
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t != nil && strings.HasPrefix(t.PkgPath(), "github.com/jackc/pgx/")
}

// listener is the watcher's loop on PostgreSQL: a connection of its own
// that LISTENs on the summary's channel, on which each notification names
// a page written by a committed transaction.
type listener struct {
	w    *Watcher
	cfg  *pgx.ConnConfig // that of db's connections, once one was had
	conn *pgx.Conn       // nil while not connected
}

// run waits for notifications and tells the pages they name, at most once
// per interval; when the connection fails it connects again with backoff.
func (l *listener) run(ctx context.Context) {
	defer l.close()
	backoff := minBackoff
	for {
		if l.conn == nil {
			if err := l.connect(ctx); err != nil {
				if ctx.Err() != nil {
					return
				}
				l.w.fail(err)
				if !sleep(ctx, backoff) {
					return
				}
				backoff = min(2*backoff, maxBackoff)
				continue
			}
			l.w.recovered()
			backoff = minBackoff
			if !l.w.flush() {
				return
			}
		}
		err := l.wait(ctx)
		if ctx.Err() != nil || l.w.stopped() {
			return
		}
		l.w.fail(err)
		l.close()
	}
}

// connect opens the listener's connection and LISTENs, then reads the
// summary's counters: a commit before the read is in them, and one after
// it is notified.
func (l *listener) connect(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	if l.cfg == nil {
		cfg, err := pgxConfig(ctx, l.w.src.db)
		if err != nil {
			return err
		}
		l.cfg = cfg
	}
	conn, err := pgx.ConnectConfig(ctx, l.cfg)
	if err != nil {
		return err
	}
	l.conn = conn
	if _, err := conn.Exec(ctx, `LISTEN "`+l.w.src.sum.channel+`"`); err != nil {
		l.close()
		return err
	}
	if err := l.w.revalidate(ctx); err != nil {
		l.close()
		return err
	}
	return nil
}

// pgxConfig returns the configuration of db's pgx connections.
func pgxConfig(ctx context.Context, db *sql.DB) (*pgx.ConnConfig, error) {
	c, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var cfg *pgx.ConnConfig
	err = c.Raw(func(dc any) error {
		pc, ok := dc.(interface{ Conn() *pgx.Conn })
		if !ok {
			return errors.New("not a pgx connection")
		}
		cfg = pc.Conn().Config()
		// That of the pool's connection, which pgx set to buffer its
		// notifications: the listener's own buffers its own.
		cfg.OnNotification = nil
		return nil
	})
	return cfg, err
}

// wait waits for notifications on the connection, adding the pages they
// name to the pending ones and telling them when due, until the
// connection fails, ctx is done or the Invalidator fails.
func (l *listener) wait(ctx context.Context) error {
	for {
		deadline := time.Now().Add(pingEvery)
		if len(l.w.pending) > 0 {
			deadline = l.w.due()
		}
		wctx, cancel := context.WithDeadline(ctx, deadline)
		n, err := l.conn.WaitForNotification(wctx)
		timedOut := wctx.Err() != nil
		cancel()
		switch {
		case err == nil:
			if page, err := strconv.ParseInt(n.Payload, 10, 64); err == nil && page > 0 {
				l.w.pending[page] = true // anything else is not from our triggers
			}
		case ctx.Err() != nil:
			return ctx.Err()
		case timedOut && !l.conn.IsClosed():
			if len(l.w.pending) == 0 {
				pctx, cancel := context.WithTimeout(ctx, callTimeout)
				err := l.conn.Ping(pctx)
				cancel()
				if err != nil {
					return err
				}
			}
		default:
			return err
		}
		if !l.w.flush() {
			return errors.New("stopped")
		}
	}
}

// close closes the listener's connection, if it has one.
func (l *listener) close() {
	if l.conn == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	l.conn.Close(ctx)
	l.conn = nil
}
