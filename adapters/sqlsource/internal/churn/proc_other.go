//go:build !linux

package churn

import "time"

// Not measured here: they read as zero.
func postgresCPU() map[int]time.Duration                              { return nil }
func postgresDelta(before, after map[int]time.Duration) time.Duration { return 0 }
func machineBusy() time.Duration                                      { return 0 }
