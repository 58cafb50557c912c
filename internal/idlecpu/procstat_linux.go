package idlecpu

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"
	"time"
)

// read samples the counts on Linux: the machine's from the first line of
// /proc/stat, the process's own from getrusage.
func read(now time.Duration) (sample, bool) {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return sample{}, false
	}
	var buf [512]byte // the first line, "cpu" and ten counts, fits
	n, err := f.Read(buf[:])
	f.Close()
	if err != nil {
		return sample{}, false
	}
	s, err := parseStat(buf[:n])
	if err != nil {
		return sample{}, false
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return sample{}, false
	}
	s.at = now
	s.own = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return s, true
}

// parseStat reads the machine's idle and total ticks from the start of
// /proc/stat: "cpu" then user, nice, system, idle, iowait, irq, softirq,
// steal (and guest and guest_nice, already in user and nice). Idle is
// idle and iowait; steal, time the hypervisor gave elsewhere, is busy.
// Kernels older than 2.6.33 write fewer counts; the first four are needed.
func parseStat(p []byte) (sample, error) {
	line, _, ok := bytes.Cut(p, []byte{'\n'})
	if !ok {
		return sample{}, errors.New("idlecpu: no whole first line in /proc/stat")
	}
	fields := bytes.Fields(line)
	if len(fields) < 5 || string(fields[0]) != "cpu" {
		return sample{}, errors.New("idlecpu: /proc/stat does not start with the cpu line")
	}
	var s sample
	for i, f := range fields[1:min(len(fields), 9)] {
		v, err := strconv.ParseUint(string(f), 10, 64)
		if err != nil {
			return sample{}, errors.New("idlecpu: a count of /proc/stat's cpu line is not a number")
		}
		s.total += v
		if i == 3 || i == 4 { // idle, iowait
			s.idle += v
		}
	}
	return s, nil
}
