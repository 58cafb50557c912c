package writecost

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/freshmap/sitemap/adapters/sqlsource/internal/cputime"
)

// Where a run's cost goes: the CPU of this process (the writers' client
// side and any consumer in it), of the PostgreSQL backends serving it
// and of its walsender (the slot's decoding), and the WAL the server
// wrote, sampled before and after each run. The backends are those whose
// application_name is the Meter's (set it on the DSN); the WAL is the
// whole cluster's, so other sessions' writes are in it.

// Usage is what a Meter read: CPU times and WAL bytes so far.
type Usage struct {
	Client, Server, Sender time.Duration
	WAL                    int64 // bytes; -1 unknown
}

func (u Usage) sub(v Usage) Usage {
	w := u.WAL - v.WAL
	if u.WAL < 0 || v.WAL < 0 {
		w = -1
	}
	return Usage{u.Client - v.Client, u.Server - v.Server, u.Sender - v.Sender, w}
}

func (u Usage) add(v Usage) Usage {
	w := u.WAL + v.WAL
	if u.WAL < 0 || v.WAL < 0 {
		w = -1
	}
	return Usage{u.Client + v.Client, u.Server + v.Server, u.Sender + v.Sender, w}
}

// A Meter reads a run's Usage.
type Meter interface {
	Read(ctx context.Context) (Usage, error)
}

// ProcessMeter reads this process's CPU, with Files the bytes it wrote
// (SQLite, whose writes are the process's own: the WAL frames, a page and
// a 24-byte header each, and the checkpoints), and with Server the CPU of
// that process (MariaDB's server, whose other clients' work is in it).
type ProcessMeter struct {
	Files  bool
	Server int
}

// Read returns the process's user and system CPU so far, and with Files
// the bytes it wrote (/proc/self/io's wchar), else -1.
func (m ProcessMeter) Read(context.Context) (Usage, error) {
	self, err := cputime.Self()
	if err != nil {
		return Usage{}, err
	}
	u := Usage{Client: self, WAL: -1}
	if m.Server > 0 {
		var err error
		if u.Server, err = cputime.Proc(m.Server); err != nil {
			return u, err
		}
	}
	if m.Files {
		b, err := os.ReadFile("/proc/self/io")
		if err != nil {
			return u, err
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "wchar: "); ok {
				if u.WAL, err = strconv.ParseInt(v, 10, 64); err != nil {
					return u, err
				}
			}
		}
	}
	return u, nil
}

// PGMeter reads this process's CPU and that of the PostgreSQL backends
// named App (application_name) on the same machine, walsenders apart,
// and the server's WAL position.
type PGMeter struct {
	DB  *sql.DB
	App string

	seen map[int]time.Duration // backend pid → its CPU when last read
	sum  [2]time.Duration      // CPU read of backends and walsenders, summed over their lives
}

// Read returns the CPU so far: of each backend, what it used since it
// was first read (a backend that started since, all it used).
func (m *PGMeter) Read(ctx context.Context) (Usage, error) {
	u, err := ProcessMeter{}.Read(ctx)
	if err != nil {
		return u, err
	}
	if m.seen == nil {
		m.seen = map[int]time.Duration{}
	}
	if err := m.DB.QueryRowContext(ctx, "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint").Scan(&u.WAL); err != nil {
		return u, err
	}
	rows, err := m.DB.QueryContext(ctx, "SELECT pid, backend_type = 'walsender' FROM pg_stat_activity WHERE application_name = $1", m.App)
	if err != nil {
		return u, err
	}
	defer rows.Close()
	for rows.Next() {
		var pid int
		var sender bool
		if err := rows.Scan(&pid, &sender); err != nil {
			return u, err
		}
		cpu, err := cputime.Proc(pid)
		if err != nil {
			continue // it ended
		}
		k := 0
		if sender {
			k = 1
		}
		m.sum[k] += cpu - m.seen[pid]
		m.seen[pid] = cpu
	}
	u.Server, u.Sender = m.sum[0], m.sum[1]
	return u, rows.Err()
}

// costLine is one case and mode's pooled Usage per write.
func costLine(w io.Writer, c, mode string, u Usage, writes int, batches, pages int64) {
	if writes == 0 {
		return
	}
	per := func(d time.Duration) string { return fmt.Sprintf("%.0f", float64(d.Microseconds())/float64(writes)) }
	wal := ""
	if u.WAL >= 0 {
		wal = fmt.Sprintf("%.0f", float64(u.WAL)/float64(writes))
	}
	fmt.Fprintf(w, "| %s | %s | %d | %s | %s | %s | %s | %d | %d |\n", c, mode, writes, per(u.Client), per(u.Server), per(u.Sender), wal, batches, pages)
}
