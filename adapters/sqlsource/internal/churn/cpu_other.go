//go:build !unix

package churn

import "time"

// cpuTime is not measured here: the server's CPU reads as zero.
func cpuTime() time.Duration { return 0 }
