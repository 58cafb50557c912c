package cputime

import (
	"os"
	"runtime"
	"testing"
	"time"
)

// TestSelf: spinning until the process has used 50 ms more makes Self
// grow by that, and Proc of this process, where /proc is, agrees with it
// to its ticks (10 ms, and a tick's rounding either side).
func TestSelf(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("no getrusage here")
	}
	start, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	for now := start; now < start+50*time.Millisecond; {
		if now, err = Self(); err != nil {
			t.Fatal(err)
		}
	}
	self, _ := Self()
	if runtime.GOOS != "linux" {
		return
	}
	proc, err := Proc(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	after, _ := Self()
	if proc < self-30*time.Millisecond || proc > after+30*time.Millisecond {
		t.Errorf("Proc %v, Self %v to %v", proc, self, after)
	}
}

// TestProcMissing: a process that is not there is an error, not zero.
func TestProcMissing(t *testing.T) {
	if _, err := Proc(-1); err == nil {
		t.Error("Proc(-1) did not fail")
	}
}
