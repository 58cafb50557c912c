// Package cputime reads the CPU time a process has used, user and system
// together: this process's own (Self, by getrusage, every thread
// counted) and another's on the same machine (Proc, from Linux's /proc).
// The write-cost and churn tools and the decoding benchmark weigh
// sqlsource's work with it.
package cputime

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Proc returns the user and system CPU time process pid has used so far,
// from /proc/<pid>/stat (Linux only: elsewhere the file is not there and
// it fails).
func Proc(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	// The fields after the command (which may hold spaces), from the 3rd:
	// utime and stime are the 14th and 15th, in clock ticks (100 a second).
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: too few fields", pid)
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %q %q", pid, f[11], f[12])
	}
	return time.Duration(ut+st) * 10 * time.Millisecond, nil
}
