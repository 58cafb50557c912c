//go:build !linux

package idlecpu

import "time"

// read has no counts to sample outside Linux: Free stays unknown.
func read(time.Duration) (sample, bool) { return sample{}, false }
