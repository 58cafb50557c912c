package idlecpu

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// TestParseStat: the first line's counts summed, idle and iowait as idle;
// older kernels' shorter lines; anything else an error.
func TestParseStat(t *testing.T) {
	for _, c := range []struct {
		in          string
		idle, total uint64
		err         bool
	}{
		{"cpu  39082 57 12381 80562 307 0 530 21 7 3\ncpu0 1 2 3 4\n", 80869, 39082 + 57 + 12381 + 80562 + 307 + 530 + 21, false},
		{"cpu  1 2 3 4\nintr 5\n", 4, 10, false},
		{"cpu  1 2 3 4 5 6 7\n", 9, 28, false},
		{"cpu  1 2 3\n", 0, 0, true},
		{"cpu0 1 2 3 4 5\n", 0, 0, true},
		{"cpu  1 2 x 4 5\n", 0, 0, true},
		{"cpu  1 2 3 4 5", 0, 0, true}, // no whole line
		{"", 0, 0, true},
	} {
		s, err := parseStat([]byte(c.in))
		if (err != nil) != c.err || s.idle != c.idle || s.total != c.total {
			t.Errorf("parseStat(%q) = idle %d, total %d, %v; want %d, %d, error %v", c.in, s.idle, s.total, err, c.idle, c.total, c.err)
		}
	}
}

// TestFreeLinux: this machine's counts are read; what this process burns
// itself counts as free, so a process that keeps a core busy for the
// window is left at least the share of it that it got (however loaded
// the machine, which decides that share).
func TestFreeLinux(t *testing.T) {
	useFake(t)
	readNow, clock = read, func() time.Duration { return time.Since(epoch) }
	if _, ok := read(time.Since(epoch)); !ok {
		t.Fatal("/proc/stat or getrusage unreadable on Linux")
	}
	start, cpu0 := time.Now(), cpuTime(t)
	Free()
	stop := time.Now().Add(Period + 20*time.Millisecond)
	for time.Now().Before(stop) { // this goroutine busy for the window
	}
	c, ok := Free()
	got := float64(cpuTime(t)-cpu0) / float64(time.Since(start))
	if !ok || c < 0 || c > float64(runtime.NumCPU()) {
		t.Fatalf("Free = %v, %v; want within 0 and %d", c, ok, runtime.NumCPU())
	}
	if c < 0.8*got-0.05 {
		t.Errorf("a process that got %.2f of a core for the window is left %.2f cores", got, c)
	}
	t.Logf("figures: %.2f cores free of %d, %.2f of them this process's", c, runtime.NumCPU(), got)
}

func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
