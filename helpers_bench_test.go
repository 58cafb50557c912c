package sitemap

import (
	"testing"

	"github.com/freshmap/sitemap/internal/idlecpu"
	"github.com/freshmap/sitemap/internal/segment"
)

// BenchmarkServeBuildHelpers is BenchmarkServeBuild at 50,000 URLs with
// the segments' helpers (internal/segment's parallel.go) as the machine's
// idle cores decide (gated), or as if every core were idle (on) or none
// (off), whatever the machine is; helped/op is the share of builds that
// had helpers (the page built before the loop counts too), free-cores
// what idlecpu said last (gated): run with -cpu 2 on a quiet machine and
// on a loaded one, and compare wall time (ns/op) and CPU time (cpu-ns/op).
func BenchmarkServeBuildHelpers(b *testing.B) {
	for _, c := range []struct {
		name string
		free float64 // the cores idlecpu says free; negative: measured
	}{{"gated", -1}, {"on", 64}, {"off", 0}} {
		b.Run(c.name, func(b *testing.B) {
			if c.free >= 0 {
				defer idlecpu.Fix(c.free)()
			}
			helped := segment.Helped()
			serveBuild(b, 50_000)
			b.ReportMetric(float64(segment.Helped()-helped)/float64(b.N), "helped/op")
			if free, ok := idlecpu.Free(); ok && c.free < 0 {
				b.ReportMetric(free, "free-cores")
			}
		})
	}
}
