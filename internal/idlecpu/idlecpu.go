// Package idlecpu tells how many of the machine's cores other processes
// leave to this one: the cores the kernel counted idle, plus those this
// process used itself, over a recent window. A caller that wants a core
// for extra work (a helper goroutine) asks it first, so that on a machine
// other processes keep busy the work stays where it is instead of
// competing with them for the same cores.
//
// The counts are the kernel's (on Linux, the first line of /proc/stat and
// the process's getrusage), read as a sample by the call that finds the
// last sample Period old or more; a call in between answers from the
// window between the last two samples, an atomic load. At most one call
// samples at a time, and nothing runs in the background: a process that
// does not ask reads nothing. A window is as long as the calls leave it:
// Period when they come often; when they do not, the time since the last
// sample, whose average is the best the counts tell of the moment.
// Where the counts cannot be read (another system, no /proc), the answer
// is unknown, and callers then take no core as free.
package idlecpu

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Period is the shortest window: a call samples when the last sample is
// this old.
const Period = 100 * time.Millisecond

// sample is the kernel's counts at one moment.
type sample struct {
	at    time.Duration // since epoch, on the monotonic clock
	idle  uint64        // the machine's idle time (idle and iowait), in the kernel's ticks
	total uint64        // the machine's time, busy or not, in the same ticks
	own   time.Duration // this process's CPU time, user and system
}

var (
	epoch   = time.Now()
	mu      sync.Mutex   // held by the call that samples
	last    sample       // the last sample (under mu)
	have    bool         // last is set (under mu)
	due     atomic.Int64 // when the next sample is due, since epoch
	free    atomic.Pointer[float64]
	fixed   atomic.Pointer[float64]
	readNow = read // the platform's reading; a test's in the package's tests
	clock   = func() time.Duration { return time.Since(epoch) }
)

// Free returns the cores that other processes left to this one over the
// last window: those idle and those this process used, a fraction of a
// core counted as such, at most runtime.NumCPU. ok is false while it is
// unknown: before two samples a Period apart, or where the counts cannot
// be read.
func Free() (cores float64, ok bool) {
	if f := fixed.Load(); f != nil {
		return *f, true
	}
	now := clock()
	if int64(now) >= due.Load() && mu.TryLock() {
		resample(now)
		mu.Unlock()
	}
	if f := free.Load(); f != nil {
		return *f, true
	}
	return 0, false
}

// resample takes a sample at now, unless another call has just taken one,
// and makes the answer of the window since the last; mu is held.
func resample(now time.Duration) {
	if int64(now) < due.Load() {
		return
	}
	due.Store(int64(now + Period))
	s, ok := readNow(now)
	if !ok {
		free.Store(nil)
		have = false
		return
	}
	if have {
		if s.total == last.total {
			return // no tick counted yet: the window widens
		}
		if f, ok := window(last, s, runtime.NumCPU()); ok {
			free.Store(&f)
		} // else a count went back (a CPU gone): the last answer stays, a new window starts
	}
	last, have = s, true
}

// window is Free's answer for the window from a to b on a machine of n
// cores; false if the counts do not tell: no tick counted, or a count
// went back.
func window(a, b sample, n int) (float64, bool) {
	if b.total <= a.total || b.idle < a.idle || b.at <= a.at || b.own < a.own {
		return 0, false
	}
	idle := float64(b.idle-a.idle) / float64(b.total-a.total) * float64(n)
	own := float64(b.own-a.own) / float64(b.at-a.at)
	return math.Min(idle+own, float64(n)), true
}

// Fix makes Free answer cores until restore is called: a test's or a
// benchmark's machine, quiet or loaded, whatever the real one is.
func Fix(cores float64) (restore func()) {
	old := fixed.Swap(&cores)
	return func() { fixed.Store(old) }
}
