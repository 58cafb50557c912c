package churn

import (
	"time"

	"github.com/freshmap/sitemap/adapters/sqlsource/internal/cputime"
)

// cpuTime returns the CPU time this process has used, user and system,
// or zero where it is not known.
func cpuTime() time.Duration {
	d, _ := cputime.Self()
	return d
}
