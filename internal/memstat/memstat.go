// Package memstat reads the process's peak memory on Linux, for the demo's
// crawl report and the adapters' memory tests.
package memstat

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// PeakRSS returns the process's peak resident set size (VmHWM in
// /proc/self/status) in bytes, or 0 where there is no /proc.
func PeakRSS() int64 {
	return status("VmHWM:")
}

// RSS returns the process's resident set size now (VmRSS), or 0 where
// there is no /proc.
func RSS() int64 {
	return status("VmRSS:")
}

// status returns the value of a kB field of /proc/self/status in bytes.
func status(field string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// ResetPeak resets VmHWM to the current RSS (Linux 4.0 and later), so that
// the next PeakRSS measures from now. It does nothing elsewhere.
func ResetPeak() {
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}
