package churn

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The CPU of the PostgreSQL server's processes and of the whole machine,
// from /proc, to set the server's own beside them. The server may have
// other clients, and a backend that exits within the span takes its CPU
// with it.

const clockTick = 100 // USER_HZ: /proc counts CPU in hundredths of a second on Linux

// postgresCPU returns the CPU used so far by each process named postgres.
func postgresCPU() map[int]time.Duration {
	m := map[int]time.Duration{}
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range dirs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		open, close := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
		if open < 0 || close < open || string(b[open+1:close]) != "postgres" {
			continue
		}
		f := strings.Fields(string(b[close+1:])) // state is f[0]: utime and stime are fields 14 and 15 of the line
		if len(f) < 13 {
			continue
		}
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		m[pid] = time.Duration(ut+st) * time.Second / clockTick
	}
	return m
}

// postgresDelta returns the CPU the postgres processes used between two
// samples: those alive at the second, less what each had at the first.
func postgresDelta(before, after map[int]time.Duration) time.Duration {
	var d time.Duration
	for pid, t := range after {
		d += t - before[pid]
	}
	return d
}

// machineBusy returns the CPU the whole machine has used so far, all but
// idle and iowait.
func machineBusy() time.Duration {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	var busy int64
	for i, v := range f[1:] {
		n, _ := strconv.ParseInt(v, 10, 64)
		if i != 3 && i != 4 && i < 8 { // user nice system idle iowait irq softirq steal
			busy += n
		}
	}
	return time.Duration(busy) * time.Second / clockTick
}
