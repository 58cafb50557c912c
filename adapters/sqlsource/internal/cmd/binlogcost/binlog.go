package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	gomysql "github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/replication"
	"github.com/go-sql-driver/mysql"
)

// errNoBinlog is a server whose binary log is off or not row-based.
var errNoBinlog = errors.New("binlogcost: the server has no row-based binary log (log_bin = 1, binlog_format = ROW)")

// A sink takes the changes of the transactions committed since its last
// call (in commit order), one call an interval at most.
type sink func(ctx context.Context, changes []change) error

// reader follows a table's row events in the server's binary log from
// the position it had when the reader started, as a replica would
// (go-mysql's BinlogSyncer), and gives the changes of each committed
// transaction to its sink, gathered over an interval.
type reader struct {
	db            *sql.DB
	schema, table string
	cols          columns
	every         time.Duration
	sink          sink

	syncer *replication.BinlogSyncer
	stream *replication.BinlogStreamer
	cancel context.CancelFunc
	done   chan error
	upto   chan gomysql.Position // stop's target: the server's position then

	mu   sync.Mutex
	read int64 // row events of the table read, for the report
	all  int64 // events read
}

// startReader starts a reader of table (in the DSN's database) whose key
// and significant columns are named, from the server's current position.
func startReader(ctx context.Context, db *sql.DB, dsn, table, key string, significant []string, every time.Duration, s sink) (*reader, error) {
	return startReaderAt(ctx, db, dsn, table, key, significant, every, s, nil, false)
}

// startReaderAt is startReader from the position from (nil: the
// server's current one); raw leaves the events undecoded (go-mysql's raw
// mode: the reference of BenchmarkReader), so that nothing reaches the
// sink.
func startReaderAt(ctx context.Context, db *sql.DB, dsn, table, key string, significant []string, every time.Duration, s sink,
	from *gomysql.Position, raw bool) (*reader, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, err
	}
	host, portStr, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return nil, err
	}
	port, err := strconv.ParseUint(portStr, 10, 16)
	if err != nil {
		return nil, err
	}
	var logBin int
	var format, version string
	if err := db.QueryRowContext(ctx, "SELECT @@log_bin, @@binlog_format, @@version").Scan(&logBin, &format, &version); err != nil {
		return nil, err
	}
	if logBin != 1 || !strings.EqualFold(format, "ROW") {
		return nil, fmt.Errorf("%w: log_bin = %d, binlog_format = %s", errNoBinlog, logBin, format)
	}
	r := &reader{db: db, schema: cfg.DBName, table: table, every: every, sink: s, done: make(chan error, 1),
		upto: make(chan gomysql.Position, 1)}
	if r.cols, err = columnsOf(ctx, db, cfg.DBName, table, key, significant); err != nil {
		return nil, err
	}
	pos, err := serverPosition(ctx, db)
	if err != nil {
		return nil, err
	}
	if from != nil {
		pos = *from
	}
	flavor := gomysql.MySQLFlavor
	if strings.Contains(strings.ToLower(version), "mariadb") {
		flavor = gomysql.MariaDBFlavor
	}
	r.syncer = replication.NewBinlogSyncer(replication.BinlogSyncerConfig{
		ServerID: 1_000_000 + rand.Uint32N(1_000_000), Flavor: flavor, Host: host, Port: uint16(port),
		User: cfg.User, Password: cfg.Passwd, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		MaxReconnectAttempts: 1, RawModeEnabled: raw,
	})
	if r.stream, err = r.syncer.StartSync(pos); err != nil {
		r.syncer.Close()
		return nil, err
	}
	ctx, r.cancel = context.WithCancel(ctx)
	go func() { r.done <- r.loop(ctx, pos) }()
	return r, nil
}

// columnsOf finds the key and significant columns' positions.
func columnsOf(ctx context.Context, db *sql.DB, schema, table, key string, significant []string) (columns, error) {
	rows, err := db.QueryContext(ctx, "SELECT COLUMN_NAME, ORDINAL_POSITION FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?",
		schema, table)
	if err != nil {
		return columns{}, err
	}
	defer rows.Close()
	at := map[string]int{}
	for rows.Next() {
		var name string
		var n int
		if err := rows.Scan(&name, &n); err != nil {
			return columns{}, err
		}
		at[strings.ToLower(name)] = n - 1
	}
	if err := rows.Err(); err != nil {
		return columns{}, err
	}
	c := columns{key: -1}
	if k, ok := at[strings.ToLower(key)]; ok {
		c.key = k
	}
	for _, s := range significant {
		k, ok := at[strings.ToLower(s)]
		if !ok {
			return columns{}, fmt.Errorf("binlogcost: %s.%s has no column %s", schema, table, s)
		}
		c.significant = append(c.significant, k)
	}
	if c.key < 0 {
		return columns{}, fmt.Errorf("binlogcost: %s.%s has no column %s", schema, table, key)
	}
	return c, nil
}

// serverPosition is where the server's binary log ends now.
func serverPosition(ctx context.Context, db *sql.DB) (gomysql.Position, error) {
	rows, err := db.QueryContext(ctx, "SHOW MASTER STATUS")
	if err != nil {
		return gomysql.Position{}, err
	}
	defer rows.Close()
	names, err := rows.Columns()
	if err != nil {
		return gomysql.Position{}, err
	}
	if !rows.Next() {
		return gomysql.Position{}, errNoBinlog
	}
	vals := make([]any, len(names))
	var file string
	var pos uint32
	for i := range vals {
		vals[i] = new(sql.RawBytes)
	}
	vals[0], vals[1] = &file, &pos
	if err := rows.Scan(vals...); err != nil {
		return gomysql.Position{}, err
	}
	return gomysql.Position{Name: file, Pos: pos}, rows.Err()
}

// loop reads events, keeps the table's changes of the transaction under
// way until its commit (an XID event), and hands what committed to the
// sink once an interval. After stop it reads on to stop's target, hands
// over the rest, and ends.
func (r *reader) loop(ctx context.Context, at gomysql.Position) error {
	var pending, committed []change
	var target *gomysql.Position
	due := time.Now().Add(r.every)
	for {
		if target == nil {
			select {
			case p := <-r.upto:
				target = &p
			default:
			}
		}
		reached := target != nil && at.Compare(*target) >= 0
		if len(committed) > 0 && (reached || !time.Now().Before(due)) {
			if err := r.sink(ctx, committed); err != nil {
				return err
			}
			committed = nil
		}
		if reached {
			return nil
		}
		if !time.Now().Before(due) {
			due = time.Now().Add(r.every)
		}
		wait, cancel := context.WithDeadline(ctx, due)
		ev, err := r.stream.GetEvent(wait)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if errors.Is(err, context.DeadlineExceeded) {
				continue
			}
			return err
		}
		r.mu.Lock()
		r.all++
		r.mu.Unlock()
		switch e := ev.Event.(type) {
		case *replication.RotateEvent:
			at = gomysql.Position{Name: string(e.NextLogName), Pos: uint32(e.Position)}
			continue
		case *replication.RowsEvent:
			if string(e.Table.Schema) == r.schema && string(e.Table.Table) == r.table {
				pending = append(pending, rowChanges(e.Type(), e.Rows, e.SkippedColumns, r.cols, time.Unix(int64(ev.Header.Timestamp), 0))...)
				r.mu.Lock()
				r.read++
				r.mu.Unlock()
			}
		case *replication.XIDEvent:
			committed = append(committed, pending...)
			pending = nil
		}
		if ev.Header.LogPos > 0 {
			at.Pos = ev.Header.LogPos
		}
	}
}

// stop reads on to where the server's log ends now, hands the sink what
// committed up to there, and closes the reader.
func (r *reader) stop(ctx context.Context) error {
	pos, err := serverPosition(ctx, r.db)
	if err != nil {
		r.cancel()
		r.syncer.Close()
		return err
	}
	return r.stopAt(pos)
}

// stopAt is stop at the position pos.
func (r *reader) stopAt(pos gomysql.Position) error {
	r.upto <- pos
	var err error
	select {
	case err = <-r.done:
	case <-time.After(5 * time.Minute):
		err = fmt.Errorf("binlogcost: the reader did not reach %v in 5 minutes", pos)
	}
	r.cancel()
	r.syncer.Close()
	return err
}

// events returns how many row events of the table the reader read.
func (r *reader) events() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.read
}
