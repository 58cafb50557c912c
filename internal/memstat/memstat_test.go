package memstat

import (
	"os"
	"runtime/debug"
	"testing"
)

func TestPeakRSS(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc: ", err)
	}
	debug.FreeOSMemory() // so that the buffer below needs new pages, even on a rerun
	ResetPeak()
	now := RSS()
	peak := PeakRSS() // read second: the RSS may grow in between
	if now < 1<<20 || peak < now {
		t.Errorf("PeakRSS() = %d bytes, RSS() = %d bytes; want at least 1 MiB, and the peak at least the RSS", peak, now)
	}
	b := make([]byte, 64<<20)
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1 // touch every page, so that it is resident
	}
	if grown := PeakRSS(); grown < peak+32<<20 {
		t.Errorf("PeakRSS() = %d bytes after touching 64 MiB, %d before", grown, peak)
	}
	b[len(b)-1] = 2 // keep b alive until here
}
