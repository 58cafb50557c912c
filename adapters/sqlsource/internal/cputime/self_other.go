//go:build !unix

package cputime

import (
	"errors"
	"time"
)

// Self fails here: the process's CPU time is read with getrusage, which
// this system does not have.
func Self() (time.Duration, error) {
	return 0, errors.New("cputime: the process's CPU time is read with getrusage, which this system does not have")
}
