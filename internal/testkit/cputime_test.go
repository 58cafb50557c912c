package testkit

import (
	"testing"
	"time"
)

// TestCPU: a loop that spins until the process has used 2 ms more CPU
// an iteration reports about 2 ms, and one that sleeps 2 ms far less.
func TestCPU(t *testing.T) {
	for name, tc := range map[string]struct {
		work     func(b *testing.B, d time.Duration)
		min, max float64
	}{
		"spin": {func(b *testing.B, d time.Duration) {
			for end := processCPU(b) + d; processCPU(b) < end; {
			}
		}, 2e6, 4e6},
		"sleep": {func(_ *testing.B, d time.Duration) { time.Sleep(d) }, 0, 0.5e6},
	} {
		res := testing.Benchmark(func(b *testing.B) {
			c := StartCPU(b)
			for b.Loop() {
				tc.work(b, 2*time.Millisecond)
			}
			c.Report()
		})
		if got := res.Extra["cpu-ns/op"]; got < tc.min || got > tc.max {
			t.Errorf("%s: %.0f cpu-ns/op, want %.0f to %.0f", name, got, tc.min, tc.max)
		}
	}
}
