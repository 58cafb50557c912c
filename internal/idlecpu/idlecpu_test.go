package idlecpu

import (
	"math"
	"runtime"
	"sync"
	"testing"
	"time"
)

// fake replaces the platform's reading with samples a test writes, and
// counts the reads; the package's state starts afresh and is restored.
type fake struct {
	mu    sync.Mutex
	next  sample
	ok    bool
	reads int
	now   time.Duration // the clock
}

// wait moves the fake's clock on by d.
func (f *fake) wait(d time.Duration) {
	f.mu.Lock()
	f.now += d
	f.mu.Unlock()
}

func (f *fake) clock() time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fake) read(now time.Duration) (sample, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	s := f.next
	s.at = now
	return s, f.ok
}

func useFake(t *testing.T) *fake {
	t.Helper()
	f := &fake{ok: true}
	mu.Lock()
	oldRead, oldClock, oldLast, oldHave := readNow, clock, last, have
	readNow, clock, last, have = f.read, f.clock, sample{}, false
	oldDue, oldFree := due.Swap(0), free.Swap(nil)
	mu.Unlock()
	t.Cleanup(func() {
		mu.Lock()
		readNow, clock, last, have = oldRead, oldClock, oldLast, oldHave
		due.Store(oldDue)
		free.Store(oldFree)
		mu.Unlock()
	})
	return f
}

// set makes the fake's next sample: the machine's ticks and the process's
// CPU time so far.
func (f *fake) set(idle, total uint64, own time.Duration) {
	f.mu.Lock()
	f.next = sample{idle: idle, total: total, own: own}
	f.mu.Unlock()
}

// TestWindow: the answer is the idle share of the machine's ticks times
// its cores, plus the cores this process used, at most all of them; a
// window with no tick, or with a count that went back, tells nothing.
func TestWindow(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		name string
		a, b sample
		n    int
		want float64
		ok   bool
	}{
		{"quiet", sample{0, 0, 0, 0}, sample{100 * ms, 19, 20, 0}, 2, 1.9, true},
		{"two busy loops", sample{0, 0, 0, 0}, sample{100 * ms, 0, 20, 0}, 2, 0, true},
		{"loops and this process's build", sample{0, 0, 0, 0}, sample{100 * ms, 0, 20, 67 * ms}, 2, 0.67, true},
		{"this process alone", sample{0, 0, 0, 0}, sample{100 * ms, 2, 20, 180 * ms}, 2, 2, true},
		{"iowait is idle", sample{0, 5, 10, 0}, sample{200 * ms, 25, 50, 0}, 4, 2, true},
		{"no tick", sample{0, 5, 10, 0}, sample{200 * ms, 5, 10, 0}, 2, 0, false},
		{"idle went back", sample{0, 5, 10, 0}, sample{200 * ms, 4, 30, 0}, 2, 0, false},
	} {
		got, ok := window(c.a, c.b, c.n)
		if ok != c.ok || math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: window = %v, %v; want %v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

// TestFreeSamples: the first call only samples (unknown); a call a Period
// later answers for the window; calls in between answer from the cache
// without reading; many calls at once read at most once.
func TestFreeSamples(t *testing.T) {
	f := useFake(t)
	n := runtime.NumCPU()
	f.set(0, 0, 0)
	if _, ok := Free(); ok {
		t.Fatal("known after one sample")
	}
	if _, ok := Free(); ok || f.reads != 1 {
		t.Fatalf("a second call at once: known %v, %d reads (want unknown, 1)", ok, f.reads)
	}
	// half the machine idle over the window, this process idle
	f.set(50, 100, 0)
	f.wait(Period)
	got, ok := Free()
	if !ok || math.Abs(got-float64(n)/2) > 1e-9 || f.reads != 2 {
		t.Fatalf("after a Period: %v, %v, %d reads; want %v, true, 2", got, ok, f.reads, float64(n)/2)
	}
	f.set(50, 200, 0) // a busy machine, not yet sampled
	f.wait(Period - 1)
	var wg sync.WaitGroup
	for range 100 {
		wg.Go(func() {
			if c, ok := Free(); !ok || c != got {
				t.Errorf("from the cache: %v, %v; want %v", c, ok, got)
			}
		})
	}
	wg.Wait()
	if f.reads != 2 {
		t.Fatalf("%d reads within a Period, want 2", f.reads)
	}
	f.wait(Period)
	var reads sync.WaitGroup
	for range 50 {
		reads.Go(func() { Free() })
	}
	reads.Wait()
	if f.reads != 3 {
		t.Fatalf("50 calls after a Period read %d times in all, want 3", f.reads)
	}
	if c, ok := Free(); !ok || c != 0 {
		t.Fatalf("a busy machine: %v, %v; want 0, true", c, ok)
	}
}

// TestFreeUnreadable: counts that cannot be read make the answer unknown,
// even one known before.
func TestFreeUnreadable(t *testing.T) {
	f := useFake(t)
	f.set(0, 0, 0)
	Free()
	f.set(10, 10, 0)
	f.wait(Period)
	if _, ok := Free(); !ok {
		t.Fatal("unknown after two samples")
	}
	f.mu.Lock()
	f.ok = false
	f.mu.Unlock()
	f.wait(Period)
	if c, ok := Free(); ok {
		t.Fatalf("unreadable counts answered %v", c)
	}
}

// TestFreeNoTick: a window in which the kernel counted no tick widens
// until one is counted, and the answer is of the whole window.
func TestFreeNoTick(t *testing.T) {
	f := useFake(t)
	f.set(0, 0, 0)
	Free()
	f.wait(Period)
	if _, ok := Free(); ok {
		t.Fatal("known from a window with no tick")
	}
	f.set(10, 10, 0)
	f.wait(Period)
	if c, ok := Free(); !ok || c != float64(runtime.NumCPU()) {
		t.Fatalf("the widened window: %v, %v; want every core", c, ok)
	}
}

// TestFix: a fixed answer holds until restored, whatever the counts say.
func TestFix(t *testing.T) {
	useFake(t)
	restore := Fix(1.5)
	if c, ok := Free(); !ok || c != 1.5 {
		t.Fatalf("fixed at 1.5: %v, %v", c, ok)
	}
	inner := Fix(0)
	if c, _ := Free(); c != 0 {
		t.Fatalf("fixed at 0: %v", c)
	}
	inner()
	if c, _ := Free(); c != 1.5 {
		t.Fatalf("restored to 1.5: %v", c)
	}
	restore()
	if _, ok := Free(); ok {
		t.Fatal("restored: known from one sample")
	}
}
