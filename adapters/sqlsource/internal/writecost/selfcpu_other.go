//go:build !unix

package writecost

import (
	"errors"
	"time"
)

// selfCPU is not known here: the meter reads getrusage and /proc.
func selfCPU() (time.Duration, error) {
	return 0, errors.New("writecost: the process's CPU time is read with getrusage, which this system does not have")
}
