package testkit

import (
	"testing"
	"time"
)

// CPU measures the CPU time of a benchmark's loop: user and system time of
// the whole process (every thread, so a compressing goroutine and the
// garbage collector count too), which on a shared machine moves far less
// with the load than the wall time that ns/op is.
type CPU struct {
	b     *testing.B
	start time.Duration
}

// StartCPU starts measuring; call it just before b's loop, and Report
// just after.
func StartCPU(b *testing.B) *CPU { return &CPU{b: b, start: processCPU(b)} }

// Report adds the metric cpu-ns/op: the CPU time since StartCPU over the
// loop's iterations (none where the process's CPU time is not known).
func (c *CPU) Report() {
	if c.b.N > 0 && c.start >= 0 {
		c.b.ReportMetric(float64(processCPU(c.b)-c.start)/float64(c.b.N), "cpu-ns/op")
	}
}
