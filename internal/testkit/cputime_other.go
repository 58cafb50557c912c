//go:build !unix

package testkit

import (
	"testing"
	"time"
)

// processCPU is -1 where getrusage is not: the CPU time is not reported.
func processCPU(*testing.B) time.Duration { return -1 }
