package demo

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// peakRSS returns the process's peak resident set size (VmHWM in
// /proc/self/status) in bytes, or 0 where there is no /proc.
func peakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// resetPeakRSS resets VmHWM to the current RSS (Linux 4.0 and later), so
// that the next peakRSS measures from now. It does nothing elsewhere.
func resetPeakRSS() {
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}
